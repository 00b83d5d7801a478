"""Snakemake adapter for rule `prep`."""

from lyss.prep import prep_dataset
from lyss.scripting import logged
from lyss.settings import Limits

with logged(snakemake.log[0]):
    prep_dataset(snakemake.wildcards.dataset, snakemake.params.dataset_dir, snakemake.input.card,
                 snakemake.params.languages_dir, snakemake.output.corpus, snakemake.output.meta,
                 Limits.of(snakemake.params.limits))

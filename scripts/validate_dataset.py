"""Snakemake adapter for rule `validate_dataset`."""

from lyss.scripting import logged
from lyss.validation.dataset import validate_dataset

with logged(snakemake.log[0]):
    validate_dataset(snakemake.input.human, snakemake.input.metrics, snakemake.output[0],
                     seed=snakemake.params.stats["seed"], resamples=snakemake.params.stats["bootstrap_resamples"])

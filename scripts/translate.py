"""Snakemake adapter for rule `translate`."""

from lyss.pipeline import run_translation
from lyss.scripting import logged

with logged(snakemake.log[0]):
    run_translation(snakemake.input.corpus, snakemake.input.meta, snakemake.wildcards.method,
                    snakemake.params.method, snakemake.params.prices, snakemake.params.languages_dir,
                    snakemake.output.translations, snakemake.output.meta)

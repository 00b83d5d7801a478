"""Snakemake adapter for rule `postprocess` (hooks and prices on top of the raw output)."""

from lyss.scripting import logged
from lyss.translate.jobs import run_postprocess

with logged(snakemake.log[0]):
    run_postprocess(snakemake.input.corpus, snakemake.input.meta, snakemake.input.raw, snakemake.input.raw_meta,
                    snakemake.wildcards.method, snakemake.params.hooks, snakemake.params.price,
                    snakemake.params.languages_dir, snakemake.output.translations, snakemake.output.meta)

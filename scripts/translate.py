"""Snakemake adapter for rule `translate` (the raw, paid-for output)."""

from lyss.scripting import logged
from lyss.settings import Method
from lyss.translate.jobs import run_translation

with logged(snakemake.log[0]):
    run_translation(snakemake.input.corpus, snakemake.input.meta, snakemake.wildcards.method,
                    Method.of(snakemake.params.method), snakemake.params.records_dir, snakemake.output.raw,
                    snakemake.output.meta, snakemake.params.timing)

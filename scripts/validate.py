"""Snakemake adapter for rule `validate`: `validation.<part>.args` become the part's flags."""

from lyss.scripting import logged, option_flags
from lyss.studies.steps import run_step

with logged(snakemake.log[0]):
    argv = [snakemake.input[0], *option_flags(snakemake.params.args), "--out", snakemake.output[0]]
    status = run_step(snakemake.wildcards.part, argv)
    if status:
        raise SystemExit(status)

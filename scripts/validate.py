"""Snakemake adapter for rule `validate`: `validation.<part>.args` become the subcommand's flags."""

from lyss.cli import main
from lyss.scripting import logged, option_flags

with logged(snakemake.log[0]):
    argv = [snakemake.wildcards.part, snakemake.input[0], *option_flags(snakemake.params.args),
            "--out", snakemake.output[0]]
    status = main(argv)
    if status:
        raise SystemExit(status)

"""Snakemake adapter for rule `validation_plots`."""

from pathlib import Path

from lyss.report.plots import write_validation_plots
from lyss.scripting import logged

with logged(snakemake.log[0]):
    write_validation_plots(snakemake.input, Path(snakemake.output.correlations).parent)

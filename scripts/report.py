"""Snakemake adapter for rule `report`."""

from lyss.report import write_reports
from lyss.scripting import logged

with logged(snakemake.log[0]):
    write_reports(snakemake.input.cards, snakemake.input.significance, snakemake.output.metrics,
                  snakemake.output.leaderboard)

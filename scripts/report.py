"""Snakemake adapter for rule `report`."""

from pathlib import Path

from lyss.errors import InputError
from lyss.report import ReportOutputs, write_reports
from lyss.scripting import logged
from lyss.store import StoreError, configured_url

with logged(snakemake.log[0]):
    out = snakemake.output
    outputs = ReportOutputs(out.metrics, out.leaderboard, html=out.html, database=out.database,
                            timings=out.timings, figures_dir=Path(snakemake.input.figures))
    try:
        # the DSN is read here, not passed as a param: Snakemake keeps params in .snakemake/ (rules/report.smk)
        write_reports(snakemake.input.cards, snakemake.input.significance, outputs,
                      database_url=configured_url(snakemake.config["database"]),
                      skipped_paths=snakemake.input.skipped)
    except StoreError as err:
        raise InputError("database", str(err)) from None

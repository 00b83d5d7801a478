"""Snakemake adapter for rule `report`."""

from pathlib import Path

from lyss.errors import InputError
from lyss.report import ReportOutputs, write_reports
from lyss.scripting import logged
from lyss.store import StoreError, configured_url

with logged(snakemake.log[0]):
    out = snakemake.output
    try:
        outputs = ReportOutputs(out.metrics, out.leaderboard, html=out.html, plots_dir=Path(out.figures).parent,
                                database=out.database, timings=out.timings)
        write_reports(snakemake.input.cards, snakemake.input.significance, outputs,
                      database_url=configured_url(snakemake.config.get("database")),
                      datasets=[Path(p).stem for p in out.composite], tiers=snakemake.params.tiers,
                      skipped_paths=snakemake.input.skipped)
    except StoreError as err:
        raise InputError("database", str(err)) from None

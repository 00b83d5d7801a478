"""Snakemake adapter for rule `report`."""

from pathlib import Path

from lyss.errors import InputError
from lyss.report import write_reports
from lyss.scripting import logged
from lyss.store import StoreError, configured_url

with logged(snakemake.log[0]):
    out = snakemake.output
    try:
        write_reports(snakemake.input.cards, snakemake.input.significance, out.metrics, out.leaderboard,
                      html_out=out.html, plots_dir=Path(out.figures).parent, database=out.database,
                      database_url=configured_url(snakemake.config.get("database")),
                      datasets=[Path(p).stem for p in out.composite], tiers=snakemake.params.tiers,
                      timings_out=out.timings,
                      skipped_paths=snakemake.input.skipped)
    except StoreError as err:
        raise InputError("database", str(err)) from None

"""Snakemake adapter for rule `plots`: the leaderboard's plot data and PNG figures, from the run cards alone."""

from pathlib import Path

from lyss.io import read_json
from lyss.report import write_plot_files
from lyss.scripting import logged
from lyss.settings import Tier

with logged(snakemake.log[0]):
    out = snakemake.output
    write_plot_files([read_json(p) for p in snakemake.input.cards], Path(out.figures).parent,
                     datasets=[Path(p).stem for p in out.composite], tiers=Tier.all_of(snakemake.params.tiers))

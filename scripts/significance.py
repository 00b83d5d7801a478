"""Snakemake adapter for rule `significance`."""

from lyss.scripting import logged
from lyss.settings import Composite, Stats
from lyss.significance import dataset_significance

with logged(snakemake.log[0]):
    dataset_significance(
        dataset=snakemake.wildcards.dataset,
        metric_paths=snakemake.input.metrics,
        card_paths=snakemake.input.cards,
        composite=Composite.of(snakemake.params.composite),
        stats=Stats.of(snakemake.params.stats),
        out_path=snakemake.output[0],
    )

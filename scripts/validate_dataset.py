"""Snakemake adapter for rule `validate_dataset`."""

from lyss.evidence.dataset import validate_pipeline_dataset
from lyss.scripting import logged
from lyss.settings import Composite, Stats

with logged(snakemake.log[0]):
    validate_pipeline_dataset(
        human_csv=snakemake.input.human, corpus_meta_path=snakemake.input.meta, metric_paths=snakemake.input.metrics,
        languages_dir=snakemake.params.languages_dir, composite=Composite.of(snakemake.params.composite),
        stats=Stats.of(snakemake.params.stats), out_dir=snakemake.output[0], workers=snakemake.threads,
    )

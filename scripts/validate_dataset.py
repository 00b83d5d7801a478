"""Snakemake adapter for rule `validate_dataset`."""

from lyss.evidence.dataset import validate_pipeline_dataset
from lyss.scripting import logged

with logged(snakemake.log[0]):
    validate_pipeline_dataset(
        human_csv=snakemake.input.human, corpus_meta_path=snakemake.input.meta, metric_paths=snakemake.input.metrics,
        languages_dir=snakemake.params.languages_dir, composite_settings=snakemake.params.composite,
        stats_settings=snakemake.params.stats, out_dir=snakemake.output[0],
    )

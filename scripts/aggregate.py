"""Snakemake adapter for rule `aggregate`."""

from lyss.aggregate import RunFiles, aggregate_run
from lyss.scripting import logged
from lyss.settings import Settings

with logged(snakemake.log[0]):
    # The workflow's settings (the reference oracle and the dataset folders' systems joined, as common.smk
    # checked them); the card reads only the sections the rule lists as params, which rerun it when they change.
    settings = Settings.from_checked(snakemake.config)
    aggregate_run(
        RunFiles(
            corpus=snakemake.input.corpus,
            meta=snakemake.input.meta,
            translations=snakemake.input.translations,
            metrics=snakemake.input.metrics,
            reference_metrics=snakemake.input.reference_metrics,
            out=snakemake.output[0],
            evidence=snakemake.input.evidence,
            review=snakemake.input.review,
            embeddings=snakemake.input.embeddings,
            timing=snakemake.params.timing,
        ),
        snakemake.wildcards.method,
        settings,
    )

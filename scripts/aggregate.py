"""Snakemake adapter for rule `aggregate`."""

from lyss.aggregate import aggregate_run
from lyss.scripting import logged

with logged(snakemake.log[0]):
    aggregate_run(
        corpus_path=snakemake.input.corpus,
        corpus_meta_path=snakemake.input.meta,
        translations_path=snakemake.input.translations,
        metric_paths=snakemake.input.metrics,
        reference_metric_paths=snakemake.input.reference_metrics,
        evidence_dirs=snakemake.input.evidence,
        languages_dir=snakemake.params.languages_dir,
        method_name=snakemake.wildcards.method,
        method_config=snakemake.params.method,
        composite_settings=snakemake.params.composite,
        oracle_settings=snakemake.params.oracle,
        priced=snakemake.params.priced,
        tiers=snakemake.params.tiers,
        caveat_settings=snakemake.params.caveats,
        stats_settings=snakemake.params.stats,
        out_path=snakemake.output[0],
        embedding_paths=snakemake.input.embeddings,
        embedding_backend=snakemake.params.embedding_backend,
        timing_path=snakemake.params.timing,
        review_paths=snakemake.input.review,
    )

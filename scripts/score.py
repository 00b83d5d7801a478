"""Snakemake adapter for rules `score`, `score_plain` and `score_with_vectors`: the metrics of one dataset ×
method, one output file each, in the order of `params.metrics`."""

from lyss.metrics.score import score_metrics
from lyss.scripting import logged

with logged(snakemake.log[0]):
    score_metrics(snakemake.params.metrics, snakemake.input.corpus, snakemake.input.meta,
                  snakemake.input.translations, snakemake.params.languages_dir, snakemake.params.options,
                  snakemake.params.code, list(snakemake.output), inputs=snakemake.input.languages,
                  embedding_paths=snakemake.input.get("embeddings", []),
                  embedding_backend=snakemake.params.embedding_backend)

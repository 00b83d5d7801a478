"""Snakemake adapter for rules `score`, `score_plain` and `score_with_vectors`: the metrics of one dataset ×
method, one output file each, in the order of `params.metrics`."""

from lyss.metrics.score import ScoreFiles, score_metrics
from lyss.scripting import logged

with logged(snakemake.log[0]):
    files = ScoreFiles(snakemake.input.corpus, snakemake.input.meta, snakemake.input.translations,
                       snakemake.params.languages_dir, inputs=snakemake.input.languages,
                       embeddings=snakemake.input.get("embeddings", []))
    score_metrics(snakemake.params.metrics, files, snakemake.params.options, snakemake.params.code,
                  list(snakemake.output), embedding_backend=snakemake.params.embedding_backend)

"""Snakemake adapter for rules `score` and `score_cpu`: the metrics of one dataset ×
method, one output file each, in the order of `params.metrics`. Of `embeddings:` the rules pass the backend
alone (a batch size changes no score, so it reruns none)."""

from lyss.metrics.score import ScoreFiles, score_metrics
from lyss.scripting import logged
from lyss.settings import Embeddings, MetricOptions

with logged(snakemake.log[0]):
    files = ScoreFiles(snakemake.input.corpus, snakemake.input.meta, snakemake.input.translations,
                       tuple(snakemake.output), inputs=tuple(snakemake.input.languages),
                       embeddings=tuple(snakemake.input.get("embeddings", [])))
    score_metrics(snakemake.params.metrics, files, snakemake.params.code, MetricOptions.of(snakemake.params.options),
                  snakemake.params.languages_dir, Embeddings.of({"backend": snakemake.params.embedding_backend}))

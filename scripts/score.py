"""Snakemake adapter for rule `score`."""

from lyss.metrics.score import score_metric
from lyss.scripting import logged

with logged(snakemake.log[0]):
    score_metric(snakemake.wildcards.metric, snakemake.input.corpus, snakemake.input.meta,
                 snakemake.input.translations, snakemake.params.languages_dir, snakemake.params.options,
                 snakemake.output[0], embedding_paths=snakemake.input.embeddings,
                 embedding_backend=snakemake.params.embedding_backend)

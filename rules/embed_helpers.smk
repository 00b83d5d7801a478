# What the embed rules read (rules/embed.smk): the backend, the metrics that embed, each job's vector files.
from lyss.metrics import get_metric

EMBEDDING_BACKEND = SETTINGS.embeddings.backend
EMBEDDING_METRICS = [
    m for m in METRICS if getattr(get_metric(m), "needs_embeddings", False)
]


def embedding_files(dataset, method):
    """Source, reference and the method's vector files (the `reference` method's file is the reference
    field's)."""
    fields = dict.fromkeys(["source", "reference", method])
    return [f"results/embeddings/{dataset}/{field}.npy" for field in fields]


def dataset_embeddings(dataset):
    """Every vector file of a dataset; none when no configured metric embeds."""
    if not EMBEDDING_METRICS:
        return []
    return sorted(
        {f for m in dataset_methods(dataset) for f in embedding_files(dataset, m)}
    )


def metric_embeddings(wildcards):
    """Rule score: the vector files an embedding metric reads; none for the others."""
    if wildcards.metric not in EMBEDDING_METRICS:
        return []
    return embedding_files(wildcards.dataset, wildcards.method)


def method_embeddings(wildcards):
    """The vector files of a dataset × method whenever a configured metric embeds: rule score_cpu (the
    embedding metrics among its metrics) and rule aggregate (the misaligned_output caveat) read them.
    """
    if not EMBEDDING_METRICS:
        return []
    return embedding_files(wildcards.dataset, wildcards.method)

# Sentence vectors, once per dataset × text field (src/lyss/embed/__init__.py); read by the embedding
# metrics (rules score_cpu, score) and the misaligned_output caveat (rule aggregate). No target when no configured
# metric embeds.
from lyss.embed import CORPUS_FIELDS
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


ruleorder: embed_corpus > embed_method


rule embed_corpus:
    """The source and reference texts of a dataset, in one job: the model is loaded once for both (the
    `reference` method's output is the reference file)."""
    input:
        on_threads,
        corpus="results/corpora/{dataset}.jsonl",
    output:
        vectors=[
            f"results/embeddings/{{dataset}}/{field}.npy" for field in CORPUS_FIELDS
        ],
        ids=[
            f"results/embeddings/{{dataset}}/{field}.ids.json"
            for field in CORPUS_FIELDS
        ],
    log:
        "results/logs/embed/{dataset}/corpus.log",
    # one core for the job's own Python work (tokens, files); the model's batches run on onnxruntime's threads,
    # so a second job (the next method's vectors, a score job) overlaps it (docs/performance.md)
    threads: 1
    resources:
        mem_mb=2000,
        runtime=120,
    params:
        backend=EMBEDDING_BACKEND,
        batch_size=SETTINGS.embeddings.batch_size,
        code=code("embed.py"),
    run:
        run_job("embed.py", locals())


rule embed_method:
    """A method's outputs; texts already in the source or reference file are not embedded again."""
    input:
        on_threads,
        corpus="results/corpora/{dataset}.jsonl",
        translations="results/translations/{dataset}/{method}.jsonl",
        reuse=[
            "results/embeddings/{dataset}/source.npy",
            "results/embeddings/{dataset}/reference.npy",
        ],
    output:
        # lists, as rule embed_corpus's: scripts/embed.py writes each file of `vectors`
        vectors=["results/embeddings/{dataset}/{method}.npy"],
        ids=["results/embeddings/{dataset}/{method}.ids.json"],
    log:
        "results/logs/embed/{dataset}/{method}.log",
    # before the score jobs that are ready: every score job of the method waits for this file, and on two cores
    # the last method's vectors came after three score jobs (docs/performance.md)
    priority: 1
    threads: 1  # as embed_corpus
    resources:
        mem_mb=2000,
        runtime=120,
    params:
        backend=EMBEDDING_BACKEND,
        batch_size=SETTINGS.embeddings.batch_size,
        code=code("embed.py"),
    run:
        run_job("embed.py", locals())


rule embed_all:
    """DVC stage target: every vector file. The folder exists even when no configured metric embeds, since
    DVC expects the stage's output."""
    input:
        [f for dataset in DATASETS for f in dataset_embeddings(dataset)],
    shell:
        "mkdir -p results/embeddings"

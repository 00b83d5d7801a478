# Sentence vectors, once per dataset × text field (src/lyss/embed/__init__.py); read by the embedding
# metrics (rules score_cpu, score) and the misaligned_output caveat (rule aggregate). No target when no configured
# metric embeds.
from lyss.embed import CORPUS_FIELDS


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
    log:
        "results/logs/embed/all.log",
    run:
        Path("results/embeddings").mkdir(parents=True, exist_ok=True)
        Path(log[0]).write_text(f"{len(input)} vector files\n")

def metric_gpus(wildcards):
    """The GPUs the metric's class declares (`gpus`: COMET, a neural model, asks for one; every other metric
    is CPU-only). On a cluster without GPUs: `--set-resources score:gpu=0` (profiles/slurm/config.yaml).
    """
    from lyss.metrics import declaration

    return declaration(wildcards.metric, "gpus")


rule score:
    """One job per dataset × method × metric: per-entry values, sufficient statistics, corpus value."""
    input:
        corpus="results/corpora/{dataset}.jsonl",
        meta="results/corpora/{dataset}.meta.json",
        translations="results/translations/{dataset}/{method}.jsonl",
        languages=language_cards,
        embeddings=metric_embeddings,
    output:
        "results/metrics/{dataset}/{method}/{metric}.parquet",
    log:
        "results/logs/score/{dataset}/{method}/{metric}.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
        gpu=metric_gpus,
    params:
        options=lambda wc: config.get("metric_options", {}).get(wc.metric, {}),
        languages_dir=LANGUAGES_DIR,
        code=score_code,
        embedding_backend=EMBEDDING_BACKEND,
    script:
        "../scripts/score.py"


rule score_all:
    """DVC stage target: every metric file."""
    input:
        all_metric_files(),

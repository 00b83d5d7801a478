rule aggregate:
    """The run card: composite, tier, cost, speed and confidence intervals from the metric files."""
    input:
        corpus="results/corpora/{dataset}.jsonl",
        meta="results/corpora/{dataset}.meta.json",
        translations="results/translations/{dataset}/{method}.jsonl",
        translation_meta="results/translations/{dataset}/{method}.meta.json",
        metrics=metric_files,
        languages=language_cards,
        embeddings=run_embeddings,
    output:
        "results/runs/{dataset}/{method}.json",
    log:
        "results/logs/aggregate/{dataset}/{method}.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        method=lambda wc: config["methods"][wc.method],
        composite=config["composite"],
        tiers=config["tiers"],
        caveats=config["caveats"],
        stats=config["stats"],
        languages_dir=LANGUAGES_DIR,
        embedding_backend=EMBEDDING_BACKEND,
    script:
        "../scripts/aggregate.py"

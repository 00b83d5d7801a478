rule score:
    """One job per dataset × method × metric: per-entry values, sufficient statistics, corpus value."""
    input:
        corpus="results/corpora/{dataset}.jsonl",
        meta="results/corpora/{dataset}.meta.json",
        translations="results/translations/{dataset}/{method}.jsonl",
        languages=language_cards,
    output:
        "results/metrics/{dataset}/{method}/{metric}.parquet",
    log:
        "results/logs/score/{dataset}/{method}/{metric}.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        options=lambda wc: config.get("metric_options", {}).get(wc.metric, {}),
        languages_dir=LANGUAGES_DIR,
    script:
        "../scripts/score.py"


rule score_all:
    """DVC stage target: every metric file."""
    input:
        expand(
            "results/metrics/{dataset}/{method}/{metric}.parquet",
            dataset=DATASETS,
            method=METHODS,
            metric=METRICS,
        ),

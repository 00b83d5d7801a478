rule significance:
    """Paired bootstrap, approximate randomization, McNemar and Holm between every two methods of a dataset."""
    input:
        meta="results/corpora/{dataset}.meta.json",
        metrics=dataset_metric_files,
        languages=language_cards,
    output:
        "results/significance/{dataset}.json",
    log:
        "results/logs/significance/{dataset}.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        composite=config["composite"],
        stats=config["stats"],
        languages_dir=LANGUAGES_DIR,
        code=code("significance.py", "all"),
    script:
        "../scripts/significance.py"

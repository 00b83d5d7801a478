rule prep:
    """Validate and normalise a corpus; record its content fingerprint."""
    input:
        on_threads,
        corpus=lambda wc: corpus_files(dataset_dir(wc)),
        card=lambda wc: f"{dataset_dir(wc)}/dataset.yaml",
        languages=language_cards,
    output:
        corpus="results/corpora/{dataset}.jsonl",
        meta="results/corpora/{dataset}.meta.json",
    log:
        "results/logs/prep/{dataset}.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        dataset_dir=dataset_dir,
        languages_dir=LANGUAGES_DIR,
        limits=config["limits"],
        code=code("prep.py"),
    run:
        run_job("prep.py", locals())

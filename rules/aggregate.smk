rule aggregate:
    """The run card: composite, tier, cost, speed and confidence intervals from the metric files, each
    metric checked against the reference oracle's files and the human evidence of the language pair.
    """
    input:
        on_threads,
        corpus="results/corpora/{dataset}.jsonl",
        meta="results/corpora/{dataset}.meta.json",
        translations="results/translations/{dataset}/{method}.jsonl",
        metrics=metric_files,
        reference_metrics=reference_metric_files,
        evidence=evidence_dirs,
        review=review_verdict,
        languages=language_cards,
        embeddings=method_embeddings,
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
        composite=applied_composite,
        oracle=config["oracle"],
        # whether the method's model has a price row: without one its cost was not measured
        priced=lambda wc: config["methods"][wc.method].get("model") in config["prices"],
        tiers=config["tiers"],
        caveats=config["caveats"],
        stats=config["stats"],
        languages_dir=LANGUAGES_DIR,
        # wall-clock timing of the translation (rule `translate`): read when present, never versioned
        timing="results/timings/translations/{dataset}/{method}.json",
        # the whole package: the card records lyss.aggregate.fingerprint.code_version (codehash.WHOLE_PACKAGE_SCRIPTS)
        code=code("aggregate.py", "all"),
        embedding_backend=EMBEDDING_BACKEND,
    run:
        run_job("aggregate.py", locals())

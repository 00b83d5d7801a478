# Rule score: each metric writes results/metrics/{dataset}/{method}/{metric}.parquet. A metric that declares
# a GPU (COMET) and has its model on disk gets a job of its own (lyss.gpu_jobs); the others of one dataset ×
# method share one job (rule score_cpu), so the job count grows with datasets × methods, not × metrics. A
# grouped job recomputes only the metrics whose stamp changed (lyss.metrics.score.score_metrics): its outputs
# are update() files, which Snakemake does not delete before the job.


rule score:
    """A metric that needs a GPU: one job per dataset × method × metric."""
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
    wildcard_constraints:
        metric="|".join(SCORE_ALONE) or "(?!)",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
        gpu=metric_gpus,
    params:
        metrics=lambda wc: [wc.metric],
        options=lambda wc: group_options([wc.metric]),
        languages_dir=LANGUAGES_DIR,
        code=lambda wc: {wc.metric: score_code(wc)},
        embedding_backend=EMBEDDING_BACKEND,
    script:
        "../scripts/score.py"


if SCORE_CPU:

    rule score_cpu:
        """Every metric that needs no GPU, in one job per dataset × method; it reads the method's vectors when a
        configured metric does (semantic_score, hallucination_rate), and new vectors recompute only those.
        """
        input:
            on_threads,
            corpus="results/corpora/{dataset}.jsonl",
            meta="results/corpora/{dataset}.meta.json",
            translations="results/translations/{dataset}/{method}.jsonl",
            languages=language_cards,
            embeddings=method_embeddings,
        output:
            group_outputs(SCORE_CPU),
        log:
            "results/logs/score/{dataset}/{method}.log",
        threads: 1
        resources:
            mem_mb=2000,
            runtime=120,
        params:
            metrics=SCORE_CPU,
            options=group_options(SCORE_CPU),
            languages_dir=LANGUAGES_DIR,
            code=group_code(SCORE_CPU),
            card_files=group_card_files(SCORE_CPU),
            embedding_backend=EMBEDDING_BACKEND,
        run:
            run_job("score.py", locals(), in_worker=True)


rule score_all:
    """DVC stage target: every metric file."""
    input:
        all_metric_files(),

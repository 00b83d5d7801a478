rule significance:
    """Paired bootstrap, approximate randomization, McNemar and Holm between every two methods of a dataset."""
    input:
        on_threads,
        metrics=system_metric_files,
        cards=system_run_cards,
    output:
        "results/significance/{dataset}.json",
    log:
        "results/logs/significance/{dataset}.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        composite=applied_composite,
        stats=config["stats"],
        code=code("significance.py", "all"),
    run:
        run_job("significance.py", locals())

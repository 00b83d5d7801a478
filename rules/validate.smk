# Human-judgment validation (issue: metrics are trusted only once checked against people):
# one job per configured part of `validation:` in params.yaml, each running its `lyss` subcommand.


rule validate:
    """labels (seed 000), correlate (metric–human agreement), jury (seed 004) or probe (seed 003)."""
    input:
        lambda wc: config["validation"][wc.part]["input"],
    output:
        directory("results/validation/{part}"),
    log:
        "results/logs/validate/{part}.log",
    wildcard_constraints:
        part="labels|correlate|jury|probe",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        args=lambda wc: config["validation"][wc.part].get("args", {}),
        code=code("validate.py"),
    script:
        "../scripts/validate.py"


rule validate_all:
    """DVC stage target: every configured validation part."""
    input:
        validation_outputs(),


rule validate_dataset:
    """Metric–human agreement on a dataset whose `human_scores` rate its methods' translations."""
    input:
        human=lambda wc: config["datasets"][wc.dataset]["human_scores"],
        metrics=dataset_metric_files,
    output:
        directory("results/validation/datasets/{dataset}"),
    log:
        "results/logs/validate/datasets/{dataset}.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        stats=config["stats"],
        code=code("validate_dataset.py", "all"),
    script:
        "../scripts/validate_dataset.py"

# Human-judgment validation (issue: metrics are trusted only once checked against people):
# one job per configured part of `validation:` in params.yaml, each running its `lyss` subcommand.


rule validate:
    """labels (seed 000), correlate (metric–human agreement), jury (seed 004) or probe (seed 003)."""
    input:
        on_threads,
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
    run:
        run_job("validate.py", locals())


rule validate_all:
    """DVC stage target: every configured validation part and the human-judgment plots."""
    input:
        validation_outputs(),
        rules.validation_plots.output,


rule evidence_all:
    """DVC stage target: the metric–human agreement of every dataset with human scores."""
    input:
        "results/evidence/datasets.json",


rule evidence_index:
    """The rated datasets whose evidence the run cards read; always written, so that the folder DVC
    versions exists when no dataset has human scores."""
    input:
        on_threads,
        evidence_outputs(),
    output:
        "results/evidence/datasets.json",
    log:
        "results/logs/evidence/index.log",
    run:
        write_evidence_index(input, output[0], log[0])


rule validate_dataset:
    """Metric–human agreement (segment Kendall per item, system Pearson/Kendall, CIs, pairwise tests) and
    the evidence.json the run cards read, on a dataset whose `human_scores` rate its methods.
    """
    input:
        on_threads,
        human=lambda wc: config["datasets"][wc.dataset]["human_scores"],
        meta="results/corpora/{dataset}.meta.json",
        languages=language_cards,
        metrics=rated_metric_files,
    output:
        directory("results/evidence/{dataset}"),
    log:
        "results/logs/evidence/{dataset}.log",
    threads: 2
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        stats=config["stats"],
        code=code("validate_dataset.py", "all"),
        composite=applied_composite,
        languages_dir=LANGUAGES_DIR,
    run:
        run_job("validate_dataset.py", locals())

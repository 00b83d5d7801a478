# What the validation rules read and write (rules/validate.smk).
import json
from pathlib import Path


def rated_metric_files(wildcards):
    """Metric files of exactly the methods the dataset's human scores rate (read when the DAG is built)."""
    from lyss.evidence.dataset import human_methods

    methods = human_methods(config["datasets"][wildcards.dataset]["human_scores"])
    return expand(
        "results/metrics/{dataset}/{method}/{metric}.parquet",
        dataset=wildcards.dataset,
        method=methods,
        metric=METRICS,
    )


def write_evidence_index(evidence_dirs, output, log):
    """The names of the rated datasets' evidence folders, which the run cards read; the log says which."""
    rated = sorted(Path(p).name for p in evidence_dirs)
    Path(output).write_text(json.dumps(rated) + "\n")
    Path(log).write_text(f"{len(rated)} rated datasets: {', '.join(rated)}\n")

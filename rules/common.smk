# Config validation and target lists derived from params.yaml (nothing is hand-listed).
import functools
import sys

from lyss.codehash import code_hash, score_hash
from lyss.config import check_params
from lyss.pipeline import dataset_language_pair

for warning in check_params(config):
    print(f"lyss: warning: {warning}", file=sys.stderr)

DATASETS = list(config["datasets"])
METHODS = list(config["methods"])
METRICS = list(config["metrics"])
LANGUAGES_DIR = config.get("languages_dir", "data/languages")
VALIDATION_PARTS = list(config.get("validation", {}))


wildcard_constraints:
    dataset="[A-Za-z0-9][A-Za-z0-9_-]*",
    method="[A-Za-z0-9][A-Za-z0-9_-]*",
    metric="[a-z0-9_]+",


def code(script, metrics=()):
    """Hash of a script and of exactly the lyss code it imports (lyss.codehash).

    As a rule's param, an edit to that code reruns the rule's jobs. `metrics`: the
    metric plugins the rule uses ("all" or a tuple; none by default)."""
    return code_hash(os.path.join(workflow.basedir, "scripts", script), metrics)


def score_code(wildcards):
    """A score job's code: the shared scoring code plus only this metric's plugin.

    Also the plugin a language card of the dataset declares for it, so editing one
    metric module reruns only that metric's jobs."""
    return score_hash(
        os.path.join(workflow.basedir, "scripts", "score.py"),
        wildcards.metric,
        dataset_language_cards(wildcards.dataset),
    )


def dataset_dir(wildcards):
    return config["datasets"][wildcards.dataset]["path"]


def language_cards(wildcards):
    """The cards of the dataset's two languages that exist (a language without a card uses defaults)."""
    return dataset_language_cards(wildcards.dataset)


@functools.cache
def dataset_language_cards(dataset):
    """Read once per dataset: every job of the dataset asks (4,000+ jobs for 50 datasets)."""
    codes = dataset_language_pair(config["datasets"][dataset]["path"])
    paths = [f"{LANGUAGES_DIR}/{code}.yaml" for code in codes]
    return [p for p in paths if os.path.exists(p)]


def translations(dataset):
    return [f"results/translations/{dataset}/{method}.jsonl" for method in METHODS]


def metric_files(wildcards):
    return expand(
        "results/metrics/{dataset}/{method}/{metric}.parquet",
        dataset=wildcards.dataset,
        method=wildcards.method,
        metric=METRICS,
    )


def dataset_metric_files(wildcards):
    return expand(
        "results/metrics/{dataset}/{method}/{metric}.parquet",
        dataset=wildcards.dataset,
        method=METHODS,
        metric=METRICS,
    )


def run_cards():
    return expand(
        "results/runs/{dataset}/{method}.json", dataset=DATASETS, method=METHODS
    )


def significance_files():
    return expand("results/significance/{dataset}.json", dataset=DATASETS)


def validation_outputs():
    """The configured validation parts, and the agreement study of every dataset with human scores."""
    rated = [d for d in DATASETS if config["datasets"][d].get("human_scores")]
    return expand("results/validation/{part}", part=VALIDATION_PARTS) + expand(
        "results/validation/datasets/{dataset}", dataset=rated
    )

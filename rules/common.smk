# Config validation and target lists derived from params.yaml (nothing is hand-listed).
import functools
from types import SimpleNamespace

from lyss.config import check_params
from lyss.errors import InputError
from lyss.pipeline import dataset_language_pair

check_params(config)

DATASETS = list(config["datasets"])
METHODS = list(config["methods"])
# The reference oracle (docs/oracle.md): every dataset gets a method that outputs its references, scored
# like any method; aggregation checks each metric against it. It joins the configured methods here so
# every rule treats it as one of them; its name is reserved.
ORACLE = "reference"
if ORACLE in config["methods"]:
    raise InputError(
        "params.yaml",
        "the method name 'reference' is reserved for the reference oracle",
        field=f"methods.{ORACLE}",
    )
config["methods"][ORACLE] = {"kind": "reference"}
METRICS = list(config["metrics"])
LANGUAGES_DIR = config.get("languages_dir", "data/languages")
VALIDATION_PARTS = list(config.get("validation", {}))


wildcard_constraints:
    dataset="[A-Za-z0-9][A-Za-z0-9_-]*",
    method="[A-Za-z0-9][A-Za-z0-9_-]*",
    metric="[a-z0-9_]+",


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


def dataset_methods(dataset):
    """The methods run on `dataset`: the configured ones, then the reference oracle (always last)."""
    return METHODS + [ORACLE]


def translations(dataset):
    return [
        f"results/translations/{dataset}/{method}.jsonl"
        for method in dataset_methods(dataset)
    ]


def metric_files(wildcards):
    return expand(
        "results/metrics/{dataset}/{method}/{metric}.parquet",
        dataset=wildcards.dataset,
        method=wildcards.method,
        metric=METRICS,
    )


def reference_metric_files(wildcards):
    """The oracle's metric files, which every run card of the dataset is checked against."""
    return metric_files(SimpleNamespace(dataset=wildcards.dataset, method=ORACLE))


def dataset_metric_files(wildcards):
    return expand(
        "results/metrics/{dataset}/{method}/{metric}.parquet",
        dataset=wildcards.dataset,
        method=dataset_methods(wildcards.dataset),
        metric=METRICS,
    )


def all_metric_files():
    return [
        path
        for dataset in DATASETS
        for path in dataset_metric_files(SimpleNamespace(dataset=dataset))
    ]


def run_cards():
    return [
        f"results/runs/{dataset}/{method}.json"
        for dataset in DATASETS
        for method in dataset_methods(dataset)
    ]


def rated_datasets():
    return [d for d in DATASETS if config["datasets"][d].get("human_scores")]


def evidence_dirs(wildcards):
    """The human-judgment studies of rated datasets in this dataset's language pair (contract 4): a run
    card's validation status comes from them."""
    pair = dataset_language_pair(config["datasets"][wildcards.dataset]["path"])
    return [
        f"results/validation/datasets/{d}"
        for d in rated_datasets()
        if dataset_language_pair(config["datasets"][d]["path"]) == pair
    ]


def significance_files():
    return expand("results/significance/{dataset}.json", dataset=DATASETS)


def validation_outputs():
    """The configured validation parts, and the agreement study of every dataset with human scores."""
    return expand("results/validation/{part}", part=VALIDATION_PARTS) + expand(
        "results/validation/datasets/{dataset}", dataset=rated_datasets()
    )

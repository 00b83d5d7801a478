# Config validation and target lists derived from params.yaml (nothing is hand-listed).
import functools
import sys
from pathlib import Path
from types import SimpleNamespace

from lyss.aggregate.composite import select_profile, with_one_profile
from lyss.codehash import code_hash, score_hash
from lyss.config import check_inputs, check_params, one_line_errors
from lyss.errors import InputError
from lyss.script_workers import run_in_worker
from lyss.scripting import run_script
from lyss.prep import dataset_language_pair
from lyss.prep.folders import corpus_files, expand_dataset_folders
from lyss.settings import Method
from lyss.translate.eligibility import select_methods

# The reference oracle (docs/oracle.md): every dataset gets a method that outputs its references, scored
# like any method; aggregation checks each metric against it. Its name is reserved.
ORACLE = "reference"
# Bad settings stop the load as one line, no stack frame (lyss.config.one_line_errors). check_params covers
# post-processing hooks too, before any job: a misspelt hook deletes nothing.
with one_line_errors():
    # each dataset folder's systems/ and human_scores.csv join the settings before they are checked
    FOLDER_SYSTEMS = expand_dataset_folders(config)
    # read and checked once: the typed settings, every default of the schema filled in (lyss.settings)
    SETTINGS = check_params(config)
    for warning in SETTINGS.warnings:
        print(f"lyss: warning: {warning}", file=sys.stderr)
    if ORACLE in SETTINGS.methods:
        raise InputError(
            "params.yaml",
            "the method name 'reference' is reserved for the reference oracle",
            field=f"methods.{ORACLE}",
        )
# Rule params are plain sections of `config` (Snakemake reruns a job when their repr changes and ignores
# values it cannot represent), so `config` takes the checked settings with their defaults; each script turns
# its params back into the typed sections (lyss.settings) its stage function takes.
config.update(SETTINGS.plain())
config["methods"][ORACLE] = {"kind": "reference"}
METHODS = {**SETTINGS.methods, ORACLE: Method.of(config["methods"][ORACLE])}
DATASETS = list(SETTINGS.datasets)
METRICS = list(SETTINGS.metrics)
LANGUAGES_DIR = SETTINGS.languages_dir
VALIDATION_PARTS = list(SETTINGS.validation)


wildcard_constraints:
    dataset="[A-Za-z0-9][A-Za-z0-9_-]*",
    method="[A-Za-z0-9][A-Za-z0-9_-]*",
    metric="[a-z0-9_]+",


def code(script, metrics=()):
    """Hash of a script and of exactly the lyss code it imports (lyss.codehash).

    As a rule's param, an edit to that code reruns the rule's jobs. `metrics`: the
    metric plugins the rule uses ("all" or a tuple; none by default)."""
    return code_hash(script_path(script), metrics)


def script_path(script):
    return os.path.join(workflow.basedir, "scripts", script)


def on_threads(wildcards):
    """An input function of every `run:` rule, returning no file: it asks Snakemake to run `run:` jobs on its job
    threads (what --force-use-threads asks) before the DAG it helps build is handed to the local executor, which
    reads the setting when it starts. Without it Snakemake starts each `run:` job as a Snakemake of its own, which
    reads the whole workflow again (about 2 s a job). Not a profile: a workflow profile makes Snakemake print a line
    on every run, before the one line that a bad setting gets."""
    if workflow.execution_settings is not None:
        workflow.execution_settings.use_threads = True
    return []


def warn_without_threads():
    """If Snakemake stopped honouring `on_threads` (a Snakemake upgrade), say so once: correct, and slow."""
    if workflow.is_main_process and workflow.local_exec and not workflow.use_threads:
        print(
            "lyss: warning: jobs do not run on Snakemake's threads: each starts a Snakemake of its own "
            "(about 2 s a job); --force-use-threads asks for them",
            file=sys.stderr,
        )


JOB_NAMES = (
    "input",
    "output",
    "params",
    "wildcards",
    "threads",
    "resources",
    "log",
    "rule",
)


def run_job(script, names, in_worker=False):
    """A rule's `run:`: scripts/<script> runs in Snakemake's process, on a job thread (`on_threads`), where earlier
    jobs' imports and models are already loaded (lyss.scripting). `names`: the block's locals(), the job's input,
    output, params … as Snakemake passes them. `in_worker`: in a worker process of this Snakemake's that
    outlives the job (lyss.script_workers), for translation and scoring: a job killed by the kernel or a crash in
    a native library takes only itself down, and Snakemake reports it; a translation whose Snakemake was killed
    finishes on its own; the next job reuses what the worker loaded. COMET (a GPU, torch) keeps a process of its
    own (`script:`); the plots draw on figures of their own (matplotlib's object API, not pyplot's shared state),
    so they can share the process.
    """
    job = SimpleNamespace(**{k: names[k] for k in JOB_NAMES}, config=config)
    (run_in_worker if in_worker else run_script)(script_path(script), job)


def score_code(wildcards):
    """A score job's code: the shared scoring code plus only this metric's plugin.

    Also the plugin a language card of the dataset declares for it, so editing one
    metric module reruns only that metric's jobs."""
    return score_hash(
        script_path("score.py"),
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


@functools.cache
def method_selection(dataset):
    """`datasets.<name>.methods`, or every method that can serve the dataset's language pair
    (lyss.translate.eligibility), then the reference oracle; the others are skipped with a reason (results/skipped/).
    """
    pair = "-".join(dataset_language_pair(config["datasets"][dataset]["path"]))
    return select_methods(
        config["methods"],
        dataset,
        config["datasets"][dataset],
        pair,
        folder_systems=FOLDER_SYSTEMS,
    )


def dataset_methods(dataset):
    """The methods scored on `dataset`, in order: every target list is built from this."""
    return [m for m in method_selection(dataset).methods if m != ORACLE] + [ORACLE]


def skipped_methods(dataset):
    """{method: why it does not run on `dataset`}."""
    return dict(method_selection(dataset).skipped)


# Errors before work: the method lists, then every corpus, system output and human-scores file, read with the
# checks of the stage that reads them, before the first job (also under `snakemake -n`). Not again in a job
# that a cluster executor runs (`--mode remote`: each SLURM job step starts a Snakemake of its own): the
# Snakemake that submitted it read the same files.
if not workflow.remote_exec:
    with one_line_errors():
        check_inputs(SETTINGS, dataset_methods)


def translations(dataset):
    return [
        f"results/translations/{dataset}/{method}.jsonl"
        for method in dataset_methods(dataset)
    ]


def raw_translations():
    """Every raw output. Targets list them directly because Snakemake ignores a missing intermediate file
    whose downstream outputs exist: a raw output deleted by a killed `--forcerun translate` would otherwise
    leave the old translation and run card standing ("Nothing to be done")."""
    return [
        f"results/translations/raw/{dataset}/{method}.jsonl"
        for dataset in DATASETS
        for method in dataset_methods(dataset)
    ]


def skipped_files():
    return expand("results/skipped/{dataset}.json", dataset=DATASETS)


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


def system_metric_files(wildcards):
    """The metric files of a dataset's methods, the reference oracle left out (significance)."""
    return [p for p in dataset_metric_files(wildcards) if f"/{ORACLE}/" not in p]


def system_run_cards(wildcards):
    """The run cards of a dataset's methods, the reference oracle left out (significance)."""
    return [
        f"results/runs/{wildcards.dataset}/{method}.json"
        for method in dataset_methods(wildcards.dataset)
        if method != ORACLE
    ]


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
    """The human-judgment studies of rated datasets in this dataset's language pair: a run
    card's validation status comes from them."""
    pair = dataset_language_pair(config["datasets"][wildcards.dataset]["path"])
    return [
        f"results/evidence/{d}"
        for d in rated_datasets()
        if dataset_language_pair(config["datasets"][d]["path"]) == pair
    ]


def review_verdict(wildcards):
    """The dataset's community review (`lyss review import`), when it has one: it confirms or overturns
    the tiers of its run cards."""
    path = Path(
        config["datasets"][wildcards.dataset]["path"], "reviews", "verdict.json"
    )
    return [str(path)] if path.exists() else []


def significance_files():
    return expand("results/significance/{dataset}.json", dataset=DATASETS)


def evidence_outputs():
    """The metric–human agreement of every dataset with human scores (run cards read it)."""
    return expand("results/evidence/{dataset}", dataset=rated_datasets())


def validation_outputs():
    """The configured validation parts, and the agreement study of every dataset with human scores."""
    return expand("results/validation/{part}", part=VALIDATION_PARTS) + [
        "results/evidence/datasets.json",
        *evidence_outputs(),
    ]


def applied_composite(wildcards):
    """`composite` with the one weight profile the dataset's run cards use (lyss.aggregate.composite.select_profile):
    the param of the jobs that weigh its metrics (aggregate, significance, evidence), so that an edit to another
    profile's weights reruns none of this dataset's jobs."""
    settings = config["composite"]
    chosen = select_profile(dataset_target_card(wildcards.dataset), settings)
    # "auto" may pick a profile params.yaml lacks: the jobs get every profile and say so
    if chosen not in settings["profiles"]:
        return settings
    return with_one_profile(settings, chosen)

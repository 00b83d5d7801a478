# What the score rules read (rules/score.smk): which metrics get a job of their own (a GPU) and which share
# one, each grouped job's outputs, options, code and card files, and the worker Snakemake's start warms.
from collections import Counter

from lyss.gpu_jobs import gpu_metrics, target_cards
from lyss.languages import card_for
from lyss.metrics import declaration
from lyss.metrics.card_files import card_file_digests
from lyss.script_workers import warm_up_worker

SCORE_ALONE = gpu_metrics(
    METRICS,
    target_cards(config["datasets"], LANGUAGES_DIR),
    config["metric_options"],
)
SCORE_CPU = [m for m in METRICS if m not in SCORE_ALONE]


def warm_score_worker():
    """Snakemake's `onstart`: when score_cpu jobs are to run on this machine, a worker loads what the first of
    them would (lyss.metrics.warm_up) for the language pair with most of them, while the corpora are prepared and
    the first vectors computed (Snakemake's start and the embedder's loading leave a core idle). Not for a run
    that only submits jobs to a cluster, nor under --touch."""
    if not SCORE_CPU or not workflow.local_exec or workflow.touch:
        return
    jobs = Counter(
        job.wildcards.dataset
        for job in workflow.dag.needrun_jobs()
        if job.rule.name == "score_cpu"
    )
    pairs = Counter()
    for dataset, count in jobs.items():  # one card read per dataset, not per job
        pair = dataset_language_pair(config["datasets"][dataset]["path"])
        pairs[tuple(pair)] += count
    if pairs:
        job = SimpleNamespace(
            params=SimpleNamespace(
                metrics=SCORE_CPU,
                pair=pairs.most_common(1)[0][0],
                languages_dir=LANGUAGES_DIR,
                options=group_options(SCORE_CPU),
            )
        )
        warm_up_worker(script_path("warm_up.py"), job)


def metric_gpus(wildcards):
    """The GPUs the metric's class declares (`gpus`: COMET, a neural model, asks for one; every other metric
    is CPU-only). On a cluster without GPUs: `--set-resources score:gpu=0` (profiles/slurm/config.yaml).
    """
    return declaration(wildcards.metric, "gpus")


def group_outputs(metrics):
    return [
        update(f"results/metrics/{{dataset}}/{{method}}/{metric}.parquet")
        for metric in metrics
    ]


def group_options(metrics):
    return {m: config["metric_options"].get(m, {}) for m in metrics}


def group_code(metrics):
    """Per metric, the shared scoring code plus only its own plugin (as `score_code`): the job reruns when any
    changes, and recomputes the metrics whose code did."""

    def code_of(wildcards):
        cards = dataset_language_cards(wildcards.dataset)
        return {m: score_hash(script_path("score.py"), m, cards) for m in metrics}

    return code_of


@functools.cache
def dataset_target_card(dataset):
    return card_for(
        dataset_language_pair(config["datasets"][dataset]["path"])[1], LANGUAGES_DIR
    )


def group_card_files(metrics):
    """Per metric that reads one, the bytes of the analyzer or spelling dictionary the dataset's target card names
    (lyss.metrics.card_files): installing, upgrading or removing one reruns the job, whose stamps
    then recompute only the metrics that read it."""

    def files_of(wildcards):
        card = dataset_target_card(wildcards.dataset)
        return {
            m: card_file_digests(card, declaration(m, "card_files"))
            for m in metrics
            if declaration(m, "card_files")
        }

    return files_of

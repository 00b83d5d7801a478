# Rule score: each metric writes results/metrics/{dataset}/{method}/{metric}.parquet. A metric that declares
# a GPU (COMET) and has its model on disk gets a job of its own (lyss.gpu_jobs); the others of one dataset ×
# method share one job (rule score_cpu), so the job count grows with datasets × methods, not × metrics. A
# grouped job recomputes only the metrics whose stamp changed (lyss.metrics.score.score_metrics): its outputs
# are update() files, which Snakemake does not delete before the job.
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

"""Which metrics get jobs of their own that reserve a GPU. The workflow splits its score jobs by it
(rules/score.smk) and `lyss cluster check` checks the partitions against it, so the two agree."""

from pathlib import Path

from lyss.metrics import declaration, get_metric


def target_cards(datasets: dict, languages_dir, root=".") -> list:
    """The target-language card of each dataset (`datasets`: params.yaml's section, paths relative to `root`)
    that has a dataset card: a file of `languages_dir`, else the card derived from CLDR."""
    from lyss.languages import load_cards
    from lyss.prep import dataset_language_pair

    cards = load_cards(Path(root, languages_dir))
    return [cards.get(dataset_language_pair(Path(root, d["path"]))[1]) for d in datasets.values()
            if Path(root, d.get("path", ""), "dataset.yaml").is_file()]


def gpu_metrics(metrics: list[str], target_cards: list, metric_options: dict) -> list[str]:
    """The metrics of `metrics` that declare `gpus` and, for at least one dataset's target card, have their model
    on disk (the class's `model_on_disk`, files only; a class without one always counts). Without a model such
    a metric only writes why it is unavailable, the file a CPU job beside the other metrics writes in a moment;
    a GPU job (on SLURM a submission of its own per dataset × method) would be reserved for nothing. When a
    model appears, the metric moves to jobs of its own, whose changed params make Snakemake score it again."""
    chosen = []
    for metric in metrics:
        if not declaration(metric, "gpus"):
            continue
        on_disk = getattr(get_metric(metric), "model_on_disk", None)
        options = metric_options.get(metric) or {}
        if on_disk is None or any(on_disk(card, options) for card in target_cards):
            chosen.append(metric)
    return chosen

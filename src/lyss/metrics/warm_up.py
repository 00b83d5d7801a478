"""What a score job loads before it reads its first word, loaded ahead of it in a worker (lyss.script_workers).

A score job's worker starts cold: it imports the scoring code and, for its language pair, reads the language cards,
wordfreq's lists and lingua's models, 1–1.5 s of CPU before the first metric runs (docs/performance.md). Snakemake
gives a run's first seconds to one core (its start, the corpora, the first model loads), so a worker warmed up on
the other core in that time serves a score job that starts warm. Each metric declares what its first job loads
(`warm_up`, lyss.metrics.base); the rest is the import of this module, which imports the score stage.

Loading is all it does: no answer is computed or stored, so no result can differ (a warmed worker's files are the
same bytes, tests/test_warm_up.py). When the words of a run were read before, the store answers them
(lyss.metrics.lookups) and a job would not load the lists: then the warm-up has loaded them for nothing, on a core
that had nothing else to do.
"""

import lyss.metrics.score  # noqa: F401 — the score stage's modules, imported once for every job of the worker
from lyss.languages import card_for
from lyss.metrics import resolve_metric
from lyss.settings import MetricOptions


def warm_up(metric_ids, source_lang: str, target_lang: str, languages_dir, options: MetricOptions) -> list[str]:
    """Load what the first score job of `metric_ids` on the language pair would, in this process; returns the
    metrics that had something to load."""
    source_card, target_card = card_for(source_lang, languages_dir), card_for(target_lang, languages_dir)
    loaded = []
    for metric_id in metric_ids:
        load = getattr(resolve_metric(metric_id, target_card), "warm_up", None)
        if load is not None:
            load(source_lang, target_lang, source_card, target_card, options.of_metric(metric_id))
            loaded.append(metric_id)
    return loaded

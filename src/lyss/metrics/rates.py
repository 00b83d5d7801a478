"""Rates over words, terms or annotations: per-entry hits/total and the corpus Σ hits / Σ total.

A rate over words weights each entry by its number of words, so the corpus value is a ratio of sums,
not a mean of per-entry ratios; the per-entry rows `[hits, total]` let the bootstrap resample entries
and recompute exactly that ratio (`lyss.aggregate.confidence`).
"""

import numpy as np

from lyss.metrics.base import MetricResult

WORD_NOTE = ("words are runs of letters (joiners such as apostrophes/hyphens allowed inside); numbers, codes "
             "with digits, punctuation, {placeholders}, URLs and e-mail addresses are not words")


def rate_result(metric: str, hits, totals, **kwargs) -> MetricResult:
    """Per-entry hits/total (NaN where an entry has nothing to count) and the corpus Σ hits / Σ total."""
    hits, totals = np.asarray(hits, dtype=float), np.asarray(totals, dtype=float)
    values = np.full(len(totals), np.nan)
    np.divide(hits, totals, out=values, where=totals > 0)
    stats = np.column_stack([hits, totals])
    return MetricResult(metric, values, float(hits.sum() / totals.sum()), stats=stats, **kwargs)


def most_frequent(counter, limit: int) -> list[list]:
    """The `limit` most frequent items as [item, count] pairs, ties in alphabetical order (deterministic)."""
    return [[item, count] for item, count in sorted(counter.items(), key=lambda x: (-x[1], x[0]))[:limit]]

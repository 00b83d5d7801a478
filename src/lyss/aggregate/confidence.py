"""Spec §8.1: percentile-bootstrap confidence intervals for a run card, from the per-entry rows that
scoring wrote (never by re-scoring strings).

`corpus_statistic` turns a metric's result into resampling rows plus the corpus formula its class
declares (`corpus_rows`, `corpus_value`; lyss.metrics.base); the run-card CIs, the significance step and
`lyss score`/`lyss compare` all use it. Count-based metrics (chrF++, BLEU, TER) resample sacrebleu's
sufficient statistics and re-apply the corpus formula; other metrics resample their per-entry values (or,
for a rate over words, the two summed counts). The composite resamples entries and recomputes every
metric, then the composite, renormalising the weights within each resample over the metrics defined
there (§4.1), so no resample is dropped; the card counts, per statistic, the resamples where it was undefined.
"""

from dataclasses import dataclass

import numpy as np

from lyss.aggregate.composite import composite
from lyss.metrics import ci_metrics, declaration, tier_metrics
from lyss.metrics.base import MetricResult
from lyss.stats import CorpusStatistic, bootstrap_scores, joint, percentile_ci


def corpus_rows(result: MetricResult) -> np.ndarray | None:
    """The per-entry rows the metric's declared formula sums: its sufficient statistics, or
    [value (0 where undefined), defined] so that the ratio of the sums is the mean of the defined values."""
    if declaration(result.metric, "corpus_rows") == "stats":
        return None if result.stats is None else np.asarray(result.stats, dtype=np.float64)
    values = np.asarray(result.values, dtype=np.float64)
    defined = ~np.isnan(values)
    return np.column_stack([np.where(defined, values, 0.0), defined])


def corpus_statistic(result: MetricResult) -> CorpusStatistic | None:
    """Rows and declared formula whose full-sample score is `result.corpus_value`; None when the metric is
    unavailable or its formula over its rows does not reproduce its corpus value (then a bootstrap of
    those rows would be centred on a different number than the card reports, e.g. a language plugin that
    aggregates differently from the metric it replaces)."""
    if not result.available:
        return None
    rows = corpus_rows(result)
    if rows is None:
        return None
    statistic = CorpusStatistic(rows, declaration(result.metric, "corpus_value"))
    if np.isclose(statistic.score(), result.corpus_value, rtol=1e-9, atol=1e-9):
        return statistic
    return None


def composite_statistic(results: dict[str, MetricResult], weights: dict, normalisation: dict,
                        over: set[str] | None = None) -> CorpusStatistic | None:
    """The composite of the weighted metrics that are available (restricted to `over` when given, for
    comparisons on shared metrics), renormalised over exactly those; None when none is available or one
    of them cannot be recomputed from its rows."""
    included = [m for m in weights if m in results and results[m].available and (over is None or m in over)]
    parts = {m: corpus_statistic(results[m]) for m in included}
    if not parts or any(p is None for p in parts.values()):
        return None
    return joint(parts, lambda scores: composite(scores, weights, normalisation))


def _interval(samples, alpha: float) -> dict:
    """The percentile interval and how many resamples left the statistic undefined (outside the CI)."""
    lower, upper = percentile_ci(samples, alpha)
    return {"ci_lower": None if lower is None else round(lower, 6),
            "ci_upper": None if upper is None else round(upper, 6),
            "undefined_resamples": int(np.sum(~np.isfinite(samples)))}


def _few_entries(what: str, n: int, min_entries: int) -> str:
    return (f"{what} has {n} entries (< {min_entries}): its bootstrap confidence intervals are unreliable "
            "and usually too narrow")


@dataclass(frozen=True)
class Resampling:
    """How the bootstrap draws (params.yaml `stats`): resamples, the interval's alpha, the seed, and below how
    many entries an interval is warned about as unreliable."""

    n_resamples: int = 1000
    alpha: float = 0.05
    seed: int | None = None
    min_entries: int = 30

    @classmethod
    def of(cls, stats) -> "Resampling":
        """From the typed `stats` section (lyss.settings.Stats: seed, bootstrap_resamples, alpha,
        min_entries_warning)."""
        return cls(stats.bootstrap_resamples, stats.alpha, stats.seed, stats.min_entries_warning)


def confidence_intervals(results: dict[str, MetricResult], entries: list[dict], weights: dict,
                         normalisation: dict, resampling: Resampling, metrics: list[str] | None = None) -> dict:
    """The §9 `confidence_intervals` and `confidence_intervals_by_tier` blocks and the card warnings.

    All corpus intervals come from one set of resamples (so the composite CI uses the same resamples as
    its metrics); each difficulty tier is resampled within itself with the same seed. `metrics`: the
    metrics to give an interval (default the card's, `ci_metrics()`; `lyss score --ci` asks for every
    metric whose corpus value its rows reproduce, BLEU and TER too, as sacrebleu's --confidence does).
    """
    n_resamples, alpha, seed, min_entries = (resampling.n_resamples, resampling.alpha, resampling.seed,
                                              resampling.min_entries)
    warnings = []
    statistics = {}
    for metric in ci_metrics() if metrics is None else metrics:
        result = results.get(metric)
        if result is None or not result.available:
            continue
        statistic = corpus_statistic(result)
        if statistic is None:
            warnings.append(f"no confidence interval for {metric}: its corpus value cannot be recomputed "
                            "from its per-entry rows")
        else:
            statistics[metric] = statistic
    combined = composite_statistic(results, weights, normalisation)
    if combined is not None:
        statistics["composite"] = combined
    elif any(m in results and results[m].available for m in weights):
        warnings.append("no confidence interval for composite: a weighted metric cannot be recomputed "
                        "from its per-entry rows")

    intervals, undefined = {}, {}
    parts = {m: corpus_statistic(results[m]) for m in weights if m in results and results[m].available}
    parts = {m: p for m, p in parts.items() if p is not None and m not in statistics}
    if statistics and entries:
        samples = bootstrap_scores(list(statistics.values()) + list(parts.values()), n_resamples, seed)
        by_name = dict(zip(list(statistics) + list(parts), samples, strict=True))
        intervals = {m: _interval(by_name[m], alpha) for m in statistics}
        undefined = {m: int(np.sum(~np.isfinite(s))) for m, s in by_name.items()}
        if "composite" in intervals:
            weighted = [by_name[m] for m in weights if m in by_name and m != "composite"]
            renormalised = int(np.sum(np.any(~np.isfinite(np.vstack(weighted)), axis=0))) if weighted else 0
            intervals["composite"]["renormalised_resamples"] = renormalised
    if intervals and len(entries) < min_entries:
        warnings.append(_few_entries("the corpus", len(entries), min_entries))

    by_tier = {}
    tiers: dict[str, list[int]] = {}
    for i, entry in enumerate(entries):
        if entry.get("difficulty") is not None:
            tiers.setdefault(str(entry["difficulty"]), []).append(i)
    tier_stats = {key: statistics[m] for key, m in tier_metrics().items() if m in statistics}
    for tier in sorted(tiers):
        rows = np.asarray(tiers[tier])
        if tier_stats:
            samples = bootstrap_scores([s.subset(rows) for s in tier_stats.values()], n_resamples, seed)
            by_tier[tier] = {key: _interval(s, alpha) for key, s in zip(tier_stats, samples, strict=True)}
        if tier_stats and len(rows) < min_entries:
            warnings.append(_few_entries(f"difficulty tier {tier}", len(rows), min_entries))
    bootstrap = {"resamples": n_resamples if intervals else 0, "undefined_resamples": undefined}
    return {"confidence_intervals": intervals, "confidence_intervals_by_tier": by_tier, "warnings": warnings,
            "bootstrap": bootstrap}

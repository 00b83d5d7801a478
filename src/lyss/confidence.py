"""Spec §8.1: percentile-bootstrap confidence intervals for a run card, from the per-entry rows that
scoring wrote (never by re-scoring strings).

`corpus_statistic` is the one place that says how a metric's corpus value is recomputed from its
per-entry rows; the run-card CIs, the significance step and `lyss score`/`lyss compare` all use it.
Count-based metrics (chrF++, BLEU, TER) resample sacrebleu's sufficient statistics and re-apply the
corpus formula; other metrics resample their per-entry values (or, for a rate over words, the two
summed counts). The composite resamples entries and recomputes every metric, then the composite,
renormalising the weights within each resample over the metrics defined there (§4.1), so no resample is
dropped; the card counts, per statistic, the resamples where it was undefined.
"""

import numpy as np

from lyss.composite import composite
from lyss.metrics.base import MetricResult
from lyss.metrics.sufficient import bleu_from_stats, chrf_from_stats, ter_from_stats
from lyss.stats import CorpusStatistic, bootstrap_scores, joint, percentile_ci

# Metrics with a CI in `scores.confidence_intervals` (§8.1), besides the composite.
CI_METRICS = ("chrf_plus_plus", "exact_match_rate", "fst_acceptance_rate", "comet_score")
# Per difficulty tier: card key → metric (§9 names the chrF++ interval `corpus_chrf`).
TIER_METRICS = {"corpus_chrf": "chrf_plus_plus", "exact_match_rate": "exact_match_rate"}

# sacrebleu's corpus formulas with the settings `lyss.metrics.surface` scores them with (chrF++: β = 2,
# order from the column count; BLEU: exp smoothing, order from the column count).
_COUNT_FORMULAS = {
    "chrf_plus_plus": lambda sums: chrf_from_stats(sums, sums.shape[-1] // 3),
    "bleu": lambda sums: bleu_from_stats(sums, (sums.shape[-1] - 2) // 2),
    "ter": ter_from_stats,
}


def _ratio_of_sums(sums):
    """Σ column 0 / Σ column 1. With rows [value (0 where undefined), defined] this is the mean of the
    defined per-entry values; with rows [accepted words, words] it is a rate over words."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sums[..., 1] > 0, sums[..., 0] / sums[..., 1], np.nan)


def corpus_statistic(result: MetricResult) -> CorpusStatistic | None:
    """Rows and formula whose full-sample score is `result.corpus_value`; None when the metric is
    unavailable or no known aggregation of its rows reproduces its corpus value (then a bootstrap of
    those rows would be centred on a different number than the card reports)."""
    if not result.available:
        return None
    candidates = []
    if result.metric in _COUNT_FORMULAS:
        if result.stats is not None:
            candidates.append(CorpusStatistic(np.asarray(result.stats, dtype=np.float64),
                                              _COUNT_FORMULAS[result.metric]))
    else:
        values = np.asarray(result.values, dtype=np.float64)
        defined = ~np.isnan(values)
        candidates.append(CorpusStatistic(np.column_stack([np.where(defined, values, 0.0), defined]),
                                          _ratio_of_sums))
        if result.stats is not None and result.stats.shape[1] == 2:
            candidates.append(CorpusStatistic(np.asarray(result.stats, dtype=np.float64), _ratio_of_sums))
    for candidate in candidates:
        if np.isclose(candidate.score(), result.corpus_value, rtol=1e-9, atol=1e-9):
            return candidate
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


def confidence_intervals(results: dict[str, MetricResult], entries: list[dict], weights: dict,
                         normalisation: dict, *, n_resamples: int = 1000, alpha: float = 0.05,
                         seed: int | None, min_entries: int = 30) -> dict:
    """The §9 `confidence_intervals` and `confidence_intervals_by_tier` blocks and the card warnings.

    All corpus intervals come from one set of resamples (so the composite CI uses the same resamples as
    its metrics); each difficulty tier is resampled within itself with the same seed.
    """
    warnings = []
    statistics = {}
    for metric in CI_METRICS:
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
    tier_stats = {key: statistics[m] for key, m in TIER_METRICS.items() if m in statistics}
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

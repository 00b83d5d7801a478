"""Spec §4–§6: normalisation, the renormalised weighted composite, quality tiers, cost-adjusted score.

Weights and tier thresholds come from params.yaml (the spec's tables, copied there once); each metric's
normalisation is declared by its class (lyss.metrics), and params.yaml `composite.normalisation` may override
it. This module only applies them. Everything works on floats and on numpy arrays alike, so the
bootstrap can recompute the composite for all resamples at once.
"""

import math
from pathlib import Path

import numpy as np

from lyss.errors import InputError
from lyss.metrics import default_normalisation

# Contract defaults for the params.yaml keys (docs/oracle.md).
DEFAULT_MIN_ENTRIES = 30
DEFAULT_MIN_COVERAGE = 0.1
DEFAULT_MIN_WEIGHT_SHARE = 0.5
PARTIAL_TIER = "partial"

NORMALISERS = {
    "identity": lambda v: v,
    "divide_by_100": lambda v: v / 100.0,
    "invert": lambda v: 1.0 - v,
}


def normalise(metric_id: str, value, normalisation: dict):
    """Map a metric onto 0–1 with 1 = perfect (§4.2): by `normalisation` (params.yaml) when it names the
    metric, else by the normalisation the metric's class declares ("identity" when it declares none)."""
    return NORMALISERS[normalisation.get(metric_id) or default_normalisation(metric_id)](value)


def select_profile(target_card: dict | None, composite_settings: dict | None = None) -> str:
    """The weight profile: `composite.profile` when it names one (e.g. written by `lyss weights fit`),
    else ("auto", the default) A when the target language has an FST analyzer installed (§4.3) and B
    otherwise: a card that names an analyzer missing on this machine cannot contribute the structural
    metrics."""
    chosen = (composite_settings or {}).get("profile", "auto")
    if chosen != "auto":
        if chosen not in (composite_settings or {}).get("profiles", {}):
            raise InputError("params.yaml", f"profile {chosen!r} is not under composite.profiles",
                             field="composite.profile")
        return chosen
    analyzer = (target_card or {}).get("fst_analyzer") or {}
    return "A" if analyzer.get("path") and Path(analyzer["path"]).exists() else "B"


def with_one_profile(composite_settings: dict, profile: str) -> dict:
    """`composite_settings` with `profile` named and its weights the only profile: what the workflow's jobs that
    weigh a dataset's metrics take as a param (rules/common.smk) and what the run card's fingerprint hashes, so that
    another profile's weights rerun none of them."""
    return {**composite_settings, "profile": profile, "profiles": {profile: composite_settings["profiles"][profile]}}


def applied_weights(scores: dict, weights: dict) -> dict:
    """The renormalised weights over the metrics that are available (non-null) in `scores` (§4.1)."""
    available = {m: w for m, w in weights.items() if scores.get(m) is not None}
    total = sum(available.values())
    return {m: w / total for m, w in available.items()} if total > 0 else {}


def weight_share(scores: dict, weights: dict) -> float:
    """The share of the profile's total weight carried by the metrics available in `scores` (a
    composite of chrF++ alone is not the profile's composite)."""
    total = sum(weights.values())
    return sum(w for m, w in weights.items() if scores.get(m) is not None) / total if total > 0 else 0.0


def composite(scores: dict, weights: dict, normalisation: dict):
    """Σ wᵢ·norm(vᵢ) / Σ wᵢ over available metrics; None when no weighted metric is available.

    `scores` values may be floats or equal-length arrays (bootstrap resamples). In arrays the weights
    are renormalised per element over the metrics defined (finite) there, so a resample where one metric
    is undefined still has a composite, as a run card without that metric would (§4.1); an element is
    NaN only where no weighted metric is defined.
    """
    applied = applied_weights(scores, weights)
    if not applied:
        return None
    if all(np.ndim(scores[m]) == 0 for m in applied):
        return sum(w * normalise(m, scores[m], normalisation) for m, w in applied.items())
    numerator, denominator = 0.0, 0.0
    for metric, weight in applied.items():
        value = np.asarray(normalise(metric, np.asarray(scores[metric], dtype=np.float64), normalisation))
        defined = np.isfinite(value)
        numerator = numerator + weight * np.where(defined, value, 0.0)
        denominator = denominator + weight * defined
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1.0), np.nan)


def coverage(values: np.ndarray) -> tuple[int, float]:
    """(entries with a defined per-entry value, their share of the corpus)."""
    values = np.asarray(values, dtype=np.float64)
    contributing = int(np.sum(~np.isnan(values)))
    return contributing, (contributing / values.size if values.size else 0.0)


def coverage_reason(contributing: int, share: float, composite_settings: dict) -> str | None:
    """Why a metric has too little evidence to weigh in the composite; None when it has enough."""
    min_entries = composite_settings.get("min_entries", DEFAULT_MIN_ENTRIES)
    min_coverage = composite_settings.get("min_coverage", DEFAULT_MIN_COVERAGE)
    if contributing < min_entries:
        return (f"only {contributing} entries contribute a value (composite.min_entries is {min_entries}): "
                "too little evidence to weigh in the composite")
    if share < min_coverage:
        return (f"only {share:.1%} of entries contribute a value (composite.min_coverage is {min_coverage:.0%}): "
                "too little evidence to weigh in the composite")
    return None


def partial(share: float, composite_settings: dict) -> bool:
    """Below `composite.min_weight_share` the composite is partial: it gets no tier."""
    return share < composite_settings.get("min_weight_share", DEFAULT_MIN_WEIGHT_SHARE) - 1e-12


def quality_tier(value, tiers: list[dict]) -> str:
    """First tier (top to bottom) whose `min` the composite reaches (§5.1); 'unscored' for None."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "unscored"
    for tier in tiers:
        if value >= tier["min"]:
            return tier["name"]
    return tiers[-1]["name"]


def cost_adjusted(composite_value: float | None, cost_per_entry_usd: float | None) -> float | None:
    """composite / log2(1 + cost_per_entry_usd × 1000) (§6.3); None for free or unknown cost, where
    the formula divides by zero or has no input."""
    if composite_value is None or not cost_per_entry_usd:
        return None
    return composite_value / math.log2(1 + cost_per_entry_usd * 1000)


"""Spec §4–§6: normalisation, the renormalised weighted composite, quality tiers, cost-adjusted score.

Weights, normalisation and tier thresholds come from params.yaml (the spec's tables, copied there
once); this module only applies them. Everything works on floats and on numpy arrays alike, so the
bootstrap can recompute the composite for all resamples at once.
"""

import math
from pathlib import Path

NORMALISERS = {
    "identity": lambda v: v,
    "divide_by_100": lambda v: v / 100.0,
    "invert": lambda v: 1.0 - v,
}


def normalise(metric_id: str, value, normalisation: dict):
    """Map a metric onto 0–1 with 1 = perfect (§4.2); metrics not listed are already on that scale."""
    return NORMALISERS[normalisation.get(metric_id, "identity")](value)


def select_profile(target_card: dict | None) -> str:
    """Profile A when the target language has an FST analyzer installed (§4.3), else B: a card that
    names an analyzer missing on this machine cannot contribute the structural metrics."""
    analyzer = (target_card or {}).get("fst_analyzer") or {}
    return "A" if analyzer.get("path") and Path(analyzer["path"]).exists() else "B"


def applied_weights(scores: dict, weights: dict) -> dict:
    """The renormalised weights over the metrics that are available (non-null) in `scores` (§4.1)."""
    available = {m: w for m, w in weights.items() if scores.get(m) is not None}
    total = sum(available.values())
    return {m: w / total for m, w in available.items()} if total > 0 else {}


def composite(scores: dict, weights: dict, normalisation: dict):
    """Σ wᵢ·norm(vᵢ) / Σ wᵢ over available metrics; None when no weighted metric is available.

    `scores` values may be floats or equal-length arrays (bootstrap resamples).
    """
    applied = applied_weights(scores, weights)
    if not applied:
        return None
    return sum(w * normalise(m, scores[m], normalisation) for m, w in applied.items())


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


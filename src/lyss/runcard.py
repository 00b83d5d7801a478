"""Run cards (spec §9): the `scores` and `totals` blocks, provenance, and validation against the
JSON Schema kept in `lyss/schemas/run_card.schema.json`.

Every spec key is present in every card; a metric that was not computed is null and its reason is in
`null_reasons`, so a reader never has to guess whether a value is missing or zero.
"""

import json
import statistics
from importlib import resources

import jsonschema
import numpy as np

from lyss.caveats import gated_tier, score_caveats, skipped_caveats
from lyss.composite import applied_weights, composite, cost_adjusted, quality_tier
from lyss.metrics.base import MetricResult
from lyss.metrics.sufficient import chrf_from_stats

SCHEMA_VERSION = "1.0"

# §9 metric keys in spec order; each is the corpus value of the metric plugin with the same id.
METRIC_KEYS = [
    "exact_match_rate", "equivalent_match_rate", "chrf_plus_plus", "bleu", "ter", "length_ratio",
    "fst_acceptance_rate", "morphological_accuracy", "orthographic_accuracy", "semantic_score",
    "comet_score", "code_switching_rate", "hallucination_rate", "terminology_adherence", "consistency_score",
    "compliance_index", "repair_effectiveness",
]
# Companion counts/labels that a metric reports beside its value.
COMPANION_KEYS = {"exact_matches": "exact_match_rate", "equivalent_matches": "equivalent_match_rate",
                  "fst_accepted": "fst_acceptance_rate", "comet_model": "comet_score"}
SPEED_KEYS = ["tokens_per_second", "entries_per_minute", "avg_latency_seconds", "median_latency_seconds",
              "p95_latency_seconds"]
TOKEN_KEYS = ["prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens"]


def schema() -> dict:
    return json.loads(resources.files("lyss.schemas").joinpath("run_card.schema.json").read_text())


def validate_run_card(card: dict) -> None:
    """Raise jsonschema.ValidationError when a card does not follow the schema."""
    jsonschema.Draft202012Validator(schema()).validate(card)


def _round(value, digits=6):
    return None if value is None else round(float(value), digits)


def speed_scores(records: list[dict], elapsed_seconds: float, total_tokens: int) -> dict:
    """§7 speed metrics; latencies over entries that produced output."""
    latencies = [r["latency_s"] for r in records if r.get("error") is None]
    n = len(records)
    return {
        "tokens_per_second": _round(total_tokens / elapsed_seconds) if total_tokens and elapsed_seconds else None,
        "entries_per_minute": _round(n / (elapsed_seconds / 60)) if elapsed_seconds else None,
        "avg_latency_seconds": _round(statistics.fmean(latencies)) if latencies else None,
        "median_latency_seconds": _round(float(np.percentile(latencies, 50))) if latencies else None,
        "p95_latency_seconds": _round(float(np.percentile(latencies, 95))) if latencies else None,
    }


def totals_block(records: list[dict], entries: list[dict], elapsed_seconds: float) -> dict:
    """§6 token and cost metrics."""
    totals = {k: int(sum(r.get(k, 0) for r in records)) for k in TOKEN_KEYS}
    total_tokens = totals["prompt_tokens"] + totals["completion_tokens"]
    cost = float(sum(r.get("cost_usd") or 0.0 for r in records))
    source_chars = sum(len(e["source"]) for e in entries)
    n = len(entries)
    totals.update({
        "total_tokens": total_tokens,
        "tokens_per_entry": _round(total_tokens / n) if n else None,
        "total_cost_usd": _round(cost, 8),
        "cost_per_entry_usd": _round(cost / n, 8) if n else None,
        "cost_per_1k_tokens": _round(cost / total_tokens * 1000, 8) if total_tokens else None,
        "cost_per_source_char": _round(cost / source_chars, 10) if source_chars else None,
        "elapsed_seconds": _round(elapsed_seconds, 3),
    })
    return totals


def breakdown(entries: list[dict], results: dict[str, MetricResult], key: str) -> dict:
    """Exact match and chrF++ per group of entries (difficulty tier or provenance); chrF++ per group
    is the corpus formula over the group's summed statistics, not a mean of sentence scores."""
    groups: dict[str, list[int]] = {}
    for i, entry in enumerate(entries):
        if entry.get(key) is not None:
            groups.setdefault(str(entry[key]), []).append(i)
    out = {}
    for name in sorted(groups):
        rows = groups[name]
        block = {"n": len(rows)}
        exact = results.get("exact_match_rate")
        if exact is not None and exact.available:
            block["exact_match_rate"] = _round(np.nanmean(exact.values[rows]))
        chrf = results.get("chrf_plus_plus")
        if chrf is not None and chrf.available and chrf.stats is not None:
            order = chrf.stats.shape[1] // 3
            block["chrf_plus_plus"] = _round(chrf_from_stats(chrf.stats[rows].sum(axis=0), order), 4)
        out[name] = block
    return out


def build_scores(results: dict[str, MetricResult], records: list[dict], entries: list[dict],
                 weights: dict, normalisation: dict, tiers: list[dict], elapsed_seconds: float,
                 total_tokens: int, cost_per_entry: float | None) -> tuple[dict, dict]:
    """The §9 `scores` block and the reasons for every null metric."""
    scores, reasons = {}, {}
    for key in METRIC_KEYS:
        result = results.get(key)
        scores[key] = _round(result.corpus_value) if result is not None and result.available else None
        if scores[key] is None:
            reasons[key] = result.reason if result is not None else "not configured under `metrics` in params.yaml"
    for key, owner in COMPANION_KEYS.items():
        result = results.get(owner)
        default = "" if key == "comet_model" else None
        scores[key] = result.counts.get(key, default) if result is not None and result.available else default
    value = composite(scores, weights, normalisation)
    scores["composite"] = _round(value)
    scores["quality_tier"] = quality_tier(scores["composite"], tiers)
    scores["cost_adjusted"] = _round(cost_adjusted(scores["composite"], cost_per_entry))
    if scores["cost_adjusted"] is None:
        reasons["cost_adjusted"] = ("§6.3 needs a paid method: cost per entry is 0 or unknown"
                                    if scores["composite"] is not None else "composite is null")
    scores.update(speed_scores(records, elapsed_seconds, total_tokens))
    if scores["tokens_per_second"] is None:
        reasons["tokens_per_second"] = "the method reports no tokens (not an LLM) or no elapsed time"
    for key in SPEED_KEYS[1:]:
        if scores[key] is None:
            reasons[key] = "no entry was translated without error, or no elapsed time was recorded"
    scores["confidence_intervals"] = {}
    scores["confidence_intervals_by_tier"] = {}
    scores["by_difficulty"] = breakdown(entries, results, "difficulty")
    scores["by_provenance"] = breakdown(entries, results, "provenance")
    scores["total"] = len(entries)
    scores["evaluated"] = sum(r.get("error") is None and r.get("prediction") is not None for r in records)
    scores["errors"] = sum(r.get("error") is not None for r in records)
    return scores, reasons


def apply_caveats(scores: dict, entries: list[dict], predictions: list[str | None], caveat_settings: dict,
                  embeddings=None) -> tuple[list[dict], dict]:
    """Raise the anti-gaming caveats and gate `scores["quality_tier"]` in place (our extension to the
    spec); returns the caveats and the gate record for the card. `embeddings` (the cached vectors of rule
    `embed`, or `lyss score`'s in-memory table) enables misaligned_output without running a model again."""
    caveats = score_caveats(entries, predictions, caveat_settings, embeddings)
    ungated = scores["quality_tier"]
    scores["quality_tier"] = gated_tier(ungated, caveats, caveat_settings)
    return caveats, {"enabled": bool(caveat_settings["gate_tier"]), "ungated_tier": ungated,
                     "applied": scores["quality_tier"] != ungated}


def build_run_card(*, dataset: dict, method: dict, results: dict[str, MetricResult], records: list[dict],
                   entries: list[dict], translation_meta: dict, composite_settings: dict, tiers: list[dict],
                   caveat_settings: dict, profile: str, fingerprint: dict, embeddings=None) -> dict:
    weights = composite_settings["profiles"][profile]
    normalisation = composite_settings.get("normalisation", {})
    elapsed = float(translation_meta.get("elapsed_seconds") or 0.0)
    totals = totals_block(records, entries, elapsed)
    scores, reasons = build_scores(results, records, entries, weights, normalisation, tiers, elapsed,
                                   totals["total_tokens"], totals["cost_per_entry_usd"])
    prediction_of = {r["id"]: r.get("prediction") for r in records}
    caveats, tier_gate = apply_caveats(scores, entries, [prediction_of.get(e["id"]) for e in entries],
                                       caveat_settings, embeddings)
    return {
        "schema_version": SCHEMA_VERSION,
        "dataset": dataset,
        "method": method,
        "model_slug": method.get("model") or method["name"],
        "condition": method.get("condition", "default"),
        "fingerprint": fingerprint,
        "elapsed_seconds": totals["elapsed_seconds"],
        "composite_profile": {"profile": profile, "weights": weights,
                              "applied_weights": {k: _round(v) for k, v in applied_weights(scores, weights).items()}},
        "signatures": {k: r.signature for k, r in sorted(results.items()) if r.signature},
        "metric_details": {k: r.details for k, r in sorted(results.items()) if r.details},
        "null_reasons": reasons,
        "score_caveats": caveats,
        "tier_gate": tier_gate,
        "warnings": [f"caveat {k} skipped: {v}" for k, v in skipped_caveats(caveat_settings, embeddings).items()],
        "scores": scores,
        "totals": totals,
    }

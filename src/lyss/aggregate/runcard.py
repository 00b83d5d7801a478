"""Run cards (spec §9): the `scores` and `totals` blocks and validation against the JSON Schema kept in
`lyss/schemas/run_card.schema.json`; lyss.aggregate.card puts them together into the card.

Every spec key is present in every card; a metric that was not computed is null and its reason is in
`null_reasons`, so a reader never has to guess whether a value is missing or zero.
"""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

import jsonschema
import numpy as np

from lyss.aggregate.caveats import gated_tier, score_caveats
from lyss.aggregate.composite import (
    PARTIAL_TIER,
    composite,
    cost_adjusted,
    coverage,
    coverage_reason,
    partial,
    quality_tier,
    weight_share,
)
from lyss.aggregate.confidence import corpus_statistic
from lyss.metrics import card_metric_keys, companion_keys, score_schemas, tier_metrics
from lyss.metrics.base import MetricResult

SCHEMA_VERSION = "1.0"

SPEED_KEYS = ["tokens_per_second", "entries_per_minute", "avg_latency_seconds", "median_latency_seconds",
              "p95_latency_seconds"]
TOKEN_KEYS = ["prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens"]
COST_KEYS = ["total_cost_usd", "cost_per_entry_usd", "cost_per_1k_tokens", "cost_per_source_char"]
# Method kinds that do no translation work in the run, so there is nothing to time (a rate from
# reading a file is not a speed).
UNTIMED_KINDS = {
    "copy_source": "copy_source does no translation work: there is nothing to time",
    "precomputed": "precomputed outputs were made elsewhere and only read here: their speed was not measured",
    "reference": "the reference oracle does no translation work: there is nothing to time",
}
# Below this wall time a rate is noise (timer resolution, process start), not a measurement.
MIN_TIMED_SECONDS = 0.1


def schema() -> dict:
    """The run-card schema: the JSON file for everything but the metrics, whose `scores` keys (values and
    companions, required, with their bounds) are filled in from the metric registry, in card order."""
    document = json.loads(resources.files("lyss.schemas").joinpath("run_card.schema.json").read_text())
    scores = document["properties"]["scores"]
    metric_keys = score_schemas()
    scores["properties"] = {**metric_keys, **scores["properties"]}
    scores["required"] = [*metric_keys, *scores["required"]]
    return document


def validate_run_card(card: dict) -> None:
    """Raise jsonschema.ValidationError when a card does not follow the schema."""
    jsonschema.Draft202012Validator(schema()).validate(card)


def rounded(value, digits=6):
    """A card's float at 6 decimals (None stays None)."""
    return None if value is None else round(float(value), digits)


def speed_scores(records: list[dict], elapsed_seconds: float | None, total_tokens: int,
                 untimed: str | None = None) -> tuple[dict, dict]:
    """§7 speed metrics and the reasons for those that are null. Rates need a measured wall time of at
    least MIN_TIMED_SECONDS; the average latency is Σ latency_s / n_entries over all entries (§7); a
    method that gives every entry the same share of one batch's time has no per-entry distribution, so
    its median and p95 are null."""
    scores = dict.fromkeys(SPEED_KEYS)
    reasons = {}
    if untimed is None and elapsed_seconds < MIN_TIMED_SECONDS:
        untimed = (f"the run took {elapsed_seconds:.3g} s of wall time, too little to measure a rate"
                   if records else "no translation records (nothing was timed)")
    if untimed is not None:
        return scores, dict.fromkeys(SPEED_KEYS, untimed)
    n = len(records)
    if total_tokens:
        scores["tokens_per_second"] = rounded(total_tokens / elapsed_seconds)
    else:
        reasons["tokens_per_second"] = "the method reports no tokens (not an LLM)"
    scores["entries_per_minute"] = rounded(n / (elapsed_seconds / 60))
    latencies = np.array([float(r.get("latency_s") or 0.0) for r in records])
    scores["avg_latency_seconds"] = rounded(latencies.sum() / n)
    if n > 1 and np.ptp(latencies) == 0:
        reason = (f"the method translates in batches and gives every entry the same share of the batch's time "
                  f"({latencies[0]:.3g} s): per-entry latency was not measured")
        reasons.update({"median_latency_seconds": reason, "p95_latency_seconds": reason})
    else:
        scores["median_latency_seconds"] = rounded(float(np.percentile(latencies, 50)))
        scores["p95_latency_seconds"] = rounded(float(np.percentile(latencies, 95)))
    return scores, reasons


def totals_block(records: list[dict], entries: list[dict], elapsed_seconds: float | None, priced: bool = True) -> dict:
    """§6 token and cost metrics; the cost keys are null for a method without a price (`prices` in
    params.yaml), whose $0 would be a number nobody measured."""
    totals = {k: int(sum(r.get(k, 0) for r in records)) for k in TOKEN_KEYS}
    total_tokens = totals["prompt_tokens"] + totals["completion_tokens"]
    cost = float(sum(r.get("cost_usd") or 0.0 for r in records))
    source_chars = sum(len(e["source"]) for e in entries)
    n = len(entries)
    totals.update({
        "total_tokens": total_tokens,
        "tokens_per_entry": rounded(total_tokens / n) if n else None,
        "total_cost_usd": rounded(cost, 8),
        "cost_per_entry_usd": rounded(cost / n, 8) if n else None,
        "cost_per_1k_tokens": rounded(cost / total_tokens * 1000, 8) if total_tokens else None,
        "cost_per_source_char": rounded(cost / source_chars, 10) if source_chars else None,
        "elapsed_seconds": rounded(elapsed_seconds, 3),
    })
    if not priced:
        totals.update(dict.fromkeys(COST_KEYS))
    return totals


def breakdown(entries: list[dict], results: dict[str, MetricResult], key: str) -> dict:
    """The metrics broken down by tier (lyss.metrics.tier_metrics) per group of entries (difficulty tier or
    provenance), each by its corpus formula over the group's rows (chrF++ from the group's summed
    statistics, not a mean of sentence scores)."""

    groups: dict[str, list[int]] = {}
    for i, entry in enumerate(entries):
        if entry.get(key) is not None:
            groups.setdefault(str(entry[key]), []).append(i)
    out = {}
    for name in sorted(groups):
        rows = groups[name]
        block = {"n": len(rows)}
        for metric in tier_metrics().values():
            statistic = corpus_statistic(results[metric]) if metric in results else None
            if statistic is not None:
                block[metric] = rounded(statistic.subset(np.asarray(rows)).score())
        out[name] = block
    return out


def metric_coverage(results: dict[str, MetricResult]) -> dict:
    """Per metric, how many entries contributed a value and their share of the corpus."""
    record = {}
    for metric, result in sorted(results.items()):
        contributing, share = coverage(result.values)
        record[metric] = {"entries": contributing, "share": rounded(share)}
    return record


def refused_metrics(results: dict[str, MetricResult], weights: dict, composite_settings: dict,
                    excluded: dict[str, str]) -> dict[str, str]:
    """Metric → why its value may not be shown: metrics in `excluded` (failing their reference check),
    and weighted metrics with too few contributing entries (composite.min_entries / min_coverage)."""
    reasons = {}
    for metric, result in results.items():
        if not result.available:
            continue
        if metric in excluded:
            reasons[metric] = excluded[metric]
        elif weights.get(metric):
            reason = coverage_reason(*coverage(result.values), composite_settings)
            if reason:
                reasons[metric] = reason
    return reasons


def withheld_values(results: dict[str, MetricResult], scores: dict) -> dict[str, float]:
    """Metric → the value it measured but the card does not show (its reason is in `null_reasons`): a user
    scoring a 20-line file still sees what chrF++ said, plainly apart from the numbers that count."""
    return {key: rounded(result.corpus_value) for key, result in sorted(results.items())
            if result.available and result.corpus_value is not None and scores.get(key) is None}


@dataclass(frozen=True)
class Work:
    """What producing the outputs cost: the translation records, the wall time (or `untimed`, why it was not
    measured), the tokens and the cost per entry. The default is no records and no time."""

    records: Sequence[dict] = ()
    elapsed_seconds: float | None = 0.0
    total_tokens: int = 0
    cost_per_entry: float | None = None
    untimed: str | None = None


def build_scores(results: dict[str, MetricResult], entries: list[dict], weights: dict, tiers: list[dict],
                 composite_settings: dict, *, excluded: dict[str, str] | None = None,
                 work: Work = Work()) -> tuple[dict, dict]:
    """The §9 `scores` block and the reasons for every null value. `excluded` maps metrics to the
    reason they may not be shown (failed reference check); weighted metrics below the coverage bar
    (composite.min_entries / min_coverage) are null too; a composite over less than
    composite.min_weight_share of the profile's weight is "partial" and gets no tier."""
    normalisation = composite_settings.get("normalisation", {})
    records = list(work.records)
    refused = refused_metrics(results, weights, composite_settings, excluded or {})
    scores, reasons = {}, {}
    for key in card_metric_keys():
        result = results.get(key)
        scores[key] = rounded(result.corpus_value) if result is not None and result.available else None
        if key in refused:
            scores[key] = None
            reasons[key] = refused[key]
        elif scores[key] is None:
            reasons[key] = result.reason if result is not None else "not configured under `metrics` in params.yaml"
    for key, (owner, default, _) in companion_keys().items():
        shown = scores.get(owner) is not None
        scores[key] = results[owner].counts.get(key, default) if shown else default
    value = composite(scores, weights, normalisation)
    scores["composite"] = rounded(value)
    scores["quality_tier"] = quality_tier(scores["composite"], tiers)
    if scores["composite"] is not None and partial(weight_share(scores, weights), composite_settings):
        scores["quality_tier"] = PARTIAL_TIER
    scores["cost_adjusted"] = rounded(cost_adjusted(scores["composite"], work.cost_per_entry))
    if scores["cost_adjusted"] is None:
        reasons["cost_adjusted"] = ("§6.3 needs a paid method: cost per entry is 0 or unknown"
                                    if scores["composite"] is not None else "composite is null")
    speed, speed_reasons = speed_scores(records, work.elapsed_seconds, work.total_tokens, work.untimed)
    scores.update(speed)
    reasons.update(speed_reasons)
    scores["confidence_intervals"] = {}
    scores["confidence_intervals_by_tier"] = {}
    scores["by_difficulty"] = breakdown(entries, results, "difficulty")
    scores["by_provenance"] = breakdown(entries, results, "provenance")
    scores["total"] = len(entries)
    scores["evaluated"] = sum(r.get("error") is None and r.get("prediction") is not None for r in records)
    scores["errors"] = sum(r.get("error") is not None for r in records)
    return scores, reasons


def apply_caveats(scores: dict, entries: list[dict], predictions: list[str | None], caveat_settings: dict,
                  embeddings=None, reference_flags: dict | None = None) -> tuple[list[dict], dict]:
    """Raise the anti-gaming caveats and gate `scores["quality_tier"]` in place (our extension to the
    spec); returns the caveats and the gate record for the card. `embeddings` (the cached vectors of rule
    `embed`, or `lyss score`'s in-memory table) enables misaligned_output without running a model again;
    `reference_flags` exempts entries where the reference itself shows a pattern. The gate holds a
    partial composite at baseline too: a degenerate output is a stronger verdict than a thin composite."""
    caveats = score_caveats(entries, predictions, caveat_settings, embeddings, reference_flags)
    ungated = scores["quality_tier"]
    scores["quality_tier"] = gated_tier(ungated, caveats, caveat_settings)
    return caveats, {"enabled": bool(caveat_settings["gate_tier"]), "ungated_tier": ungated,
                     "applied": scores["quality_tier"] != ungated}

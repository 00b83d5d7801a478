"""Run cards written by hand for the report, store, plot and leaderboard tests. Every number comes from the
arguments here, so the tests' expected values are these literals, not anything the pipeline computed."""

import copy
import json

SCORE_KEYS = [
    "exact_match_rate", "equivalent_match_rate", "chrf_plus_plus", "bleu", "ter", "length_ratio",
    "fst_acceptance_rate", "morphological_accuracy", "orthographic_accuracy", "semantic_score", "comet_score",
    "code_switching_rate", "hallucination_rate", "terminology_adherence", "consistency_score", "compliance_index",
    "repair_effectiveness", "exact_matches", "equivalent_matches", "fst_accepted", "composite", "cost_adjusted",
    "tokens_per_second", "entries_per_minute", "avg_latency_seconds", "median_latency_seconds",
    "p95_latency_seconds",
]


def make_card(dataset="demo", method="alpha", *, fingerprint="a", composite=0.5, composite_ci=(0.45, 0.55),
              chrf=50.0, chrf_ci=(48.0, 52.0), tier="functional", cost_per_entry=0.0, cost_adjusted=None,
              entries_per_minute=100.0, avg_latency=0.5, applied=("chrf_plus_plus", "exact_match_rate"),
              caveats=(), by_difficulty=None, profile="B", language_pair="eng-spa", **scores) -> dict:
    """A schema-valid run card; `fingerprint` is one character repeated to 64 hex digits, or 64 given."""
    digest = fingerprint * 64 if len(fingerprint) == 1 else fingerprint
    values = dict.fromkeys(SCORE_KEYS)
    values.update({"chrf_plus_plus": chrf, "composite": composite, "cost_adjusted": cost_adjusted,
                   "entries_per_minute": entries_per_minute, "avg_latency_seconds": avg_latency,
                   "exact_match_rate": 0.25, "bleu": 20.0})
    values.update(scores)
    intervals = {}
    if composite_ci:
        intervals["composite"] = {"ci_lower": composite_ci[0], "ci_upper": composite_ci[1]}
    if chrf_ci:
        intervals["chrf_plus_plus"] = {"ci_lower": chrf_ci[0], "ci_upper": chrf_ci[1]}
    by_difficulty = by_difficulty or {}
    values.update({
        "comet_model": "",
        "quality_tier": tier,
        "confidence_intervals": intervals,
        "confidence_intervals_by_tier": {
            t: {"corpus_chrf": {"ci_lower": v[1], "ci_upper": v[2]}} for t, v in by_difficulty.items()},
        "by_difficulty": {t: {"n": 10, "chrf_plus_plus": v[0]} for t, v in by_difficulty.items()},
        "by_provenance": {},
        "total": 10, "evaluated": 10, "errors": 0,
    })
    weights = {"chrf_plus_plus": 0.25, "exact_match_rate": 0.10, "semantic_score": 0.25}
    return {
        "schema_version": "1.0",
        "dataset": {"id": dataset, "language_pair": language_pair, "fingerprint": "c" * 64},
        "method": {"name": method, "kind": "copy_source"},
        "model_slug": method,
        "condition": "default",
        "fingerprint": {"hash": digest, "corpus": "c" * 64, "params": "d" * 64, "code_version": "0.1.0+test"},
        "elapsed_seconds": 6.0,
        "composite_profile": {"profile": profile, "weights": weights,
                              "applied_weights": {m: round(1 / len(applied), 6) for m in applied}},
        "signatures": {},
        "metric_details": {},
        "null_reasons": {"semantic_score": "not configured"},
        "score_caveats": [dict(c) for c in caveats],
        "warnings": [],
        "scores": values,
        "totals": {"prompt_tokens": 0, "completion_tokens": 0, "reasoning_tokens": 0, "cached_tokens": 0,
                   "total_tokens": 0, "tokens_per_entry": 0.0,
                   "total_cost_usd": None if cost_per_entry is None else cost_per_entry * 10,
                   "cost_per_entry_usd": cost_per_entry, "cost_per_1k_tokens": None,
                   "cost_per_source_char": None, "elapsed_seconds": 6.0},
    }


def changed(card: dict, fingerprint: str, **scores) -> dict:
    """A copy with a new fingerprint and some scores changed (a re-run under new settings)."""
    out = copy.deepcopy(card)
    out["fingerprint"]["hash"] = fingerprint * 64 if len(fingerprint) == 1 else fingerprint
    out["scores"].update(scores)
    return out


def write_cards(folder, cards) -> list:
    """Write cards as results/runs/<dataset>/<method>.json under `folder`; returns the paths."""
    paths = []
    for card in cards:
        path = folder / card["dataset"]["id"] / f"{card['method']['name']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(card), encoding="utf-8")
        paths.append(path)
    return paths

"""Run cards: every §9 key present, nulls explained, schema enforced, totals hand-checked."""

import copy

import jsonschema
import numpy as np
import pytest
import yaml
from sacrebleu.metrics import CHRF

from lyss.aggregate.card import CardInput, Dataset, Method, Translation, build_card
from lyss.aggregate.runcard import validate_run_card
from lyss.config import vocabulary
from lyss.metrics import ScoringInput, get_metric
from lyss.settings import Settings

PARAMS = yaml.safe_load(open("params.yaml"))
# A four-entry toy corpus: the coverage and partial-composite bars are off here; tests below set them.
TOY_COMPOSITE = {**PARAMS["composite"], "min_entries": 1, "min_coverage": 0.0, "min_weight_share": 0.0}
SPEC_SCORE_KEYS = ["exact_match_rate", "exact_matches", "equivalent_match_rate", "equivalent_matches",
                   "chrf_plus_plus", "bleu", "ter", "length_ratio", "fst_acceptance_rate", "fst_accepted",
                   "morphological_accuracy", "orthographic_accuracy", "semantic_score", "comet_score", "comet_model",
                   "code_switching_rate", "hallucination_rate", "terminology_adherence", "consistency_score",
                   "composite", "quality_tier", "cost_adjusted", "tokens_per_second", "entries_per_minute",
                   "avg_latency_seconds", "median_latency_seconds", "p95_latency_seconds", "confidence_intervals",
                   "confidence_intervals_by_tier", "by_difficulty", "by_provenance", "total", "evaluated", "errors"]
SPEC_TOTAL_KEYS = ["prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens", "total_cost_usd",
                   "cost_per_entry_usd", "cost_per_source_char"]

ENTRIES = [
    {"id": "1", "source": "Hello.", "reference": "Hola.", "difficulty": 1, "provenance": "a"},
    {"id": "2", "source": "Good night.", "reference": "Buenas noches.", "difficulty": 1, "provenance": "a"},
    {"id": "3", "source": "I have a cat.", "reference": "Tengo un gato.", "difficulty": 2, "provenance": "b"},
    {"id": "4", "source": "Where?", "reference": "¿Dónde?", "difficulty": 2, "provenance": "b"},
]
RECORDS = [
    {"id": "1", "prediction": "Hola.", "latency_s": 1.0, "prompt_tokens": 10, "completion_tokens": 5,
     "reasoning_tokens": 0, "cached_tokens": 2, "cost_usd": 0.001, "error": None},
    {"id": "2", "prediction": "Buenas noches.", "latency_s": 2.0, "prompt_tokens": 12, "completion_tokens": 6,
     "reasoning_tokens": 1, "cached_tokens": 0, "cost_usd": 0.002, "error": None},
    {"id": "3", "prediction": "Tengo gato.", "latency_s": 3.0, "prompt_tokens": 14, "completion_tokens": 7,
     "reasoning_tokens": 0, "cached_tokens": 0, "cost_usd": 0.003, "error": None},
    {"id": "4", "prediction": None, "latency_s": 4.0, "prompt_tokens": 0, "completion_tokens": 0,
     "reasoning_tokens": 0, "cached_tokens": 0, "cost_usd": 0.0, "error": "HTTP 500"},
]


METRICS = ("exact_match_rate", "chrf_plus_plus", "bleu")


def score(entries, predictions):
    data = ScoringInput(entries, predictions, predictions, "eng", "spa")
    return {m: get_metric(m).score(data) for m in METRICS}


def make_card(composite_settings=TOY_COMPOSITE, records=RECORDS, kind="openai_compatible", priced=True,
              entries=ENTRIES, oracle_outputs=None, evidence=(), review=None):
    """The card of `records` by the one builder (lyss.aggregate.card); the reference oracle scores the
    references themselves, but a metric of `oracle_outputs` scores those outputs as the reference's."""
    results = score(entries, [r["prediction"] for r in records])
    oracle = score(entries, [e["reference"] for e in entries])
    for metric, outputs in (oracle_outputs or {}).items():
        oracle[metric] = score(entries, outputs)[metric]
    prices = {"tiny-model": {"input_per_1m": 1.0, "output_per_1m": 2.0}} if priced else {}
    settings = Settings.from_mapping({**PARAMS, "composite": composite_settings, "prices": prices}, vocabulary())
    return build_card(CardInput(
        dataset=Dataset("toy", "eng", "spa", "f"), method=Method("llm", {"kind": kind, "model": "tiny-model"}),
        results=results, reference_results=oracle, entries=entries, translation=Translation(records, 8.0),
        settings=settings, cards={"eng": None, "spa": None}, evidence=evidence, review=review, intervals="none",
    )), results


def test_card_has_every_spec_key_and_validates():
    card, _ = make_card()
    validate_run_card(card)
    assert [k for k in SPEC_SCORE_KEYS if k not in card["scores"]] == []
    assert [k for k in SPEC_TOTAL_KEYS if k not in card["totals"]] == []
    assert card["model_slug"] == "tiny-model"


def test_nulls_carry_reasons():
    card, _ = make_card()
    assert card["scores"]["fst_acceptance_rate"] is None
    assert "not configured" in card["null_reasons"]["fst_acceptance_rate"]
    assert card["scores"]["comet_model"] == ""


def test_composite_uses_applied_weights_over_available_metrics():
    card, results = make_card()
    # Profile B, available: chrF++ (0.25) and exact match (0.10) → weights 0.25/0.35 and 0.10/0.35.
    applied = card["composite_profile"]["applied_weights"]
    assert applied == {"chrf_plus_plus": pytest.approx(0.25 / 0.35, abs=1e-6),
                       "exact_match_rate": pytest.approx(0.10 / 0.35, abs=1e-6)}
    expected = (0.25 * results["chrf_plus_plus"].corpus_value / 100 + 0.10 * 0.5) / 0.35
    assert card["scores"]["composite"] == pytest.approx(expected, abs=1e-6)


def test_totals_cost_and_speed_hand_computed():
    card, _ = make_card()
    totals, scores = card["totals"], card["scores"]
    assert (totals["prompt_tokens"], totals["completion_tokens"], totals["total_tokens"]) == (36, 18, 54)
    assert totals["total_cost_usd"] == pytest.approx(0.006)
    assert totals["cost_per_entry_usd"] == pytest.approx(0.0015)
    assert totals["cost_per_1k_tokens"] == pytest.approx(0.006 / 54 * 1000)
    # 6 + 11 + 13 + 6 source characters
    assert totals["cost_per_source_char"] == pytest.approx(0.006 / 36)
    assert scores["tokens_per_second"] == pytest.approx(54 / 8)
    assert scores["entries_per_minute"] == pytest.approx(4 / (8 / 60))
    # §7: Σ latency_s / n_entries over all four entries (the failed request took time too)
    assert scores["avg_latency_seconds"] == pytest.approx((1 + 2 + 3 + 4) / 4)
    assert scores["median_latency_seconds"] == pytest.approx(2.5)
    assert scores["p95_latency_seconds"] == pytest.approx(3.85)  # numpy linear interpolation: 3 + 0.85·(4−3)
    assert (scores["total"], scores["evaluated"], scores["errors"]) == (4, 3, 1)
    assert scores["cost_adjusted"] == pytest.approx(scores["composite"] / np.log2(1 + 1.5))


def test_breakdowns_by_difficulty_and_provenance():
    card, _ = make_card()
    assert card["scores"]["by_difficulty"]["1"] == {"n": 2, "exact_match_rate": 1.0, "chrf_plus_plus": 100.0}
    assert card["scores"]["by_provenance"]["b"]["exact_match_rate"] == 0.0


@pytest.mark.parametrize("mutate", [
    lambda c: c["scores"].pop("chrf_plus_plus"),
    lambda c: c["scores"].__setitem__("quality_tier", "excellent"),
    lambda c: c["scores"].__setitem__("exact_match_rate", 1.5),
    lambda c: c["totals"].pop("total_cost_usd"),
    lambda c: c.pop("fingerprint"),
])
def test_schema_rejects_broken_cards(mutate):
    card, _ = make_card()
    broken = copy.deepcopy(card)
    mutate(broken)
    with pytest.raises(jsonschema.ValidationError):
        validate_run_card(broken)


def test_failed_reference_check_nulls_the_metric_and_renormalises():
    # the reference, scored as a system, matches itself on only half the entries: exact match is not valid here
    half = [e["reference"] if i < 2 else "x" for i, e in enumerate(ENTRIES)]
    card, results = make_card(oracle_outputs={"exact_match_rate": half})
    assert card["reference_check"]["exact_match_rate"]["passed"] is False
    assert card["scores"]["exact_match_rate"] is None and card["scores"]["exact_matches"] is None
    assert card["null_reasons"]["exact_match_rate"] == "fails its reference check (reference scores 0.5)"
    # Profile B with chrF++ alone: the composite is chrF++/100
    assert card["scores"]["composite"] == pytest.approx(results["chrf_plus_plus"].corpus_value / 100, abs=1e-6)
    assert card["composite_profile"]["applied_weights"] == {"chrf_plus_plus": 1.0}


def test_coverage_bar_nulls_weighted_metrics_and_every_card_records_coverage():
    card, _ = make_card(composite_settings={**TOY_COMPOSITE, "min_entries": 4})
    # exact match is defined on all 4 entries (a missing output counts as a miss); chrF++ likewise
    assert card["metric_coverage"]["exact_match_rate"] == {"entries": 4, "share": 1.0}
    assert card["scores"]["exact_match_rate"] is not None
    card, _ = make_card(composite_settings={**TOY_COMPOSITE, "min_entries": 5})
    assert card["scores"]["chrf_plus_plus"] is None and card["scores"]["composite"] is None
    assert card["null_reasons"]["chrf_plus_plus"].startswith("only 4 entries contribute a value "
                                                             "(composite.min_entries is 5)")
    assert card["scores"]["bleu"] is not None  # not weighted: shown, weighs nothing
    # what chrF++ measured stays in the card, apart from the values that count (sacrebleu's own number)
    outputs = [r["prediction"] or "" for r in RECORDS]
    chrf = CHRF(word_order=2).corpus_score(outputs, [[e["reference"] for e in ENTRIES]])
    assert card["withheld"]["chrf_plus_plus"] == pytest.approx(chrf.score, abs=1e-6)
    assert "bleu" not in card["withheld"]


def test_partial_composite_gets_no_tier():
    # chrF++ (0.25) + exact match (0.10) = 35% of profile B's weight; every entry has an output (no caveat)
    complete = RECORDS[:3] + [dict(RECORDS[3], prediction="¿Dónde?", error=None)]
    card, _ = make_card(records=complete, composite_settings={**TOY_COMPOSITE, "min_weight_share": 0.5})
    assert card["composite_profile"]["weight_share"] == pytest.approx(0.35)
    assert card["scores"]["quality_tier"] == "partial" and card["scores"]["composite"] is not None
    validate_run_card(card)


def test_methods_that_do_no_work_have_no_speed_and_unpriced_methods_no_cost():
    records = [dict(r, latency_s=0.0, prompt_tokens=0, completion_tokens=0, cost_usd=0.0) for r in RECORDS]
    card, _ = make_card(records=records, kind="copy_source", priced=False)
    assert all(card["scores"][k] is None for k in ("entries_per_minute", "avg_latency_seconds", "tokens_per_second"))
    assert card["null_reasons"]["entries_per_minute"] == (
        "copy_source does no translation work: there is nothing to time")
    assert card["totals"]["cost_per_entry_usd"] is None and card["totals"]["total_cost_usd"] is None
    assert "no price" in card["null_reasons"]["cost_per_entry_usd"]


def test_uniform_batch_latency_has_no_median_or_p95():
    records = [dict(r, latency_s=0.25) for r in RECORDS]
    card, _ = make_card(records=records, kind="apertium")
    assert card["scores"]["avg_latency_seconds"] == pytest.approx(0.25)
    assert card["scores"]["median_latency_seconds"] is None and card["scores"]["p95_latency_seconds"] is None
    assert "same share of the batch's time" in card["null_reasons"]["median_latency_seconds"]


def test_a_rate_needs_measurable_wall_time():
    from lyss.aggregate.runcard import speed_scores

    scores, reasons = speed_scores(RECORDS, 0.002, 54)
    assert scores["entries_per_minute"] is None and scores["tokens_per_second"] is None
    assert reasons["entries_per_minute"] == "the run took 0.002 s of wall time, too little to measure a rate"


def test_caveats_count_only_entries_where_the_reference_is_not_flagged():
    # every output copies its source (source_copy)
    copies = [dict(r, prediction=e["source"]) for r, e in zip(RECORDS, ENTRIES, strict=True)]
    card, _ = make_card(records=copies)
    assert [c["id"] for c in card["score_caveats"]] == ["source_copy"]
    assert card["score_caveats"][0]["entries"] == 4
    # where the reference itself is its source (a name, say), copying it is no evidence: 2 of 4 remain (50%)
    names = [dict(e, source=e["reference"]) if i < 2 else e for i, e in enumerate(ENTRIES)]
    copies = [dict(r, prediction=e["source"]) for r, e in zip(RECORDS, names, strict=True)]
    card, _ = make_card(records=copies, entries=names)
    assert card["score_caveats"][0]["entries"] == 2 and card["score_caveats"][0]["share"] == 0.5


def study(composite_status: str) -> dict:
    """An evidence file of the language pair (lyss.aggregate.validation_status) as rule validate_dataset writes it."""
    return {"language_pair": "eng-spa", "metrics": {"chrf_plus_plus": {"status": "validated"},
                                                    "composite": {"status": composite_status}}}


def test_validation_status_and_provisional_tier():
    card, _ = make_card(evidence=[study("evidence")])
    assert card["validation_status"]["chrf_plus_plus"] == "validated"
    assert card["validation_status"]["composite"] == "evidence" and card["tier_status"] == "provisional"
    card, _ = make_card(evidence=[study("validated")])
    assert card["tier_status"] == "validated"
    validate_run_card(card)


def test_the_caveat_gate_holds_a_partial_composite_at_baseline():
    short = [dict(r, prediction=e["reference"][:2]) for r, e in zip(RECORDS, ENTRIES, strict=True)]
    card, _ = make_card(records=short, composite_settings={**TOY_COMPOSITE, "min_weight_share": 0.5})
    assert card["scores"]["quality_tier"] == "baseline"
    assert card["tier_gate"] == {"enabled": True, "ungated_tier": "partial", "applied": True}

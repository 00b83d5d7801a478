"""Composite renormalisation (§4.1), normalisation (§4.2), tiers (§5.1), cost-adjusted (§6.3),
checked against hand arithmetic and against the weight tables written out from the spec."""

import math

import numpy as np
import pytest
import yaml

from lyss.aggregate.composite import applied_weights, composite, cost_adjusted, quality_tier, select_profile

PARAMS = yaml.safe_load(open("params.yaml"))
# No params.yaml override: each metric's declared §4.2 normalisation applies (chrF++ ÷ 100, behavioural rates inverted).
NORM = PARAMS["composite"].get("normalisation", {})
TIERS = PARAMS["tiers"]
# §4.3, typed in from the spec independently of params.yaml.
SPEC_A = {"fst_acceptance_rate": .25, "morphological_accuracy": .15, "chrf_plus_plus": .15, "semantic_score": .15,
          "equivalent_match_rate": .10, "code_switching_rate": .05, "terminology_adherence": .05,
          "hallucination_rate": .05, "exact_match_rate": .05}
SPEC_B = {"semantic_score": .25, "chrf_plus_plus": .25, "equivalent_match_rate": .15, "exact_match_rate": .10,
          "code_switching_rate": .10, "terminology_adherence": .05, "hallucination_rate": .05,
          "orthographic_accuracy": .05}


def test_params_hold_the_spec_weight_tables():
    assert PARAMS["composite"]["profiles"]["A"] == SPEC_A
    assert PARAMS["composite"]["profiles"]["B"] == SPEC_B
    assert sum(SPEC_A.values()) == pytest.approx(1.0) and sum(SPEC_B.values()) == pytest.approx(1.0)


def test_metrics_declare_the_spec_normalisation():
    from lyss.metrics import REGISTRY, default_normalisation
    # §4.2, typed in from the spec: every other metric is already on 0–1 with 1 = perfect (TER and
    # length_ratio carry no weight in the spec's tables, so they are never normalised).
    spec = {"chrf_plus_plus": "divide_by_100", "code_switching_rate": "invert", "hallucination_rate": "invert"}
    assert {m: default_normalisation(m) for m in REGISTRY if default_normalisation(m) != "identity"} == spec


def test_params_normalisation_overrides_the_declared_one():
    scores = {"chrf_plus_plus": 60.0}
    assert composite(scores, {"chrf_plus_plus": 1.0}, {}) == pytest.approx(0.6)
    assert composite({"chrf_plus_plus": 0.6}, {"chrf_plus_plus": 1.0}, {"chrf_plus_plus": "identity"}) == 0.6


def test_spec_example_profile_a_without_morphology():
    # §4.3: with morphological_accuracy missing, FST gets 0.25/0.85 = 0.294, chrF++ and semantic 0.176.
    scores = {m: 0.5 for m in SPEC_A if m != "morphological_accuracy"}
    weights = applied_weights(scores, SPEC_A)
    assert weights["fst_acceptance_rate"] == pytest.approx(0.294, abs=5e-4)
    assert weights["chrf_plus_plus"] == pytest.approx(0.176, abs=5e-4)
    assert weights["semantic_score"] == pytest.approx(0.176, abs=5e-4)
    assert sum(weights.values()) == pytest.approx(1.0)


def test_composite_hand_computed_with_missing_metric():
    # Profile B with only chrF++ (0.25), exact match (0.10) and code switching (0.10) available:
    # (0.25·0.60 + 0.10·0.20 + 0.10·(1−0.10)) / 0.45 = (0.15 + 0.02 + 0.09) / 0.45 = 0.577777…
    scores = {"chrf_plus_plus": 60.0, "exact_match_rate": 0.2, "code_switching_rate": 0.1, "semantic_score": None,
              "bleu": 99.0}
    assert composite(scores, SPEC_B, NORM) == pytest.approx(0.26 / 0.45)


def test_composite_none_without_weighted_metrics():
    assert composite({"bleu": 30.0}, SPEC_B, NORM) is None


def test_composite_vectorised_over_resamples():
    scores = {"chrf_plus_plus": np.array([50.0, 100.0]), "exact_match_rate": np.array([0.0, 1.0])}
    # weights 0.25 and 0.10 → (0.25·0.5 + 0)/0.35 and (0.25 + 0.10)/0.35
    np.testing.assert_allclose(composite(scores, SPEC_B, NORM), [0.125 / 0.35, 1.0])


@pytest.mark.parametrize("value, tier", [
    (0.85, "fluent"), (0.8499999, "deployable"), (0.70, "deployable"), (0.6999, "functional"), (0.50, "functional"),
    (0.4999, "emerging"), (0.30, "emerging"), (0.2999, "baseline"), (0.0, "baseline"), (None, "unscored"),
])
def test_tiers_at_thresholds(value, tier):
    assert quality_tier(value, TIERS) == tier


def test_cost_adjusted():
    # 0.8 / log2(1 + 0.001·1000) = 0.8 / 1 = 0.8; 0.6 / log2(1 + 3) = 0.3
    assert cost_adjusted(0.8, 0.001) == pytest.approx(0.8)
    assert cost_adjusted(0.6, 0.003) == pytest.approx(0.6 / math.log2(4))
    assert cost_adjusted(0.6, 0.0) is None and cost_adjusted(None, 0.01) is None


def test_profile_selection(tmp_path):
    analyzer = tmp_path / "x.hfstol"
    assert select_profile({"fst_analyzer": {"backend": "hfstol", "path": str(analyzer)}}) == "B"
    analyzer.write_bytes(b"")
    assert select_profile({"fst_analyzer": {"backend": "hfstol", "path": str(analyzer)}}) == "A"
    assert select_profile({"name": "German"}) == "B" and select_profile(None) == "B"


def test_resamples_with_an_undefined_metric_renormalise_instead_of_vanishing():
    weights = {"chrf_plus_plus": 0.25, "exact_match_rate": 0.10, "semantic_score": 0.25}
    scores = {"chrf_plus_plus": np.array([60.0, 40.0]), "exact_match_rate": np.array([0.3, np.nan]),
              "semantic_score": np.array([np.nan, np.nan])}
    # resample 1: (0.25·0.6 + 0.10·0.3) / 0.35; resample 2: chrF++ alone, 0.4
    assert composite(scores, weights, NORM) == pytest.approx([(0.15 + 0.03) / 0.35, 0.4])
    nothing = {"chrf_plus_plus": np.array([np.nan]), "exact_match_rate": np.array([np.nan])}
    assert np.isnan(composite(nothing, weights, NORM)).all()


def test_coverage_bar():
    from lyss.aggregate.composite import coverage, coverage_reason

    settings = {"min_entries": 30, "min_coverage": 0.1}
    sparse = np.full(197, np.nan)
    sparse[[4, 50, 120]] = 1.0  # the demo's morphological annotations: 3 of 197 entries
    assert coverage(sparse) == (3, pytest.approx(3 / 197))
    assert coverage_reason(3, 3 / 197, settings) == (
        "only 3 entries contribute a value (composite.min_entries is 30): too little evidence to weigh in the "
        "composite")
    assert coverage_reason(30, 30 / 197, settings) is None
    assert coverage_reason(40, 40 / 500, settings) == (
        "only 8.0% of entries contribute a value (composite.min_coverage is 10%): too little evidence to weigh "
        "in the composite")


def test_weight_share_and_partial():
    from lyss.aggregate.composite import partial, weight_share

    only_chrf = {"chrf_plus_plus": 57.3}
    assert weight_share(only_chrf, SPEC_B) == pytest.approx(0.25)
    assert partial(0.25, {"min_weight_share": 0.5}) and not partial(0.5, {"min_weight_share": 0.5})
    assert partial(0.35, {})  # default 0.5


def test_named_profile_selection():
    from lyss.errors import InputError

    settings = {"profile": "fitted", "profiles": {"A": SPEC_A, "B": SPEC_B, "fitted": {"chrf_plus_plus": 1.0}}}
    assert select_profile(None, settings) == "fitted"
    assert select_profile(None, {**settings, "profile": "auto"}) == "B"
    with pytest.raises(InputError, match="composite.profile"):
        select_profile(None, {**settings, "profile": "nope"})

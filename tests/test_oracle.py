"""The reference oracle (docs/oracle.md): a metric is valid on a dataset only when the reference, scored as a
system's output, gets its ideal value within `oracle.tolerance`. Values are sacrebleu's or hand-computed."""

import numpy as np
import pytest
import sacrebleu

from lyss.aggregate.oracle import deviation, failed_metrics, reference_check
from lyss.metrics import MetricResult, ScoringInput, get_metric
from lyss.translate import MethodContext, build_translator

ENTRIES = [{"id": "1", "source": "Good night.", "reference": "Buenas noches."},
           {"id": "2", "source": "I have a cat.", "reference": "Tengo un gato."}]


def result(metric: str, value: float | None) -> MetricResult:
    return MetricResult(metric, np.full(2, np.nan if value is None else value), value)


def test_reference_method_outputs_the_references():
    translator = build_translator("reference", MethodContext("reference", {}, "eng", "spa"))
    records = list(translator.translate(ENTRIES))
    assert [(r.id, r.prediction, r.cost_usd, r.latency_s) for r in records] == [
        ("1", "Buenas noches.", 0.0, 0.0), ("2", "Tengo un gato.", 0.0, 0.0)]


def test_real_metrics_pass_on_the_reference_itself():
    refs = [e["reference"] for e in ENTRIES]
    data = ScoringInput(ENTRIES, refs, refs, "eng", "spa")
    results = {m: get_metric(m).score(data) for m in ("chrf_plus_plus", "bleu", "ter", "exact_match_rate",
                                                       "length_ratio")}
    # sacrebleu on the same strings: a perfect hypothesis scores chrF++ 100, BLEU 100, TER 0
    assert sacrebleu.corpus_chrf(refs, [refs], word_order=2).score == pytest.approx(100.0)
    checks = reference_check(results, None, 0.05)
    assert {m: (c["reference_value"], c["passed"]) for m, c in checks.items()} == {
        "bleu": (100.0, True), "chrf_plus_plus": (100.0, True), "exact_match_rate": (1.0, True),
        "length_ratio": (1.0, True), "ter": (0.0, True)}
    assert failed_metrics(checks) == {}


@pytest.mark.parametrize("metric, value, passed", [
    ("chrf_plus_plus", 95.0, True),     # (100 − 95) / 100 = 0.05
    ("chrf_plus_plus", 94.9, False),    # 0.051
    ("exact_match_rate", 0.95, True),
    ("semantic_score", 0.9335, False),  # 0.0665 short of 1
    ("code_switching_rate", 0.05, True),
    ("code_switching_rate", 0.0715, False),
    ("length_ratio", 1.05, True),       # target metric: |1.05 − 1| = 0.05
    ("length_ratio", 0.94, False),
    ("ter", 0.0, True),
])
def test_tolerance_on_the_normalised_scale(metric, value, passed):
    assert reference_check({metric: result(metric, value)}, None, 0.05)[metric]["passed"] is passed


def test_failure_reason_is_exact_and_unchecked_metrics_are_left_alone():
    checks = reference_check({"code_switching_rate": result("code_switching_rate", 0.0715),
                              "comet_score": result("comet_score", 0.41),       # no fixed ideal
                              "semantic_score": result("semantic_score", None)}, None, 0.05)
    assert checks["comet_score"]["passed"] is None and checks["semantic_score"]["passed"] is None
    assert failed_metrics(checks) == {
        "code_switching_rate": "fails its reference check (reference scores 0.0715)"}


def test_deviation_counts_only_the_bad_direction():
    assert deviation(1.0, 1.0, "higher") == 0.0
    assert deviation(0.0, 0.0, "lower") == 0.0
    assert deviation(0.2, 0.0, "lower") == pytest.approx(0.2)
    assert deviation(80.0, 100.0, "higher") == pytest.approx(0.2)
    assert deviation(1.3, 1.0, "target") == pytest.approx(0.3)

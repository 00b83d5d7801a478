"""lyss.aggregate.confidence: the run card's bootstrap CIs. Resampled scores are checked against sacrebleu re-scoring
the resampled strings, and the composite CI against a composite recomputed by hand on those resamples."""

import random

import jsonschema
import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF, TER

from lyss.aggregate.confidence import Resampling, composite_statistic, confidence_intervals, corpus_statistic
from lyss.aggregate.runcard import schema
from lyss.metrics.base import MetricResult, ScoringInput
from lyss.metrics.surface import Bleu, ChrFPlusPlus, ExactMatch, Ter
from lyss.stats import bootstrap_scores

WORDS = "el perro come la casa grande en un día de sol y agua con pan para todos los niños".split()
WEIGHTS = {"semantic_score": 0.25, "chrf_plus_plus": 0.25, "exact_match_rate": 0.10}  # profile B excerpt
NORMALISATION = {"chrf_plus_plus": "divide_by_100"}


def corpus(n: int, seed: int = 0):
    """Entries with difficulty tiers 1–3 and hypotheses that are exact, lightly or heavily perturbed."""
    rng = random.Random(seed)
    entries, hyps = [], []
    for i in range(n):
        ref = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
        entries.append({"id": f"e{i}", "source": ref, "reference": ref, "difficulty": 1 + i % 3})
        rate = (0.0, 0.2, 0.6)[rng.randrange(3)]
        hyps.append(" ".join(w if rng.random() >= rate else rng.choice(WORDS) for w in ref.split()))
    return entries, hyps


def score(entries, hyps) -> dict[str, MetricResult]:
    data = ScoringInput(entries, hyps, hyps, "spa", "spa")
    return {p.id: p.score(data) for p in (ExactMatch(), ChrFPlusPlus(), Bleu(), Ter())}


def test_count_metrics_reproduce_sacrebleu_corpus_scores():
    entries, hyps = corpus(60)
    refs = [[e["reference"] for e in entries]]
    results = score(entries, hyps)
    for metric, sacre in (("chrf_plus_plus", CHRF(word_order=2)), ("bleu", BLEU()), ("ter", TER())):
        expected = sacre.corpus_score(hyps, refs).score
        assert corpus_statistic(results[metric]).score() == pytest.approx(expected, abs=1e-9)
    assert corpus_statistic(results["exact_match_rate"]).score() == results["exact_match_rate"].corpus_value


def test_resampled_scores_equal_sacrebleu_on_resampled_strings():
    # The count-matrix shortcut must give exactly what re-scoring the resampled segments gives.
    entries, hyps = corpus(50)
    refs = [e["reference"] for e in entries]
    results = score(entries, hyps)
    metrics = {"chrf_plus_plus": CHRF(word_order=2), "bleu": BLEU(), "ter": TER()}
    samples = bootstrap_scores([corpus_statistic(results[m]) for m in metrics], 5, seed=42)
    indices = np.random.default_rng(42).choice(len(hyps), size=(5, len(hyps)), replace=True)
    for (metric, sacre), resampled in zip(metrics.items(), samples, strict=True):
        for r, idx in enumerate(indices):
            expected = sacre.corpus_score([hyps[i] for i in idx], [[refs[i] for i in idx]]).score
            assert resampled[r] == pytest.approx(expected, abs=1e-9), (metric, r)


def test_composite_ci_is_the_composite_of_resampled_metrics():
    # Recompute by hand on the same index draws: chrF++ by sacrebleu on the resampled strings, exact match
    # as a mean, composite = (0.25·chrF/100 + 0.10·EM) / 0.35 (semantic_score unavailable → renormalised).
    # 40 resamples at α = 0.05: ⌊40·0.025⌋ = 1 → sorted positions 1 and 38.
    entries, hyps = corpus(45)
    refs = [e["reference"] for e in entries]
    results = score(entries, hyps)
    out = confidence_intervals(results, entries, WEIGHTS, NORMALISATION, Resampling(n_resamples=40, alpha=0.05, seed=9))
    indices = np.random.default_rng(9).choice(len(hyps), size=(40, len(hyps)), replace=True)
    em = np.array([float(h == r) for h, r in zip(hyps, refs, strict=True)])
    by_hand = sorted(
        (0.25 * CHRF(word_order=2).corpus_score([hyps[i] for i in idx], [[refs[i] for i in idx]]).score / 100
         + 0.10 * em[idx].mean()) / 0.35
        for idx in indices)
    block = out["confidence_intervals"]["composite"]
    assert block["ci_lower"] == pytest.approx(by_hand[1], abs=1e-6)
    assert block["ci_upper"] == pytest.approx(by_hand[38], abs=1e-6)


def test_card_blocks_shapes_and_warnings():
    entries, hyps = corpus(45)
    results = score(entries, hyps)
    out = confidence_intervals(results, entries, WEIGHTS, NORMALISATION, Resampling(n_resamples=200, seed=1))
    assert set(out["confidence_intervals"]) == {"chrf_plus_plus", "exact_match_rate", "composite"}
    assert set(out["confidence_intervals_by_tier"]) == {"1", "2", "3"}
    assert set(out["confidence_intervals_by_tier"]["2"]) == {"corpus_chrf", "exact_match_rate"}
    chrf = out["confidence_intervals"]["chrf_plus_plus"]
    assert chrf["ci_lower"] <= results["chrf_plus_plus"].corpus_value <= chrf["ci_upper"]
    # 45 entries: the corpus is large enough; each tier has 15 (< 30) and is flagged.
    assert len(out["warnings"]) == 3 and all("difficulty tier" in w for w in out["warnings"])
    properties = schema()["properties"]["scores"]["properties"]
    jsonschema.validate(out["confidence_intervals"], properties["confidence_intervals"])
    jsonschema.validate(out["confidence_intervals_by_tier"], properties["confidence_intervals_by_tier"])
    again = confidence_intervals(results, entries, WEIGHTS, NORMALISATION, Resampling(n_resamples=200, seed=1))
    assert again == out


def test_small_corpus_is_flagged():
    entries, hyps = corpus(12)
    out = confidence_intervals(score(entries, hyps), entries, WEIGHTS, NORMALISATION,
                               Resampling(n_resamples=50, seed=1))
    assert any(w.startswith("the corpus has 12 entries (< 30)") for w in out["warnings"])


def test_mean_and_ratio_metrics():
    n = 6
    entries = [{"id": str(i), "source": "", "reference": ""} for i in range(n)]
    # COMET-like per-entry scores with one undefined entry: corpus = mean of the 5 defined = 0.6.
    comet = MetricResult("comet_score", np.array([0.2, 0.4, np.nan, 0.6, 0.8, 1.0]), 0.6)
    # FST acceptance over words: Σ accepted / Σ words = (1+2+0+3+4+5) / (2+2+1+3+4+8) = 15/20 = 0.75,
    # which is not the mean of per-entry rates (0.5+1+0+1+1+0.625)/6 ≈ 0.6875.
    accepted, words = np.array([1, 2, 0, 3, 4, 5.0]), np.array([2, 2, 1, 3, 4, 8.0])
    fst = MetricResult("fst_acceptance_rate", accepted / words, 0.75,
                       stats=np.column_stack([accepted, words]))
    assert corpus_statistic(comet).score() == pytest.approx(0.6)
    assert corpus_statistic(fst).score() == pytest.approx(0.75)
    out = confidence_intervals({"comet_score": comet, "fst_acceptance_rate": fst}, entries, {}, {},
                               Resampling(n_resamples=100, seed=3))
    assert set(out["confidence_intervals"]) == {"comet_score", "fst_acceptance_rate"}
    block = out["confidence_intervals"]["comet_score"]
    assert 0.2 <= block["ci_lower"] <= 0.6 <= block["ci_upper"] <= 1.0


def test_metric_whose_corpus_value_is_not_reproducible_gets_no_ci():
    entries = [{"id": str(i), "source": "", "reference": ""} for i in range(4)]
    odd = MetricResult("comet_score", np.array([0.1, 0.2, 0.3, 0.4]), 0.9)  # 0.9 is not their mean 0.25
    assert corpus_statistic(odd) is None
    out = confidence_intervals({"comet_score": odd}, entries, {}, {}, Resampling(n_resamples=10, seed=1))
    assert out["confidence_intervals"] == {}
    assert any("no confidence interval for comet_score" in w for w in out["warnings"])


def test_unavailable_metrics_are_left_out():
    entries, hyps = corpus(10)
    results = score(entries, hyps)
    results["fst_acceptance_rate"] = MetricResult.unavailable("fst_acceptance_rate", 10, "no analyzer")
    out = confidence_intervals(results, entries, WEIGHTS, NORMALISATION, Resampling(n_resamples=20, seed=1))
    assert "fst_acceptance_rate" not in out["confidence_intervals"]
    assert composite_statistic({"x": results["fst_acceptance_rate"]}, {"x": 1.0}, {}) is None


def test_no_resample_is_dropped_from_the_composite_and_undefined_ones_are_counted():
    entries, hyps = corpus(12)
    results = score(entries, hyps)
    # a weighted metric defined on 2 entries only: undefined in every resample that misses both. semantic_score's
    # rows are [squared-distance share, defined]: values 0.5 and 1.0 are shares 0.25 and 0, corpus 1 − √0.125
    sparse = np.full(12, np.nan)
    sparse[[3, 7]] = [0.5, 1.0]
    rows = np.zeros((12, 2))
    rows[[3, 7]] = [[0.25, 1.0], [0.0, 1.0]]
    results["semantic_score"] = MetricResult("semantic_score", sparse, 1 - np.sqrt(0.125), stats=rows)
    out = confidence_intervals(results, entries, WEIGHTS, NORMALISATION, Resampling(n_resamples=300, seed=5))
    # independently: numpy's draws (as sacrebleu draws them) and the resamples that contain neither entry
    indices = np.random.default_rng(5).choice(12, size=(300, 12), replace=True)
    missing = int(sum(not ({3, 7} & set(row)) for row in indices))
    assert missing > 0
    assert out["bootstrap"]["undefined_resamples"]["semantic_score"] == missing
    assert out["confidence_intervals"]["composite"]["undefined_resamples"] == 0
    assert out["confidence_intervals"]["composite"]["renormalised_resamples"] == missing
    # the composite of such a resample is that of chrF++ and exact match alone, renormalised
    samples = bootstrap_scores([corpus_statistic(results[m]) for m in ("chrf_plus_plus", "exact_match_rate")],
                               300, seed=5)
    row = next(r for r, idx in enumerate(indices) if not ({3, 7} & set(idx)))
    combined = composite_statistic(results, WEIGHTS, NORMALISATION)
    resampled = bootstrap_scores([combined], 300, seed=5)[0]
    assert resampled[row] == pytest.approx((0.25 * samples[0][row] / 100 + 0.10 * samples[1][row]) / 0.35)

"""lyss.stats: hand-computed tiny cases, scipy for McNemar, sacrebleu's PairedTest for p-values, and
coverage of the percentile bootstrap on simulated data with a known mean."""

import math
import random
from fractions import Fraction

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.significance import PairedTest
from scipy.stats import binomtest

from lyss.metrics.sufficient import bleu_from_stats, chrf_from_stats
from lyss.stats import (
    CorpusStatistic,
    approximate_randomization,
    bootstrap_counts,
    bootstrap_scores,
    holm,
    joint,
    mcnemar_exact,
    paired_bootstrap,
    percentile_ci,
    resample,
    swap_masks,
)
from lyss.stats.paired import EXACT_SUM_LIMIT, binomial_half_cdf


def mean_statistic(values) -> CorpusStatistic:
    values = np.asarray(values, dtype=float)
    return CorpusStatistic(np.column_stack([values, np.ones_like(values)]), lambda s: s[..., 0] / s[..., 1])


# --- resampling draws -----------------------------------------------------------------------------


def test_bootstrap_counts_are_sacrebleus_index_draws_in_blocks(monkeypatch):
    # Force several blocks of odd sizes: the stream must equal one big draw of choice(n, (R, n)).
    monkeypatch.setattr(resample, "BLOCK_CELLS", 7 * 13)
    n, r, seed = 13, 50, 12345
    counts = np.vstack(list(bootstrap_counts(n, r, seed)))
    idx = np.random.default_rng(seed).choice(n, size=(r, n), replace=True)
    expected = np.stack([np.bincount(row, minlength=n) for row in idx])
    assert counts.shape == (r, n)
    np.testing.assert_array_equal(counts, expected)
    assert (counts.sum(axis=1) == n).all()


def test_swap_masks_are_sacrebleus_ar_draws_in_blocks(monkeypatch):
    monkeypatch.setattr(resample, "BLOCK_CELLS", 40 * 11)  # blocks of 32 trials × 11 entries
    n, t, seed = 11, 100, 7
    masks = np.vstack(list(swap_masks(n, t, seed)))
    expected = np.random.default_rng(seed).integers(2, size=(t, n), dtype=bool)
    np.testing.assert_array_equal(masks.astype(bool), expected)


def test_empty_sets_cannot_be_resampled():
    with pytest.raises(ValueError):
        next(bootstrap_counts(0, 10, 1))
    with pytest.raises(ValueError):
        next(swap_masks(0, 10, 1))


def test_statistics_over_different_entries_are_refused():
    with pytest.raises(ValueError, match="different numbers of entries"):
        bootstrap_scores([mean_statistic([1, 2]), mean_statistic([1, 2, 3])], 10, 1)


# --- percentile interval --------------------------------------------------------------------------


def test_percentile_ci_order_statistics():
    # 1000 samples 0..999: ⌊1000·0.025⌋ = 25 → the values at sorted positions 25 and 1000-25-1 = 974.
    samples = np.random.default_rng(0).permutation(1000).astype(float)
    assert percentile_ci(samples, 0.05) == (25.0, 974.0)
    # α = 0.5 with 4 samples: ⌊4·0.25⌋ = 1 → positions 1 and 2 of [1, 2, 3, 4].
    assert percentile_ci(np.array([4.0, 1.0, 3.0, 2.0]), 0.5) == (2.0, 3.0)


def test_percentile_ci_drops_undefined_resamples():
    samples = np.concatenate([np.arange(40, dtype=float), [np.nan] * 5])
    # 40 finite samples: ⌊40·0.025⌋ = 1 → positions 1 and 38.
    assert percentile_ci(samples, 0.05) == (1.0, 38.0)
    assert percentile_ci(np.array([np.nan]), 0.05) == (None, None)


def test_bootstrap_ci_coverage_on_simulated_data():
    # 200 datasets of 100 draws from N(μ=5, σ=2); the 95% percentile interval of the mean should cover μ
    # in about 95% of them. Binomial sd of the coverage over 200 datasets is √(.95·.05/200) ≈ 0.015, and
    # the percentile bootstrap under-covers slightly at n = 100, so [0.90, 0.99] is a safe band.
    rng = np.random.default_rng(2024)
    covered = 0
    for i in range(200):
        data = rng.normal(5.0, 2.0, size=100)
        (samples,) = bootstrap_scores([mean_statistic(data)], 1000, seed=i)
        lower, upper = percentile_ci(samples, 0.05)
        covered += lower <= 5.0 <= upper
    assert 0.90 <= covered / 200 <= 0.99


# --- paired bootstrap -----------------------------------------------------------------------------


def test_paired_bootstrap_hand_computed():
    # Resampled scores: baseline [1, 2, 3, 4], system [2, 2, 5, 4] → differences [1, 0, 2, 0], mean 0.75.
    # |differences| centred on their mean 0.75: [0.25, -0.75, 1.25, -0.75]; observed |3 - 2| = 1;
    # one centred value exceeds 1 → p = (1 + 1) / (4 + 1) = 0.4.
    # CI at α = 0.5: sorted differences [0, 0, 1, 2], positions 1 and 2 → [0, 1].
    result = paired_bootstrap(2.0, 3.0, np.array([1.0, 2, 3, 4]), np.array([2.0, 2, 5, 4]), alpha=0.5)
    assert result.delta == 1.0
    assert result.delta_mean == 0.75
    assert (result.ci_lower, result.ci_upper) == (0.0, 1.0)
    assert result.p_value == pytest.approx(0.4)


def test_identical_systems_are_not_different():
    same = mean_statistic([0.2, 0.9, 0.4, 0.7])
    base, system = bootstrap_scores([same, same], 200, seed=1)
    result = paired_bootstrap(same.score(), same.score(), base, system)
    assert result.p_value == 1.0 and result.delta == 0.0 and (result.ci_lower, result.ci_upper) == (0.0, 0.0)
    assert approximate_randomization([(same, same)], 200, seed=1) == [1.0]


# --- approximate randomization --------------------------------------------------------------------


def test_approximate_randomization_against_the_exact_permutation_distribution():
    # Mean metric, per-entry differences d = [1, 1, 1, -1]; observed |mean difference| = |2/4| = 0.5.
    # A trial flips the sign of each d_i with probability 1/2, so the pseudo difference is Σ±1 / 4 over
    # 16 equally likely sign patterns; it exceeds 0.5 only at Σ = ±4 (2 patterns): P = 1/8.
    # With 20,000 trials the Monte-Carlo sd is √(.125·.875/20000) ≈ 0.0023; allow 5 sd.
    baseline, system = mean_statistic([1, 1, 1, 0]), mean_statistic([0, 0, 0, 1])
    (p,) = approximate_randomization([(baseline, system)], n_trials=20_000, seed=3)
    assert abs(p - 0.125) < 5 * math.sqrt(0.125 * 0.875 / 20_000)


# --- agreement with sacrebleu ---------------------------------------------------------------------

WORDS = ("el la de que y en un una los se del las por con para es al lo como más pero sus le ya o casa perro "
         "tiempo ciudad agua libro mundo día noche camino").split()


def _systems(n=250, seed=0):
    rng = random.Random(seed)
    refs = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 18))) for _ in range(n)]

    def perturb(sentence, rate):
        return " ".join(w if rng.random() > rate else rng.choice(WORDS) for w in sentence.split())

    return refs, [perturb(r, 0.30) for r in refs], [perturb(r, 0.30) for r in refs]


METRICS = {
    "chrF++": (lambda: CHRF(word_order=2), lambda s: chrf_from_stats(s, s.shape[-1] // 3)),
    "BLEU": (BLEU, lambda s: bleu_from_stats(s, 4)),
}


def _sacrebleu_paired(test_type, n_samples, metric, refs, baseline, system):
    _, results = PairedTest([("base", baseline), ("sys", system)], {"m": metric}, [refs], test_type=test_type,
                            n_samples=n_samples)()
    key = next(k for k in results if k != "System")
    return results[key][0], results[key][1]


@pytest.mark.parametrize("name", list(METRICS))
def test_paired_bootstrap_matches_sacrebleu(name):
    # Same seed (sacrebleu's default 12345) → the same index draws: identical point scores, and p-values
    # equal up to float rounding in sacrebleu's float32 sums (at most one count either way: 1/(R + 1)).
    make, formula = METRICS[name]
    refs, base_hyps, sys_hyps = _systems()
    base_result, sys_result = _sacrebleu_paired("bs", 1000, make(), refs, base_hyps, sys_hyps)
    metric = make()
    base = CorpusStatistic(np.asarray(metric._extract_corpus_statistics(base_hyps, [refs]), float), formula)
    system = CorpusStatistic(np.asarray(metric._extract_corpus_statistics(sys_hyps, [refs]), float), formula)
    assert base.score() == pytest.approx(base_result.score, abs=1e-9)
    assert system.score() == pytest.approx(sys_result.score, abs=1e-9)
    base_samples, sys_samples = bootstrap_scores([base, system], 1000, seed=12345)
    result = paired_bootstrap(base.score(), system.score(), base_samples, sys_samples)
    assert 0.01 < sys_result.p_value < 0.5  # the case is not trivially decided
    assert abs(result.p_value - sys_result.p_value) <= 1 / 1001 + 1e-12
    # sacrebleu's `mean` is the mean of the system's resampled scores; ours come from the same resamples.
    assert float(np.mean(sys_samples)) == pytest.approx(sys_result.mean, abs=1e-3)
    # Another seed → an independent estimate: within 5 sd of the difference of two estimates from 1000
    # resamples each, √2·√(p(1-p)/1000), plus the +1 offset.
    base_samples, sys_samples = bootstrap_scores([base, system], 1000, seed=99)
    other = paired_bootstrap(base.score(), system.score(), base_samples, sys_samples).p_value
    p = sys_result.p_value
    assert abs(other - p) <= 5 * math.sqrt(2 * p * (1 - p) / 1000) + 1 / 1001


@pytest.mark.parametrize("name", list(METRICS))
def test_approximate_randomization_matches_sacrebleu(name):
    make, formula = METRICS[name]
    refs, base_hyps, sys_hyps = _systems()
    _, sys_result = _sacrebleu_paired("ar", 2000, make(), refs, base_hyps, sys_hyps)
    metric = make()
    base = CorpusStatistic(np.asarray(metric._extract_corpus_statistics(base_hyps, [refs]), float), formula)
    system = CorpusStatistic(np.asarray(metric._extract_corpus_statistics(sys_hyps, [refs]), float), formula)
    # Same seed → the same swap masks → the same count (allow one tie flip).
    (same_seed,) = approximate_randomization([(base, system)], n_trials=2000, seed=12345)
    assert abs(same_seed - sys_result.p_value) <= 1 / 2001 + 1e-12
    # Another seed → an independent Monte-Carlo estimate of the same p: within 5 sd of the difference of
    # two independent estimates, √2·√(p(1-p)/2000), plus the +1 offset.
    (other_seed,) = approximate_randomization([(base, system)], n_trials=2000, seed=99)
    p = sys_result.p_value
    assert abs(other_seed - p) <= 5 * math.sqrt(2 * p * (1 - p) / 2000) + 1 / 2001


# --- McNemar and Holm -----------------------------------------------------------------------------


@pytest.mark.parametrize("baseline_only,system_only",
                         [(4, 0), (3, 0), (10, 4), (7, 7), (0, 12), (30, 45), (1, 0)])
def test_mcnemar_matches_an_exact_binomial_test(baseline_only, system_only):
    concordant = 20
    baseline = np.array([1] * baseline_only + [0] * system_only + [1] * concordant + [0] * concordant, float)
    system = np.array([0] * baseline_only + [1] * system_only + [1] * concordant + [0] * concordant, float)
    result = mcnemar_exact(baseline, system)
    expected = binomtest(min(baseline_only, system_only), baseline_only + system_only, 0.5).pvalue
    assert (result.baseline_only, result.system_only, result.n) == (baseline_only, system_only, len(baseline))
    assert result.p_value == pytest.approx(expected, rel=1e-12)


def test_mcnemar_seed_003_example_and_edge_cases():
    # Seed 003: four answers lost, none gained → p = 2 · (1/2)^4 = 0.125; three lost → 0.25.
    assert mcnemar_exact(np.array([1, 1, 1, 1, 0.0]), np.array([0, 0, 0, 0, 0.0])).p_value == 0.125
    assert mcnemar_exact(np.array([1, 1, 1, 1.0]), np.array([0, 0, 0, 1.0])).p_value == 0.25
    # No discordant pair: nothing to test, p = 1. Undefined outcomes are left out of the pairs.
    assert mcnemar_exact(np.array([1, 0.0]), np.array([1, 0.0])).p_value == 1.0
    result = mcnemar_exact(np.array([1, np.nan, 0.0]), np.array([0, 1, 0.0]))
    assert (result.n, result.baseline_only, result.system_only) == (2, 1, 0)


def test_the_binomial_tail_is_the_exact_sum_on_both_sides_of_its_limit():
    # P[X ≤ 2], X ~ Bin(6, 1/2) = (1 + 6 + 15) / 64 by hand; for odd n, P[X ≤ (n − 1)/2] = 1/2 exactly by symmetry.
    assert binomial_half_cdf(2, 6) == 22 / 64
    assert binomial_half_cdf(0, 1) == 0.5
    assert binomial_half_cdf(1_500, 3_001) == 0.5
    n, k = EXACT_SUM_LIMIT + 1, 24_800  # past the limit: the incomplete beta, against the definition
    assert binomial_half_cdf(k, n) == pytest.approx(float(Fraction(sum(_binomials(n, k)), 2 ** n)), rel=1e-13)
    assert binomial_half_cdf(n // 2, n) == pytest.approx(0.5, rel=1e-13)


def _binomials(n: int, k: int):
    """C(n, 0), …, C(n, k) in integers."""
    term = 1
    for i in range(k + 1):
        yield term
        term = term * (n - i) // (i + 1)


def test_holm_hand_computed():
    # Sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → monotone 0.06.
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # 0.5·2 = 1.0 (capped), then max(1.0, 0.6) = 1.0.
    assert holm([0.5, 0.6]) == [1.0, 1.0]
    assert holm([]) == []


# --- joint statistics -----------------------------------------------------------------------------


def test_joint_statistic_combines_parts_on_the_same_resamples():
    a, b = mean_statistic([1, 0, 1, 1]), mean_statistic([0.5, 0.5, 1.0, 0.0])
    combined = joint({"a": a, "b": b}, lambda s: 0.25 * s["a"] + 0.75 * s["b"])
    # 0.25 · 3/4 + 0.75 · 2/4 = 0.1875 + 0.375 = 0.5625
    assert combined.score() == pytest.approx(0.5625)
    sa, sb, sc = bootstrap_scores([a, b, combined], 100, seed=5)
    np.testing.assert_allclose(sc, 0.25 * sa + 0.75 * sb)


@pytest.mark.parametrize("p_holm,low,high,expected", [
    (0.01, 0.1, 0.5, True),     # below α, CI above 0
    (0.01, -0.5, -0.1, True),   # below α, CI below 0
    (0.01, -0.1, 0.5, False),   # CI straddles 0
    (0.01, 0.0, 0.5, False),    # CI touches 0: does not exclude it
    (0.05, 0.1, 0.5, False),    # p equal to α is not below it
    (0.2, 0.1, 0.5, False),
    (0.01, None, None, False),  # no CI (too few items): never significant
])
def test_significance_rule_of_the_leaderboard_and_the_raters(p_holm, low, high, expected):
    from lyss.stats import significant

    assert significant(p_holm, low, high, alpha=0.05) is expected

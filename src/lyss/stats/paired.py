"""Paired tests between two systems or two metrics: paired bootstrap, the one permutation test
(approximate randomization with sacrebleu's swap masks and p-value rule), exact McNemar and Holm.

sacrebleu's conventions throughout so numbers are comparable: swap masks from
`default_rng(seed).integers(2, (T, n), dtype=bool)` and p = (c + 1) / (N + 1).
"""

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from lyss.stats.intervals import percentile_ci
from lyss.stats.resample import CorpusStatistic, block_size, blocks, stack

# numpy packs 32 boolean draws into one 32-bit word per call; blocks of whole words keep the stream
# identical to a single draw.
_BOOL_WORD = 32


def _p_value(exceeding: int, n_samples: int, observed: float) -> float:
    """sacrebleu/multeval: p = (c + 1) / (N + 1), c = how many of N null statistics exceed the observed one.

    One deliberate difference: when the observed difference is exactly 0 the p-value is 1. sacrebleu
    would give 1 / (N + 1) for two identical outputs (every null statistic is 0, none is > 0), calling a
    system significantly different from itself.
    """
    return 1.0 if observed == 0 else (exceeding + 1) / (n_samples + 1)


def one_sided_p_values(permuted: np.ndarray, observed: float, tolerance: float = 1e-12) -> tuple[float, float, int]:
    """(p for "observed > 0 by more than chance", p for "< 0", usable trials) from a permutation null
    of a difference, with the same (c + 1) / (N + 1) rule; trials where the statistic is undefined
    (NaN) are not counted, and the count of those that are is returned. An undefined observed
    difference (a statistic undefined on the real data) has no p-value: NaN both ways, not the
    smallest p there is."""
    permuted = np.asarray(permuted, dtype=np.float64)
    valid = permuted[~np.isnan(permuted)]
    used = int(valid.size)
    if np.isnan(observed):
        return float("nan"), float("nan"), used
    above = (1 + int(np.sum(valid >= observed - tolerance))) / (1 + used)
    below = (1 + int(np.sum(valid <= observed + tolerance))) / (1 + used)
    return above, below, used


@dataclass(frozen=True)
class PairedBootstrap:
    """Paired bootstrap of system − baseline; p-value for H0 "equal" as in sacrebleu's `_paired_bs_test`."""

    baseline_score: float
    score: float
    delta: float  # observed system − baseline
    delta_mean: float  # mean of the resampled differences
    ci_lower: float | None
    ci_upper: float | None
    p_value: float


def paired_bootstrap(baseline_score: float, score: float, baseline_samples: np.ndarray,
                     samples: np.ndarray, alpha: float = 0.05) -> PairedBootstrap:
    """From scores of both systems on the same resamples: the difference's percentile CI, and the
    p-value of the observed |difference| against the resampled |differences| shifted to mean zero."""
    diffs = np.asarray(samples, dtype=np.float64) - np.asarray(baseline_samples, dtype=np.float64)
    diffs = diffs[np.isfinite(diffs)]  # resamples where either score is undefined carry no evidence
    abs_diffs = np.abs(diffs)
    lower, upper = percentile_ci(diffs, alpha)
    observed = abs(score - baseline_score)
    exceeding = int(np.sum(abs_diffs - abs_diffs.mean() > observed))
    return PairedBootstrap(baseline_score, score, score - baseline_score, float(np.mean(diffs)), lower, upper,
                           _p_value(exceeding, diffs.size, observed))


def swap_masks(n_entries: int, n_trials: int, seed: int | None) -> Iterator[np.ndarray]:
    """Blocks of the (n_trials × n_entries) 0/1 matrix: 1 where a trial swaps the two systems' outputs
    for an entry; drawn exactly as sacrebleu's approximate randomization draws them."""
    if n_entries < 1:
        raise ValueError("cannot randomise an empty set of entries")
    rng = np.random.default_rng(seed)
    for size in blocks(n_trials, block_size(n_entries, multiple=_BOOL_WORD)):
        yield rng.integers(2, size=(size, n_entries), dtype=bool).astype(np.float64)


def swap_mask_matrix(n_entries: int, n_trials: int, seed) -> np.ndarray:
    """All of `swap_masks` as one boolean (n_trials × n_entries) matrix (same draws), for the
    permutation tests of human-judgment studies, whose row counts are small."""
    if n_entries < 1:
        raise ValueError("cannot randomise an empty set of entries")
    return np.random.default_rng(seed).integers(2, size=(n_trials, n_entries), dtype=bool)


def approximate_randomization(pairs: Sequence[tuple[CorpusStatistic, CorpusStatistic]],
                              n_trials: int = 10_000, seed: int | None = None) -> list[float]:
    """Two-sided paired approximate-randomization p-values, one per (baseline, system) pair, all pairs
    sharing the same swap masks (as sacrebleu shares them across systems).

    Trial t swaps the entries where mask = 1: pseudo-baseline = mask·baseline + (1−mask)·system, and
    pseudo-system the complement, so both sums come from one product mask @ (baseline − system).
    """
    if not pairs:
        return []
    baselines, systems = [b for b, _ in pairs], [s for _, s in pairs]
    base_rows, slices = stack(baselines)
    sys_rows, _ = stack(systems)
    diff = base_rows - sys_rows
    base_total, sys_total = base_rows.sum(axis=0), sys_rows.sum(axis=0)
    observed = [abs(b.formula(base_total[sl]) - s.formula(sys_total[sl]))
                for b, s, sl in zip(baselines, systems, slices, strict=True)]
    counts = np.zeros(len(pairs), dtype=np.int64)
    for mask in swap_masks(diff.shape[0], n_trials, seed):
        moved = mask @ diff
        pseudo_a, pseudo_b = sys_total + moved, base_total - moved
        for i, (b, sl) in enumerate(zip(baselines, slices, strict=True)):
            counts[i] += np.sum(np.abs(b.formula(pseudo_a[:, sl]) - b.formula(pseudo_b[:, sl])) > observed[i])
    return [_p_value(int(c), n_trials, obs) for c, obs in zip(counts, observed, strict=True)]


@dataclass(frozen=True)
class McNemar:
    """Exact McNemar test on paired binary outcomes: only the discordant entries carry information."""

    n: int  # entries with a defined outcome for both systems
    baseline_only: int  # correct for the baseline, wrong for the system
    system_only: int  # wrong for the baseline, correct for the system
    p_value: float


def mcnemar_exact(baseline: np.ndarray, system: np.ndarray) -> McNemar:
    """Two-sided exact binomial test of the discordant counts b, c against Binomial(b + c, 1/2):
    p = min(1, 2·P[X ≤ min(b, c)]). Entries where either outcome is undefined (NaN) are left out."""
    baseline, system = np.asarray(baseline, dtype=np.float64), np.asarray(system, dtype=np.float64)
    if baseline.shape != system.shape:
        raise ValueError(f"outcomes of different lengths: {baseline.shape} vs {system.shape}")
    both = ~(np.isnan(baseline) | np.isnan(system))
    a, s = baseline[both] > 0.5, system[both] > 0.5
    b, c = int(np.sum(a & ~s)), int(np.sum(~a & s))
    return McNemar(int(both.sum()), b, c, mcnemar_p(b, c))


def mcnemar_p(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts: min(1, 2·P[X ≤ min(b, c)]),
    X ~ Binomial(b + c, 1/2); 1 when there is no discordant pair."""
    n = only_a + only_b
    return 1.0 if n == 0 else min(1.0, 2.0 * binomial_half_cdf(min(only_a, only_b), n))


# Above this many discordant pairs the exact sum takes over 0.2 s (big integers: O(n²) bit operations).
EXACT_SUM_LIMIT = 50_000


def binomial_half_cdf(k: int, n: int) -> float:
    """P[X ≤ k] for X ~ Binomial(n, 1/2): Σ_{i ≤ k} C(n, i) / 2ⁿ summed in integers and divided once, so
    the result is the correctly rounded double. Written out because scipy.stats, whose `binom.cdf` a
    significance job needed for nothing else, costs that job a second to import. Beyond EXACT_SUM_LIMIT
    pairs the regularised incomplete beta function I_{1/2}(n − k, k + 1) is faster (scipy.special, Boost's
    implementation: within 10⁻¹³ relative of the exact sum; cephes' `bdtr` is off by 10⁻¹⁰)."""
    if n > EXACT_SUM_LIMIT:
        from scipy.special import betainc

        return float(betainc(n - k, k + 1, 0.5))
    term = total = 1
    for i in range(k):
        term = term * (n - i) // (i + 1)
        total += term
    return total / (1 << n)


def holm_resolvable(resamples: int, tests: int, alpha: float) -> int:
    """At least `resamples`, and enough that the smallest p-value a resampling test can give, 1/(N + 1), passes
    Holm's correction over `tests` tests with room to spare (tests/(N + 1) ≤ α/2). With 13 systems (78 pairs)
    and 1,000 resamples, 78/1,001 = 0.078 > 0.05: no difference could ever be significant, however large."""
    return max(resamples, math.ceil(2 * tests / alpha) - 1) if tests > 1 else resamples


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment: the k-th smallest of m p-values is multiplied by (m − k + 1), made
    monotone along the ordering and capped at 1. Controls the family-wise error across the pairs."""
    order = np.argsort(p_values, kind="stable")
    m = len(p_values)
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * float(p_values[i])))
        adjusted[i] = running
    return adjusted


def significant(p_holm: float, ci_lower: float | None, ci_upper: float | None, alpha: float) -> bool:
    """The leaderboard's rule for a difference between two systems (spec §8.2), and the raters' table's: the
    Holm-adjusted p below α and the bootstrap CI of the difference excluding 0 (no CI: not significant)."""
    return bool(p_holm < alpha and ci_lower is not None and (ci_lower > 0 or ci_upper < 0))


def pairwise_permutation_p_values(statistics: Sequence[CorpusStatistic], masks: np.ndarray) -> np.ndarray:
    """(S × S) matrix: [i, j] is the one-sided p-value for "system i scores higher than system j" from the
    paired permutation test; NaN on the diagonal.

    Every statistic covers the same entries in the same order (one row per entry). Trial t swaps the two
    systems' rows of the entries where masks[t] is true and recomputes both corpus scores with the
    statistic's own formula, so corpus chrF++ is tested as corpus chrF++ (for a mean the rows are
    [value, 1]). All pairs share the masks, as in mt-metrics-eval's `compute_pairwise_p_values`
    (Thompson et al. 2024), and p = (c + 1) / (N + 1) as everywhere in this package."""
    masks = np.asarray(masks, dtype=np.float64)
    size = len(statistics)
    p_values = np.full((size, size), np.nan)
    totals = [s.rows.sum(axis=0) for s in statistics]
    for i in range(size):
        for j in range(i + 1, size):
            first, second = statistics[i], statistics[j]
            moved = masks @ (np.asarray(first.rows, dtype=np.float64) - np.asarray(second.rows, dtype=np.float64))
            null = first.formula(totals[i] - moved) - second.formula(totals[j] + moved)
            observed = float(first.formula(totals[i]) - second.formula(totals[j]))
            p_values[i, j], p_values[j, i], _ = one_sided_p_values(null, observed)
    return p_values


def soft_pairwise_accuracy(human_p: np.ndarray, metric_p: np.ndarray) -> float:
    """SPA (Thompson et al. 2024, WMT24's system-level statistic): 1 − mean over system pairs i < j of
    |p_human(i > j) − p_metric(i > j)|. A metric earns full credit for a pair only when it is as sure
    (or as unsure) that i beats j as the raters are, so a pair the raters cannot separate costs a
    metric that separates it confidently, which plain pairwise accuracy ignores."""
    upper = np.triu_indices(len(human_p), 1)
    if not len(upper[0]):
        return float("nan")
    return float(1.0 - np.mean(np.abs(np.asarray(human_p)[upper] - np.asarray(metric_p)[upper])))

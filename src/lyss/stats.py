"""Resampling statistics over per-entry rows: bootstrap CIs, paired bootstrap, paired approximate
randomization, McNemar's exact test and Holm's correction (spec §8, seed 003).

Everything is generic over a `CorpusStatistic`: per-entry rows (n × k) whose column sums give the corpus
score through a vectorised formula. chrF++/BLEU/TER rows are sacrebleu's sufficient statistics, a mean
metric's rows are [value, defined], the composite's rows are its metrics' rows side by side. A resample
is then a count matrix times the rows, evaluated for a whole block of resamples at once, and nothing is
ever re-scored from strings.

The random draws and p-values follow sacrebleu's `significance` module so numbers are comparable: a
`numpy.random.default_rng(seed)`; bootstrap indices from `choice(n, (R, n))`; AR swap masks from
`integers(2, (T, n), dtype=bool)`; p = (c + 1) / (N + 1). With sacrebleu's seed the resamples are the
very ones sacrebleu draws. Draws are made in blocks of rows, which numpy turns into the same stream as
one big draw (tests check this), so memory stays at one block whatever the number of resamples.
"""

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import binom

# About this many matrix cells per block of resamples (8 bytes each): bounds memory for large corpora.
BLOCK_CELLS = 1 << 22
# numpy packs 32 boolean draws into one 32-bit word per call; blocks of whole words keep the stream
# identical to a single draw.
_BOOL_WORD = 32


@dataclass(frozen=True)
class CorpusStatistic:
    """Per-entry rows and the formula mapping their column sums (any leading axes) to a corpus score."""

    rows: np.ndarray
    formula: Callable[[np.ndarray], np.ndarray]

    @property
    def n_entries(self) -> int:
        return self.rows.shape[0]

    def score(self) -> float:
        return float(self.formula(self.rows.sum(axis=0)))

    def subset(self, index) -> "CorpusStatistic":
        """The same statistic over a subset of entries (a difficulty tier)."""
        return CorpusStatistic(self.rows[index], self.formula)


def _block_size(n_entries: int, multiple: int = 1) -> int:
    """Resamples per block: about BLOCK_CELLS cells, a whole number of `multiple`s, at least one."""
    return max(multiple, BLOCK_CELLS // max(1, n_entries) // multiple * multiple)


def _stack(statistics: Sequence[CorpusStatistic]) -> tuple[np.ndarray, list[slice]]:
    sizes = {s.n_entries for s in statistics}
    if len(sizes) != 1:
        raise ValueError(f"statistics cover different numbers of entries: {sorted(sizes)}")
    widths = np.cumsum([0] + [s.rows.shape[1] for s in statistics])
    slices = [slice(a, b) for a, b in zip(widths[:-1], widths[1:], strict=True)]
    return np.hstack([np.asarray(s.rows, dtype=np.float64) for s in statistics]), slices


def joint(parts: dict[str, CorpusStatistic], combine: Callable[[dict], np.ndarray]) -> CorpusStatistic:
    """One statistic from several over the same entries: their rows side by side, and a formula that
    scores each part on its columns and combines the part scores (the composite of its metrics)."""
    rows, slices = _stack(list(parts.values()))
    layout = dict(zip(parts, slices, strict=True))

    def formula(sums):
        return combine({name: parts[name].formula(sums[..., sl]) for name, sl in layout.items()})

    return CorpusStatistic(rows, formula)


def _blocks(total: int, size: int) -> Iterator[int]:
    for start in range(0, total, size):
        yield min(size, total - start)


def bootstrap_counts(n_entries: int, n_resamples: int, seed: int | None) -> Iterator[np.ndarray]:
    """Blocks of the (n_resamples × n_entries) matrix saying how often resample r draws entry i.

    Indices are drawn exactly as sacrebleu's paired bootstrap draws them, then counted per row.
    """
    if n_entries < 1:
        raise ValueError("cannot resample an empty set of entries")
    rng = np.random.default_rng(seed)
    for size in _blocks(n_resamples, _block_size(n_entries)):
        idx = rng.choice(n_entries, size=(size, n_entries), replace=True)
        flat = (idx + n_entries * np.arange(size)[:, None]).ravel()
        yield np.bincount(flat, minlength=size * n_entries).reshape(size, n_entries).astype(np.float64)


def bootstrap_scores(statistics: Sequence[CorpusStatistic], n_resamples: int,
                     seed: int | None) -> list[np.ndarray]:
    """Corpus scores of every statistic on the same `n_resamples` bootstrap resamples of the entries.

    Sharing one count matrix across statistics is what makes a paired bootstrap paired, and lets the
    composite be recomputed from the very resamples its metrics were scored on.
    """
    rows, slices = _stack(statistics)
    sums = np.vstack([counts @ rows for counts in bootstrap_counts(rows.shape[0], n_resamples, seed)])
    return [s.formula(sums[:, sl]) for s, sl in zip(statistics, slices, strict=True)]


def percentile_ci(samples: np.ndarray, alpha: float = 0.05) -> tuple[float | None, float | None]:
    """Percentile interval as order statistics (no interpolation), sacrebleu's `estimate_ci` rule
    generalised: with R sorted samples the bounds sit at 0-based positions ⌊R·α/2⌋ and R − ⌊R·α/2⌋ − 1,
    i.e. the 26th and 975th smallest of 1000 at α = 0.05. Resamples where the score is undefined (NaN)
    are dropped."""
    finite = np.sort(np.asarray(samples, dtype=np.float64)[np.isfinite(samples)])
    if finite.size == 0:
        return None, None
    lower = math.floor(finite.size * alpha / 2 + 1e-9)
    return float(finite[lower]), float(finite[finite.size - lower - 1])


def _p_value(exceeding: int, n_samples: int, observed: float) -> float:
    """sacrebleu/multeval: p = (c + 1) / (N + 1), c = how many of N null statistics exceed the observed one.

    One deliberate difference: when the observed difference is exactly 0 the p-value is 1. sacrebleu
    would give 1 / (N + 1) for two identical outputs (every null statistic is 0, none is > 0), calling a
    system significantly different from itself.
    """
    return 1.0 if observed == 0 else (exceeding + 1) / (n_samples + 1)


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
    for size in _blocks(n_trials, _block_size(n_entries, multiple=_BOOL_WORD)):
        yield rng.integers(2, size=(size, n_entries), dtype=bool).astype(np.float64)


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
    base_rows, slices = _stack(baselines)
    sys_rows, _ = _stack(systems)
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
    p = 1.0 if b + c == 0 else min(1.0, 2.0 * float(binom.cdf(min(b, c), b + c, 0.5)))
    return McNemar(int(both.sum()), b, c, p)


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

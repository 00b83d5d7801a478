"""Bootstrap resampling shared by every validation statistic.

A resample is stored as multiplicities (how often each unit was drawn), one row per resample, so a
statistic written for weighted data evaluates all resamples in one vectorised call. Drawing counts
from a multinomial with equal probabilities is the same distribution as drawing indices with
replacement.
"""

import numpy as np


def bootstrap_counts(n_units: int, resamples: int, seed: int | list[int]) -> np.ndarray:
    """(resamples, n_units) integer matrix; row b says how often each unit appears in resample b.

    `seed` may be a list such as [master seed, item index] to give each item its own stream."""
    if n_units < 1:
        raise ValueError("cannot resample an empty set")
    rng = np.random.default_rng(seed)
    return rng.multinomial(n_units, np.full(n_units, 1.0 / n_units), size=resamples)


def percentile_interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """Percentile bootstrap interval; resamples where the statistic is undefined (NaN) are dropped."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    if values.size == 0:
        return float("nan"), float("nan")
    alpha = 1.0 - confidence
    low, high = np.quantile(values, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)


def chunk_slices(total: int, chunk: int):
    """Consecutive slices of at most `chunk` elements covering range(total)."""
    chunk = max(1, chunk)
    for start in range(0, total, chunk):
        yield slice(start, min(start + chunk, total))


def rows_per_chunk(elements_per_row: int, budget: int = 4_000_000) -> int:
    """How many resamples to evaluate at once so that one chunk holds about `budget` numbers."""
    return max(1, budget // max(1, elements_per_row))

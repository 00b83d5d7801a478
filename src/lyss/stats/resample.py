"""The one resampler: bootstrap resamples as count matrices, drawn as sacrebleu draws them.

A resample is stored as multiplicities (how often each entry or unit was drawn), one row per resample,
so a statistic written for weighted data, or a corpus formula over summed per-entry rows, evaluates a
whole block of resamples in one array operation. The indices come from
`numpy.random.default_rng(seed).choice(n, (R, n))`, exactly sacrebleu's paired bootstrap, so with
sacrebleu's seed the resamples are the very ones sacrebleu draws. Draws are made in blocks of rows,
which numpy turns into the same stream as one big draw (tests check this), so memory stays at one
block whatever the number of resamples. `seed` may be a list such as [master seed, item index] to give
each item its own stream.
"""

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

# About this many matrix cells per block of resamples (8 bytes each): bounds memory for large corpora.
BLOCK_CELLS = 1 << 22

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


def block_size(n_entries: int, multiple: int = 1) -> int:
    """Resamples per block: about BLOCK_CELLS cells, a whole number of `multiple`s, at least one."""
    return max(multiple, BLOCK_CELLS // max(1, n_entries) // multiple * multiple)


def stack(statistics: Sequence[CorpusStatistic]) -> tuple[np.ndarray, list[slice]]:
    sizes = {s.n_entries for s in statistics}
    if len(sizes) != 1:
        raise ValueError(f"statistics cover different numbers of entries: {sorted(sizes)}")
    widths = np.cumsum([0] + [s.rows.shape[1] for s in statistics])
    slices = [slice(a, b) for a, b in zip(widths[:-1], widths[1:], strict=True)]
    return np.hstack([np.asarray(s.rows, dtype=np.float64) for s in statistics]), slices


def joint(parts: dict[str, CorpusStatistic], combine: Callable[[dict], np.ndarray]) -> CorpusStatistic:
    """One statistic from several over the same entries: their rows side by side, and a formula that
    scores each part on its columns and combines the part scores (the composite of its metrics)."""
    rows, slices = stack(list(parts.values()))
    layout = dict(zip(parts, slices, strict=True))

    def formula(sums):
        return combine({name: parts[name].formula(sums[..., sl]) for name, sl in layout.items()})

    return CorpusStatistic(rows, formula)


def blocks(total: int, size: int) -> Iterator[int]:
    for start in range(0, total, size):
        yield min(size, total - start)


def bootstrap_counts(n_entries: int, n_resamples: int, seed: int | None) -> Iterator[np.ndarray]:
    """Blocks of the (n_resamples × n_entries) matrix saying how often resample r draws entry i.

    Indices are drawn exactly as sacrebleu's paired bootstrap draws them, then counted per row.
    """
    if n_entries < 1:
        raise ValueError("cannot resample an empty set of entries")
    rng = np.random.default_rng(seed)
    for size in blocks(n_resamples, block_size(n_entries)):
        idx = rng.choice(n_entries, size=(size, n_entries), replace=True)
        flat = (idx + n_entries * np.arange(size)[:, None]).ravel()
        yield np.bincount(flat, minlength=size * n_entries).reshape(size, n_entries).astype(np.float64)


def bootstrap_scores(statistics: Sequence[CorpusStatistic], n_resamples: int,
                     seed: int | None) -> list[np.ndarray]:
    """Corpus scores of every statistic on the same `n_resamples` bootstrap resamples of the entries.

    Sharing one count matrix across statistics is what makes a paired bootstrap paired, and lets the
    composite be recomputed from the very resamples its metrics were scored on.
    """
    rows, slices = stack(statistics)
    sums = np.vstack([counts @ rows for counts in bootstrap_counts(rows.shape[0], n_resamples, seed)])
    return [s.formula(sums[:, sl]) for s, sl in zip(statistics, slices, strict=True)]


def count_matrix(n_units: int, n_resamples: int, seed) -> np.ndarray:
    """All blocks of `bootstrap_counts` stacked: (n_resamples × n_units), for the small unit counts of
    human-judgment studies (items, not entries) where one matrix fits easily."""
    return np.vstack(list(bootstrap_counts(n_units, n_resamples, seed))).astype(np.int64)


def chunk_slices(total: int, chunk: int):
    """Consecutive slices of at most `chunk` elements covering range(total)."""
    chunk = max(1, chunk)
    for start in range(0, total, chunk):
        yield slice(start, min(start + chunk, total))


def rows_per_chunk(elements_per_row: int, budget: int = BLOCK_CELLS) -> int:
    """How many resamples to evaluate at once so that one chunk holds about `budget` numbers."""
    return max(1, budget // max(1, elements_per_row))


def in_order(work, items: list, workers: int = 1) -> list:
    """`[work(item) for item in items]`, on `workers` threads: NumPy releases the GIL inside its array loops,
    so the evidence stage's per-metric and per-pair statistics run side by side. Each item's work is
    independent and its result lands at its own index, so the output is the same whatever `workers` is."""
    if workers <= 1 or len(items) <= 1:
        return [work(item) for item in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(work, items))


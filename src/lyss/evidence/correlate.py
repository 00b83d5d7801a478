"""Agreement between automatic metrics and human scores, with bootstrap intervals and paired tests.

Two levels, as in the WMT metrics tasks: segment level (every scored (system, item) row, or the
per-item average with grouping) and system level (one score per system). A system's score is the
statistic the leaderboard shows: the metric's corpus formula over the system's rows when the data
carry it (`ScoreData.corpus`: corpus chrF++ from summed sufficient statistics, the card's composite),
the mean of its rows otherwise. Intervals resample items (rows when there is no item column), so all
systems of an item stay together. Beside Pearson the system level reports soft pairwise accuracy
(SPA, WMT24's official system-level statistic, lyss.stats.soft_pairwise_accuracy).

The significance test is the paired permutation test PERM-BOTH of Deutsch et al. (2021) as used in
WMT: z-score both metrics, swap their scores on a random half of the units, and see how often the
swapped difference is at least as large as the observed one. The units are the rows at segment level
and the systems at system level (mt-metrics-eval's `PermutationSigDiff` on system-level scores): a
corpus score is not a sum of per-row values that could be swapped between two metrics.
"""

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from lyss.errors import InputError
from lyss.metrics.base import ratio_of_sums
from lyss.stats import (
    CorpusStatistic,
    chunk_slices,
    count_matrix,
    in_order,
    one_sided_p_values,
    pairwise_permutation_p_values,
    percentile_interval,
    rows_per_chunk,
    soft_pairwise_accuracy,
    swap_mask_matrix,
)
from lyss.stats.correlation import (
    kendall_tau_b,
    nan_weighted_mean,
    pair_statistics,
    sorted_kendall_accuracy,
    swapped_kendall_tau_b,
    swapped_pearson,
    weighted_pearson,
    weighted_spearman,
)
from lyss.tables import CsvTable, check_unique

STATISTICS = ("pearson", "spearman", "kendall", "pairwise_accuracy")
# Above this many rows in one flat (ungrouped) segment level, rank statistics are computed by sorting.
SORTING_ABOVE_ROWS = 1500
CORRELATION_COLUMNS = ["level", "metric", "n", "grouping", "epsilon"] + [
    f"{stat}{suffix}" for stat in STATISTICS for suffix in ("", "_lo", "_hi")
] + ["soft_pairwise_accuracy", "spa_items"]
SIGNIFICANCE_COLUMNS = ["level", "statistic", "metric_a", "metric_b", "delta", "p_value", "permutations"]


@dataclass
class ScoreData:
    path: str
    human: np.ndarray
    metrics: dict[str, np.ndarray]
    systems: list[str] | None
    items: list[str] | None
    item_col: str | None
    # metric → its corpus statistic over these rows (rows aligned with `human`); metrics without one are
    # the mean of their rows at system level.
    corpus: dict[str, CorpusStatistic] = field(default_factory=dict)
    # Metrics where lower is better: SPA asks "does the metric rank i above j", so they enter negated.
    lower: frozenset = frozenset()

    def statistic(self, name: str) -> CorpusStatistic:
        """The system-level statistic of a metric: its corpus statistic, else the mean of its rows."""
        if name in self.corpus:
            return self.corpus[name]
        values = np.asarray(self.metrics[name], dtype=float)
        return CorpusStatistic(np.column_stack([values, np.ones(len(values))]), ratio_of_sums)


@dataclass(frozen=True)
class CorrelationOptions:
    group_by_item: bool = False
    calibrate_ties: bool = True
    resamples: int = 1000
    permutations: int = 1000
    confidence: float = 0.95
    seed: int = 0
    alpha: float = 0.05  # significance level of the tests drawn with these options (the raters' table)
    # Threads for the per-metric and per-pair work (NumPy releases the GIL in its array loops); the results,
    # and their order, do not depend on it.
    workers: int = 1
    # The statistics to compute; leaving out pairwise_accuracy spares the tie-calibration sort, the
    # costliest step when the metric values change with every permutation.
    statistics: tuple[str, ...] = STATISTICS


def read_scores(
    table: CsvTable, human_col: str, metric_cols: list[str], system_col: str | None, item_col: str | None
) -> ScoreData:
    """One row per scored translation; a (system, item) pair may occur only once."""
    table.require(human_col, *metric_cols, *(c for c in (system_col, item_col) if c))
    human = table.numbers(human_col)
    metrics = {name: table.numbers(name) for name in metric_cols}
    systems = table.strings(system_col) if system_col else None
    items = table.strings(item_col) if item_col else None
    if systems and items:
        check_unique(table, zip(systems, items, strict=True), item_col,
                     lambda key: f"system '{key[0]}' scored item '{key[1]}'")
    return ScoreData(table.path, human, metrics, systems, items, item_col)


def _statistics(human, metric, weights, group_weights, calibrate_ties, wanted) -> dict[str, np.ndarray]:
    """The `wanted` statistics for grids (..., G, s); per-group values are averaged over groups."""
    out = {}
    if "pairwise_accuracy" not in wanted and "kendall" in wanted and weights is None:
        out["kendall"] = nan_weighted_mean(kendall_tau_b(human, metric), group_weights)
    elif "kendall" in wanted or "pairwise_accuracy" in wanted:
        # τ does not depend on tie calibration; only the accuracy needs the (costly) epsilon search.
        calibrate = calibrate_ties and "pairwise_accuracy" in wanted
        tau, accuracy, _ = pair_statistics(human, metric, weights, group_weights, calibrate)
        out["kendall"], out["pairwise_accuracy"] = nan_weighted_mean(tau, group_weights), accuracy
    if "pearson" in wanted:
        out["pearson"] = nan_weighted_mean(weighted_pearson(human, metric, weights), group_weights)
    if "spearman" in wanted:
        out["spearman"] = nan_weighted_mean(weighted_spearman(human, metric, weights), group_weights)
    return {name: out[name] for name in wanted}


def _unit_index(labels: list[str] | None, n: int) -> tuple[np.ndarray, int]:
    """Resampling unit of each row: its item when items are known, else the row itself."""
    if labels is None:
        return np.arange(n), n
    _, index = np.unique(np.asarray(labels), return_inverse=True)
    return index, int(index.max()) + 1


class SegmentLevel:
    """Segment level over all rows (one group), or per item and averaged (`group_by_item`)."""

    name = "segment"

    def __init__(self, data: ScoreData, options: CorrelationOptions):
        self.calibrate = options.calibrate_ties
        self.grouped = options.group_by_item
        self.wanted = options.statistics
        n = len(data.human)
        if self.grouped:
            if data.items is None:
                raise ValueError("grouping by item needs an item column")
            self.grid = _item_grid(data)
            self.units = len(self.grid)
            self.human = data.human[self.grid]
        else:
            self.unit_of_row, self.units = _unit_index(data.items, n)
            self.human = data.human[None, :]
        self.size = n
        # One flat list of many rows: n² pairs per resample is too many, so Kendall and accuracy come
        # from sorting, and accuracy is not tie-calibrated (its epsilon search needs every pair's gap).
        self.by_sorting = not self.grouped and n > SORTING_ABOVE_ROWS
        if self.by_sorting:
            self.calibrate = False

    def evaluate(self, metric: np.ndarray, counts: np.ndarray | None = None,
                 wanted: tuple[str, ...] | None = None) -> dict[str, np.ndarray]:
        """Statistics (`wanted`, default the options') for each row of `metric` (B, n) or for each resample in
        `counts` (B, units)."""
        metric = np.atleast_2d(metric)
        wanted = wanted or self.wanted
        if self.by_sorting:
            return self._evaluate_by_sorting(metric, counts, wanted)
        batch = max(len(metric), 0 if counts is None else len(counts))
        # numbers per resample: pairs plus observations, per group
        s = self.grid.shape[1] if self.grouped else self.size
        width = (len(self.grid) if self.grouped else 1) * (s * (s - 1) // 2 + s)
        parts = []
        for part in chunk_slices(batch, rows_per_chunk(width, budget=2_000_000)):
            m = metric[part] if len(metric) > 1 else metric
            c = None if counts is None else counts[part]
            if self.grouped:
                parts.append(_statistics(self.human, m[:, self.grid], None, c, self.calibrate, wanted))
            else:
                w = None if c is None else c[:, None, self.unit_of_row]
                parts.append(_statistics(self.human, m[:, None, :], w, None, self.calibrate, wanted))
        return _join(parts)

    def evaluate_swapped(self, a: np.ndarray, b: np.ndarray, swap: np.ndarray) -> dict[str, np.ndarray]:
        """`evaluate(np.where(swap, b, a))`, the same numbers: the permutation test's swapped pairs of metrics.
        Per item, Kendall and Pearson take the shortcuts of lyss.stats.correlation (swapped_kendall_tau_b: to
        the bit; swapped_pearson: to rounding), the costliest part of the evidence stage; any other
        statistic is computed on the swapped values."""
        shortcuts = {"kendall": swapped_kendall_tau_b, "pearson": swapped_pearson}
        if not (self.grouped and "pairwise_accuracy" not in self.wanted):
            return self.evaluate(np.where(swap, b, a))
        rest = tuple(s for s in self.wanted if s not in shortcuts)
        out = self.evaluate(np.where(swap, b, a), wanted=rest) if rest else {}
        per_row = self.grid.shape[0] * self.grid.shape[1] * 4  # masks, their products, a few per item
        for name in set(self.wanted) & set(shortcuts):
            out[name] = np.concatenate([
                nan_weighted_mean(shortcuts[name](self.human, a[self.grid], b[self.grid], swap[part][:, self.grid]))
                for part in chunk_slices(len(swap), rows_per_chunk(per_row))])
        return {name: out[name] for name in self.wanted}

    def _evaluate_by_sorting(self, metric: np.ndarray, counts: np.ndarray | None,
                             wanted: tuple[str, ...]) -> dict[str, np.ndarray]:
        batch = max(len(metric), 0 if counts is None else len(counts))
        rank_stats = [s for s in wanted if s in ("kendall", "pairwise_accuracy")]
        moment_stats = tuple(s for s in wanted if s in ("pearson", "spearman"))
        out = {name: np.empty(batch) for name in rank_stats}
        parts = []
        for part in chunk_slices(batch, rows_per_chunk(self.size)):
            m = metric[part] if len(metric) > 1 else metric
            w = None if counts is None else counts[part][:, self.unit_of_row]
            if moment_stats:
                parts.append(_statistics(self.human, m[:, None, :], None if w is None else w[:, None, :], None,
                                         False, moment_stats))
            for offset, b in enumerate(range(part.start, part.stop)):
                values = m[offset if len(m) > 1 else 0]
                index = np.arange(self.size) if w is None else np.repeat(np.arange(self.size), w[offset])
                tau, accuracy = sorted_kendall_accuracy(self.human[0, index], values[index])
                for name, value in (("kendall", tau), ("pairwise_accuracy", accuracy)):
                    if name in out:
                        out[name][b] = value
        joined = _join(parts) if parts else {}
        return {name: joined[name] if name in joined else out[name] for name in wanted}


# Scores are rounded before they are ranked (z-scores, system scores): values equal but for their last bits
# (another CPU, another BLAS, NumPy 1 or 2 summing in another order) must tie, or not, on every machine alike,
# since a rank statistic over tied units is undefined and dropped. 9 decimals is far below any real difference.
RANKED_DECIMALS = 9


class SystemLevel:
    """System level: one score per system from its (resampled) rows, then the statistics over systems.

    A metric given as a CorpusStatistic is scored with its own corpus formula over each system's rows; a
    plain array by the mean of its rows. Pairwise accuracy here is plain sign agreement between system
    pairs (no tie calibration)."""

    name = "system"

    def __init__(self, data: ScoreData, options: CorrelationOptions):
        self.wanted = options.statistics
        self.names, self.system_of_row = np.unique(np.asarray(data.systems), return_inverse=True)
        self.onehot = np.eye(len(self.names))[self.system_of_row]
        self.rows_of_system = [np.flatnonzero(self.system_of_row == s) for s in range(len(self.names))]
        self.unit_of_row, self.units = _unit_index(data.items, len(data.human))
        self.human_rows = data.human
        self.size = len(self.names)
        self.items = data.items
        self.permutations, self.seed = options.permutations, options.seed
        self._human_p = None

    def _means(self, values: np.ndarray, weights: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.round(((weights * values) @ self.onehot) / (weights @ self.onehot), RANKED_DECIMALS)

    def corpus_scores(self, statistic: CorpusStatistic, counts: np.ndarray | None = None) -> np.ndarray:
        """(resamples × systems) scores: the statistic's formula over each system's (weighted) rows."""
        rows = np.asarray(statistic.rows, dtype=float)
        weights = np.ones((1, len(rows))) if counts is None else counts[:, self.unit_of_row].astype(float)
        out = np.empty((len(weights), self.size))
        for s, index in enumerate(self.rows_of_system):
            with np.errstate(invalid="ignore", divide="ignore"):
                out[:, s] = statistic.formula(weights[:, index] @ rows[index])
        return np.round(out, RANKED_DECIMALS)

    def evaluate(self, metric, counts: np.ndarray | None = None,
                 wanted: tuple[str, ...] | None = None) -> dict[str, np.ndarray]:
        """Statistics (`wanted`, default the options') over the systems' scores, per resample in `counts`."""
        wanted = wanted or self.wanted
        if isinstance(metric, CorpusStatistic):
            weights = np.ones((1, len(self.human_rows))) if counts is None else counts[:, self.unit_of_row]
            human = self._means(self.human_rows, weights)[:, None, :]
            scores = self.corpus_scores(metric, counts)[:, None, :]
            return _statistics(human, scores, None, None, False, wanted)
        metric = np.atleast_2d(metric)
        if counts is None:  # plain means: one matrix product, no per-row weights
            size = self.onehot.sum(axis=0)
            human = np.round(self.human_rows @ self.onehot / size, RANKED_DECIMALS)[None, None, :]
            means = np.round(metric @ self.onehot / size, RANKED_DECIMALS)
            return _statistics(human, means[:, None, :], None, None, False, wanted)
        weights = counts[:, self.unit_of_row]
        parts = []
        for part in chunk_slices(max(len(metric), len(weights)), rows_per_chunk(self.onehot.size)):
            w = weights[part] if len(weights) > 1 else weights
            m = metric[part] if len(metric) > 1 else metric
            human = self._means(self.human_rows, w)[:, None, :]
            parts.append(_statistics(human, self._means(m, w)[:, None, :], None, None, False, wanted))
        return _join(parts)

    def common_items(self) -> np.ndarray | None:
        """(systems × items) row indices of the items every system has, in one order; None without items.
        The paired tests behind SPA compare two systems on the same segments."""
        if self.items is None:
            return None
        row_of = [dict(zip(np.asarray(self.items)[index], index, strict=True)) for index in self.rows_of_system]
        shared = sorted(set.intersection(*(set(r) for r in row_of)))
        return np.array([[r[item] for item in shared] for r in row_of], dtype=int).reshape(self.size, len(shared))

    def soft_pairwise_accuracy(self, statistic: CorpusStatistic, lower: bool = False) -> tuple[float, int]:
        """(SPA over the items every system has, how many items that is); NaN with fewer than 2 items.
        Human and metric p-values come from the same swap masks, as in mt-metrics-eval."""
        grid = self.common_items()
        if grid is None or grid.shape[1] < 2 or self.size < 2:
            return float("nan"), 0 if grid is None else grid.shape[1]
        masks = swap_mask_matrix(grid.shape[1], self.permutations, [self.seed, 1])
        if self._human_p is None:
            human = [CorpusStatistic(np.column_stack([self.human_rows[g], np.ones(len(g))]), ratio_of_sums)
                     for g in grid]
            self._human_p = pairwise_permutation_p_values(human, masks)
        oriented = negated(statistic) if lower else statistic
        metric = [CorpusStatistic(np.asarray(oriented.rows)[g], oriented.formula) for g in grid]
        return soft_pairwise_accuracy(self._human_p, pairwise_permutation_p_values(metric, masks)), grid.shape[1]


def _join(parts: list[dict]) -> dict[str, np.ndarray]:
    return {name: np.concatenate([np.atleast_1d(part[name]) for part in parts]) for name in parts[0]}


def _item_grid(data: ScoreData) -> np.ndarray:
    """Row indices as an (items x rows-per-item) grid; grouping needs the same count per item."""
    rows_of: dict[str, list[int]] = {}
    for row, item in enumerate(data.items):
        rows_of.setdefault(item, []).append(row)
    sizes = {item: len(rows) for item, rows in rows_of.items()}
    common = max(set(sizes.values()), key=list(sizes.values()).count)
    for item, size in sizes.items():
        if size != common or size < 2:
            raise InputError(
                data.path,
                f"--group-by-item needs at least 2 and the same number of rows per "
                f"item; item '{item}' has {size}, most items have {common}",
                field=data.item_col,
            )
    return np.array(list(rows_of.values()))


def levels_for(data: ScoreData, options: CorrelationOptions) -> list:
    levels = [SegmentLevel(data, options)]
    if data.systems is not None:
        levels.append(SystemLevel(data, options))
    return levels


def correlation_table(data: ScoreData, levels: list, options: CorrelationOptions) -> list[dict]:
    """One row per (level, metric): each statistic with its percentile bootstrap interval.

    The same resamples (one count matrix per level) serve every metric, so intervals of different
    metrics are comparable. System rows add SPA (a point value: its p-values already carry the
    uncertainty of each system pair)."""
    rows = []
    for level in levels:
        counts = count_matrix(level.units, options.resamples, options.seed)

        def row_of(name, level=level, counts=counts) -> dict:
            values = data.metrics[name]
            scored = data.statistic(name) if level.name == "system" else values
            point = level.evaluate(scored)
            boot = level.evaluate(scored, counts)
            lower = name in data.lower
            if lower and "pairwise_accuracy" in options.statistics:
                # Accuracy has no sign to read agreement from: it counts the pairs the metric ranks as people
                # do, so a lower-is-better metric is asked with its values negated (as SPA is).
                flipped, only = negated(scored), ("pairwise_accuracy",)
                point["pairwise_accuracy"] = level.evaluate(flipped, wanted=only)["pairwise_accuracy"]
                boot["pairwise_accuracy"] = level.evaluate(flipped, counts, wanted=only)["pairwise_accuracy"]
            row = {"level": level.name, "metric": name, "n": level.size}
            for stat in options.statistics:
                low, high = percentile_interval(boot[stat], options.confidence)
                row.update({stat: float(point[stat][0]), f"{stat}_lo": low, f"{stat}_hi": high})
            if level.name == "segment":
                row["grouping"] = "item" if options.group_by_item else "none"
                row["epsilon"] = (_epsilon(level, negated(values) if lower else values)
                                  if "pairwise_accuracy" in options.statistics else None)
            else:
                row["soft_pairwise_accuracy"], row["spa_items"] = level.soft_pairwise_accuracy(scored, lower)
            return row

        rows.extend(in_order(row_of, list(data.metrics), options.workers))
    return rows


def negated(scored):
    """A metric's values (or corpus statistic) with the sign flipped: lower-is-better read as higher."""
    if isinstance(scored, CorpusStatistic):
        formula = scored.formula
        return CorpusStatistic(scored.rows, lambda sums: -formula(sums))
    return -np.asarray(scored, dtype=float)


def ties_every_pair(level: SegmentLevel, values: np.ndarray, epsilon: float | None) -> bool:
    """Whether tie calibration chose a threshold at or above every gap the metric has within a group: its
    accuracy is then only the share of pairs the raters tie, whatever the metric says (on MQM data with many
    error-free translations that share beats every metric's ranking)."""
    if not epsilon:
        return False
    grouped = values[level.grid] if level.grouped else values[None, :]
    return bool(epsilon >= np.nanmax(np.ptp(grouped, axis=-1)))


def _epsilon(level: SegmentLevel, values: np.ndarray) -> float:
    """The tie threshold chosen by tie calibration (0 without calibration)."""
    if not level.calibrate:
        return 0.0
    human = level.human
    metric = values[level.grid] if level.grouped else values[None, :]
    return float(pair_statistics(human, metric, None, None, True)[2])


def _zscore(values: np.ndarray) -> np.ndarray:
    spread = values.std()
    return np.round((values - values.mean()) / (spread if spread > 0 else 1.0), RANKED_DECIMALS)


def significance_table(data: ScoreData, levels: list, options: CorrelationOptions) -> list[dict]:
    """Paired permutation test for every pair of metrics, each statistic and level.

    Two rows per pair, one per direction: p_value is the one-sided p for "metric_a correlates
    better than metric_b", (1 + #permuted deltas >= observed) / (1 + permutations). The swap masks are
    the project's one permutation draw (lyss.stats.swap_masks), pair k seeded [seed, k]. At system
    level the swapped units are the systems' z-scored scores (see the module docstring)."""
    rows = []
    names = list(data.metrics)
    for level in levels:
        system = level.name == "system"
        if system:
            human = (data.human @ level.onehot / level.onehot.sum(axis=0))[None, None, :]
            scores = {m: level.corpus_scores(data.statistic(m))[0] for m in names}

            def evaluate(values, human=human):
                return _statistics(human, np.atleast_2d(values)[:, None, :], None, None, False, options.statistics)
        else:
            scores, evaluate = data.metrics, level.evaluate

        def rows_of(pair, level=level, system=system, scores=scores, evaluate=evaluate) -> list[dict]:
            k, (a, b) = pair
            za, zb = _zscore(scores[a]), _zscore(scores[b])
            swap = swap_mask_matrix(len(za), options.permutations, [options.seed, k])
            if system:
                first, second = evaluate(np.where(swap, zb, za)), evaluate(np.where(swap, za, zb))
            else:
                first, second = level.evaluate_swapped(za, zb, swap), level.evaluate_swapped(zb, za, swap)
            observed_a, observed_b = evaluate(za), evaluate(zb)
            out = []
            for stat in options.statistics:
                delta = float(observed_a[stat][0] - observed_b[stat][0])
                p_ab, p_ba, used = one_sided_p_values(first[stat] - second[stat], delta)
                common = {"level": level.name, "statistic": stat, "permutations": used}
                out.append({**common, "metric_a": a, "metric_b": b, "delta": delta, "p_value": p_ab})
                out.append({**common, "metric_a": b, "metric_b": a, "delta": -delta, "p_value": p_ba})
            return out

        for pair_rows in in_order(rows_of, list(enumerate(combinations(names, 2))), options.workers):
            rows.extend(pair_rows)
    return rows

"""Composite weights that answer to people (beyond the spec): learn non-negative
weights over the composite's metrics from human scores, and measure them only on rows they were not
fitted on.

Fitting: non-negative least squares of the human score on the normalised metric values (§4.2 scale),
both centred within each item. Centring removes what all systems share on a segment (its difficulty),
so the weights are chosen to order the translations *of one segment*, which is what segment Kendall
per item measures, and a system's mean follows from its segments. The weights are rescaled to sum
to 1 (§4.4), which changes no ranking.

Cross-validation: folds of whole systems (`by="system"`) or whole documents (`by="document"`); each
fold is scored with weights fitted on the other folds only. Every statistic is computed within one
fold and then averaged over folds: Kendall τ per item over the fold's rows, and system Pearson over
the fold's systems. Pooling held-out composites across folds would correlate numbers made with
different weights (a system's score would depend on which fold it fell in). A system fold therefore
holds at least MIN_FOLD_SYSTEMS systems (fewer folds are made, with a warning; too few systems is an
error), every fold needs an item rated for two systems, and document folds need every rated entry's
provenance. The spec composite and chrF++ alone are scored on the very same folds (they are not
fitted, so this only makes the comparison like for like).

A weight says how much a metric moves the composite only together with how much the metric moves:
`spread` is the standard deviation of its normalised per-entry values, and `influence` the share of
weight × spread, so a near-constant signal with a large weight does not look important.

A metric that departs from its most common value on fewer than `min_rows` of the rows a weight is fitted on
(the composite's own evidence bar, `composite.min_entries`) gets no fitted weight: its coefficient would be
read off a handful of rows, and being near-constant it would add a near-constant to every composite. On TED,
the hallucination rate flags 9 of 6,877 outputs; least squares gave it 0.84 of the weight (influence 0.08),
which lifted every system's composite to ≈ 0.9, *fluent*, for the same order as the semantic score alone
(docs/validation.md §6).
"""

from dataclasses import dataclass

import numpy as np
from scipy.optimize import nnls
from scipy.stats import pearsonr

from lyss.aggregate.composite import normalise
from lyss.evidence.composite_entries import entry_composite
from lyss.stats.correlation import kendall_tau_b, nan_weighted_mean

BASELINE_METRIC = "chrf_plus_plus"
# Below 3 systems a Pearson correlation over systems is ±1 or undefined.
MIN_FOLD_SYSTEMS = 3


class FoldError(ValueError):
    """The data cannot be split into folds that each measure something."""


@dataclass
class RatedRows:
    """Rated rows with their normalised metric values (columns defined on every row)."""

    human: np.ndarray
    systems: np.ndarray
    items: np.ndarray
    documents: np.ndarray
    features: dict[str, np.ndarray]  # metric → normalised values (0–1, 1 = perfect)


def rated_rows(human, systems, items, documents, columns: dict, candidates, normalisation) -> RatedRows:
    """The candidate metrics (those of the weight profiles) that are defined on every rated row."""
    features = {m: normalise(m, np.asarray(columns[m], dtype=float), normalisation)
                for m in candidates if m in columns and not np.isnan(columns[m]).any()}
    return RatedRows(np.asarray(human, dtype=float), np.asarray(systems), np.asarray(items),
                     np.asarray(documents), features)


def _centred_by_item(values: np.ndarray, items: np.ndarray) -> np.ndarray:
    _, index = np.unique(items, return_inverse=True)
    sums = np.bincount(index, weights=values)
    counts = np.bincount(index)
    return values - (sums / counts)[index]


def varying_rows(values: np.ndarray) -> int:
    """How many rows differ from the most common value: what a weight on the metric is estimated from."""
    _, counts = np.unique(values, return_counts=True)
    return int(len(values) - counts.max())


def too_sparse(rows: RatedRows, mask: np.ndarray, min_rows: int) -> dict[str, int]:
    """metric → its varying rows among those in `mask`, for the metrics below `min_rows` (fitted no weight)."""
    counts = {m: varying_rows(values[mask]) for m, values in rows.features.items()}
    return {m: n for m, n in counts.items() if n < min_rows}


def fit_weights(rows: RatedRows, mask: np.ndarray, min_rows: int = 0) -> dict[str, float]:
    """Non-negative weights summing to 1, fitted on the rows in `mask` (see the module docstring); a metric
    varying on fewer than `min_rows` of them gets 0. All-zero NNLS solutions (no metric helps) fall back to
    equal weights over the fitted metrics."""
    sparse = too_sparse(rows, mask, min_rows)
    names = [m for m in rows.features if m not in sparse] or list(rows.features)
    items = rows.items[mask]
    design = np.column_stack([_centred_by_item(rows.features[m][mask], items) for m in names])
    target = _centred_by_item(rows.human[mask], items)
    solution, _ = nnls(design, target)
    if solution.sum() <= 0:
        solution = np.ones(len(names))
    fitted = dict(zip(names, solution / solution.sum(), strict=True))
    return {m: float(fitted.get(m, 0.0)) for m in rows.features}


def item_kendall(human: np.ndarray, score: np.ndarray, items: np.ndarray) -> float:
    """Mean Kendall τ-b per item (items with fewer than two rows or a constant side are skipped)."""
    order = np.argsort(items, kind="stable")
    items, human, score = items[order], human[order], score[order]
    starts = np.flatnonzero(np.r_[True, items[1:] != items[:-1]])
    sizes = np.diff(np.r_[starts, len(items)])
    taus = []
    for size in np.unique(sizes[sizes >= 2]):
        rows = starts[sizes == size][:, None] + np.arange(size)
        taus.append(kendall_tau_b(human[rows], score[rows]))
    return float(nan_weighted_mean(np.concatenate(taus))) if taus else float("nan")


def system_pearson(human: np.ndarray, score: np.ndarray, systems: np.ndarray) -> float:
    """Pearson over systems of the mean human score and mean composite of each system's rows (NaN with
    fewer than MIN_FOLD_SYSTEMS systems or a constant side)."""
    names, index = np.unique(systems, return_inverse=True)
    if len(names) < MIN_FOLD_SYSTEMS:
        return float("nan")
    counts = np.bincount(index)
    human_means, score_means = np.bincount(index, human) / counts, np.bincount(index, score) / counts
    if np.ptp(human_means) == 0 or np.ptp(score_means) == 0:
        return float("nan")
    return float(pearsonr(human_means, score_means)[0])


def metric_spread(rows: RatedRows, weights: dict[str, float]) -> dict[str, dict[str, float]]:
    """metric → weight, spread (std of its normalised per-entry values) and influence (its share of
    Σ weight × spread)."""
    spread = {m: float(np.std(rows.features[m])) for m in weights if m in rows.features}
    total = sum(weights[m] * spread[m] for m in spread)
    return {m: {"weight": float(weights[m]), "spread": spread[m],
                "influence": weights[m] * spread[m] / total if total > 0 else float("nan")} for m in spread}


def folds_of(rows: RatedRows, by: str, n_folds: int, seed: int) -> tuple[list[np.ndarray], list[str]]:
    """(boolean masks of the held-out rows, warnings): whole systems or whole documents, shuffled with
    `seed` and dealt round-robin into folds. System folds hold at least MIN_FOLD_SYSTEMS systems each
    (fewer folds than asked, with a warning); FoldError when even two such folds cannot be made, when a
    rated entry has no document, or when a fold has no item rated for two systems."""
    warnings = []
    if by == "document":
        missing = int(np.sum(rows.documents == ""))
        if missing:
            raise FoldError(f"--by document needs the provenance (document) of every rated entry; "
                            f"{missing} of {len(rows.documents)} rated rows have none")
        groups = rows.documents
    else:
        groups = rows.systems
    names = np.unique(groups)
    names = names[np.random.default_rng(seed).permutation(len(names))]
    usable = len(names) // MIN_FOLD_SYSTEMS if by == "system" else len(names)
    if usable < 2:
        need = f"{2 * MIN_FOLD_SYSTEMS} systems" if by == "system" else "2 documents"
        raise FoldError(f"cross-validation by {by} needs at least {need} (two held-out folds"
                        f"{f' of {MIN_FOLD_SYSTEMS} systems' if by == 'system' else ''}); the data have {len(names)}")
    if n_folds > usable:
        if by == "system":
            warnings.append(f"{n_folds} folds would leave fewer than {MIN_FOLD_SYSTEMS} of the {len(names)} "
                            f"systems in a fold; using {usable} folds")
        n_folds = usable
    folds = [np.isin(groups, names[k::n_folds]) for k in range(n_folds)]
    for k, test in enumerate(folds):
        _, per_item = np.unique(rows.items[test], return_counts=True)
        if not np.any(per_item >= 2):
            raise FoldError(f"fold {k} has no item rated for two systems: Kendall per item is undefined there")
    return folds, warnings


def cross_validate(rows: RatedRows, spec_weights: dict, by: str, n_folds: int, seed: int, min_rows: int = 0) -> dict:
    """Held-out agreement of the spec composite, the fitted composite (`fit_weights` with `min_rows`) and
    chrF++ alone, per fold and averaged over folds (segment Kendall weighted by the fold's items, system
    Pearson unweighted)."""
    contenders = ("spec_composite", "fitted_composite", BASELINE_METRIC)
    # rows.features are already on the normalised 0–1 scale (rated_rows): no metric is normalised again.
    as_is = dict.fromkeys(rows.features, "identity")
    spec = entry_composite(rows.features, spec_weights, as_is)
    folds, warnings = folds_of(rows, by, n_folds, seed)
    fold_rows = []
    for k, test in enumerate(folds):
        fitted = fit_weights(rows, ~test, min_rows)
        scores = {"spec_composite": spec, "fitted_composite": entry_composite(rows.features, fitted, as_is),
                  BASELINE_METRIC: rows.features[BASELINE_METRIC]}
        row = {"fold": k, "rows": int(test.sum()), "systems": len(set(rows.systems[test])),
               "items": len(set(rows.items[test])), "weights": fitted}
        for name in contenders:
            score = scores[name][test]
            row[f"{name}_segment_kendall"] = item_kendall(rows.human[test], score, rows.items[test])
            row[f"{name}_system_pearson"] = system_pearson(rows.human[test], score, rows.systems[test])
        fold_rows.append(row)
    sizes = np.array([r["items"] for r in fold_rows], dtype=float)
    summary = {}
    for name in contenders:
        taus = np.array([r[f"{name}_segment_kendall"] for r in fold_rows])
        pearsons = np.array([r[f"{name}_system_pearson"] for r in fold_rows])
        summary[name] = {"segment_kendall": float(nan_weighted_mean(taus, sizes)),
                         "system_pearson": float(nan_weighted_mean(pearsons)),
                         "system_pearson_folds": int(np.sum(~np.isnan(pearsons)))}
    return {"by": by, "folds": fold_rows, "summary": summary, "warnings": warnings}

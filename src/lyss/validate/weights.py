"""Composite weights that answer to people (issue 10 item 6, beyond the spec): learn non-negative
weights over the composite's metrics from human scores, and measure them only on rows they were not
fitted on.

Fitting: non-negative least squares of the human score on the normalised metric values (§4.2 scale),
both centred within each item. Centring removes what all systems share on a segment (its difficulty),
so the weights are chosen to order the translations *of one segment*, which is what segment Kendall
per item measures, and a system's mean follows from its segments. The weights are rescaled to sum
to 1 (§4.4), which changes no ranking.

Cross-validation: folds of whole systems (`by="system"`) or whole documents (`by="document"`); each
fold is scored with weights fitted on the other folds only. Per fold: Kendall τ per item over the
fold's rows (a system fold needs at least two systems). System Pearson is computed once over all
systems from their held-out composite means. The spec composite and chrF++ alone are scored on the
very same folds (they are not fitted, so this only makes the comparison like for like).
"""

from dataclasses import dataclass

import numpy as np
from scipy.optimize import nnls
from scipy.stats import pearsonr

from lyss.aggregate.composite import normalise
from lyss.validate.composite_entries import entry_composite
from lyss.validate.stats import kendall_tau_b, nan_weighted_mean

BASELINE_METRIC = "chrf_plus_plus"


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


def fit_weights(rows: RatedRows, mask: np.ndarray) -> dict[str, float]:
    """Non-negative weights summing to 1, fitted on the rows in `mask` (see the module docstring).
    All-zero NNLS solutions (no metric helps) fall back to equal weights."""
    names = list(rows.features)
    items = rows.items[mask]
    design = np.column_stack([_centred_by_item(rows.features[m][mask], items) for m in names])
    target = _centred_by_item(rows.human[mask], items)
    solution, _ = nnls(design, target)
    if solution.sum() <= 0:
        solution = np.ones(len(names))
    solution = solution / solution.sum()
    return {m: float(w) for m, w in zip(names, solution, strict=True)}


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
    names, index = np.unique(systems, return_inverse=True)
    if len(names) < 3:
        return float("nan")
    counts = np.bincount(index)
    return float(pearsonr(np.bincount(index, human) / counts, np.bincount(index, score) / counts)[0])


def folds_of(rows: RatedRows, by: str, n_folds: int, seed: int) -> list[np.ndarray]:
    """Boolean masks of the held-out rows: whole systems or whole documents, shuffled with `seed` and
    dealt round-robin into `n_folds` folds (fewer when there are fewer groups)."""
    groups = rows.systems if by == "system" else rows.documents
    names = np.unique(groups)
    names = names[np.random.default_rng(seed).permutation(len(names))]
    n_folds = min(n_folds, len(names))
    return [np.isin(groups, names[k::n_folds]) for k in range(n_folds)]


def cross_validate(rows: RatedRows, spec_weights: dict, by: str, n_folds: int, seed: int) -> dict:
    """Held-out agreement of the spec composite, the fitted composite and chrF++ alone."""
    contenders = {"spec_composite": [], "fitted_composite": [], BASELINE_METRIC: []}
    held_out = {name: np.full(len(rows.human), np.nan) for name in contenders}
    # rows.features are already on the normalised 0–1 scale (rated_rows): no metric is normalised again.
    as_is = dict.fromkeys(rows.features, "identity")
    spec = entry_composite(rows.features, spec_weights, as_is)
    fold_rows = []
    for k, test in enumerate(folds_of(rows, by, n_folds, seed)):
        fitted = fit_weights(rows, ~test)
        scores = {"spec_composite": spec, "fitted_composite": entry_composite(rows.features, fitted, as_is),
                  BASELINE_METRIC: rows.features[BASELINE_METRIC]}
        row = {"fold": k, "rows": int(test.sum()), "systems": len(set(rows.systems[test])),
               "items": len(set(rows.items[test])), "weights": fitted}
        for name, score in scores.items():
            held_out[name][test] = score[test]
            tau = item_kendall(rows.human[test], score[test], rows.items[test])
            contenders[name].append((tau, len(set(rows.items[test]))))
            row[f"{name}_segment_kendall"] = tau
        fold_rows.append(row)
    summary = {}
    for name, per_fold in contenders.items():
        taus = np.array([t for t, _ in per_fold])
        sizes = np.array([n for _, n in per_fold], dtype=float)
        summary[name] = {"segment_kendall": float(nan_weighted_mean(taus, sizes)),
                         "system_pearson": system_pearson(rows.human, held_out[name], rows.systems)}
    return {"by": by, "folds": fold_rows, "summary": summary}

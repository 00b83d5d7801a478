"""Agreement between raters on an ordinal scale: kappa, Krippendorff's alpha and grade matches."""

import numpy as np


def quadratic_weighted_kappa(a, b, levels) -> float:
    """Cohen's kappa with squared distance weights over the full list of scale `levels`.

    Passing the whole scale (not only the observed grades) keeps the weight of a 1-vs-3
    disagreement the same whether or not anybody used grade 2.
    """
    levels = np.asarray(levels, dtype=float)
    index_a = np.searchsorted(levels, np.asarray(a, dtype=float))
    index_b = np.searchsorted(levels, np.asarray(b, dtype=float))
    k = len(levels)
    observed = np.zeros((k, k))
    np.add.at(observed, (index_a, index_b), 1.0)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / observed.sum()
    weights = (np.arange(k)[:, None] - np.arange(k)[None, :]) ** 2
    denominator = (weights * expected).sum()
    if denominator == 0:
        return float("nan")
    return float(1.0 - (weights * observed).sum() / denominator)


def krippendorff_alpha_ordinal(units: list) -> float:
    """Krippendorff's alpha with the ordinal distance, from the values each unit received.

    `units` holds one sequence of ratings per item (any number of raters, missing ones left out).
    Units with a single rating are not pairable and do not count (Krippendorff 2011, sec. C).
    """
    pairable = [np.asarray(u, dtype=float) for u in units if len(u) >= 2]
    if not pairable:
        return float("nan")
    values = np.unique(np.concatenate(pairable))
    k = len(values)
    coincidences = np.zeros((k, k))
    for unit in pairable:
        counts = np.bincount(np.searchsorted(values, unit), minlength=k).astype(float)
        coincidences += (np.outer(counts, counts) - np.diag(counts)) / (len(unit) - 1)
    n_c = coincidences.sum(axis=1)
    n = n_c.sum()
    # Ordinal distance: squared (number of pairable values from c to k, minus half of the two ends).
    cum = np.cumsum(n_c)
    between = cum[None, :] - cum[:, None] + n_c[:, None]
    between = np.where(np.arange(k)[None, :] >= np.arange(k)[:, None], between, between.T)
    delta = (between - (n_c[:, None] + n_c[None, :]) / 2) ** 2
    expected = (np.outer(n_c, n_c) * delta).sum()
    if expected == 0:
        return float("nan")
    return float(1.0 - (n - 1) * (coincidences * delta).sum() / expected)


def grade_agreement(human, grade, levels, threshold: float) -> dict:
    """How well one member's integer grades match the human grades.

    bias is mean(member) - mean(human) (positive: the member grades higher). Sensitivity,
    specificity and F1 treat "grade >= threshold" as the positive class on both sides.
    """
    human = np.asarray(human, dtype=float)
    grade = np.asarray(grade, dtype=float)
    gap = np.abs(grade - human)
    truth, said = human >= threshold, grade >= threshold
    tp = float(np.sum(truth & said))
    fp = float(np.sum(~truth & said))
    fn = float(np.sum(truth & ~said))
    tn = float(np.sum(~truth & ~said))
    return {
        "bias": float(grade.mean() - human.mean()),
        "exact": float(np.mean(gap == 0)),
        "within1": float(np.mean(gap <= 1)),
        "mae": float(gap.mean()),
        "qwk": quadratic_weighted_kappa(human, grade, levels),
        "sensitivity": _ratio(tp, tp + fn),
        "specificity": _ratio(tn, tn + fp),
        "f1": _ratio(2 * tp, 2 * tp + fp + fn),
    }


def per_grade_exact(human, grade, levels) -> list[tuple[float, int, float]]:
    """(grade, number of items the humans gave that grade, share of them the member matched)."""
    human = np.asarray(human, dtype=float)
    grade = np.asarray(grade, dtype=float)
    rows = []
    for level in levels:
        mask = human == level
        count = int(mask.sum())
        rows.append((float(level), count, float(np.mean(grade[mask] == level)) if count else float("nan")))
    return rows


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else float("nan")

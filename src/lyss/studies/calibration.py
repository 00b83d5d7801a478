"""Quantile mapping of judge scores onto the human grade distribution, fitted out of corpus.

A judge that grades everything a grade too high ranks items well but rarely hits the exact grade.
Quantile mapping keeps the judge's order and moves its scale: a score's mid-percentile among the
fitting scores is looked up in the fitting human grades. The fit for a corpus uses only the other
corpora (scores and human grades), so no human grade of the scored corpus is ever seen.
"""

import numpy as np


def quantile_map(fit_scores, fit_grades, scores) -> np.ndarray:
    """Map each score to the human grade at the same position in the fitting distributions.

    Position is the mid-percentile F = (#fit < s + #fit <= s) / (2 N), so tied scores land in the
    middle of the mass they share; the grade is the smallest g with P(human <= g) >= F (the lowest
    grade when F = 0). Integer arithmetic keeps exact percentiles exact.
    """
    fit_sorted = np.sort(np.asarray(fit_scores, dtype=float))
    grades_sorted = np.sort(np.asarray(fit_grades, dtype=float))
    scores = np.asarray(scores, dtype=float)
    n, m = len(fit_sorted), len(grades_sorted)
    twice_rank = np.searchsorted(fit_sorted, scores, "left") + np.searchsorted(fit_sorted, scores, "right")
    # index = ceil(F * m) - 1 with F = twice_rank / (2 n)
    index = -((-twice_rank * m) // (2 * n)) - 1
    return grades_sorted[np.clip(index, 0, m - 1)]


def leave_one_corpus_out(corpus, fit_scores, human, apply_scores=None) -> np.ndarray:
    """Calibrated grades for every row, each corpus mapped with a fit on all the other corpora.

    `apply_scores` (default: `fit_scores`) are the scores to map, e.g. grades given under another
    condition, which reuse the mapping fitted on the blind scores.
    """
    corpus = np.asarray(corpus)
    fit_scores = np.asarray(fit_scores, dtype=float)
    human = np.asarray(human, dtype=float)
    apply_scores = fit_scores if apply_scores is None else np.asarray(apply_scores, dtype=float)
    names = np.unique(corpus)
    if len(names) < 2:
        raise ValueError("leave-one-corpus-out calibration needs at least two corpora")
    calibrated = np.empty(len(corpus))
    for name in names:
        scored = corpus == name
        calibrated[scored] = quantile_map(fit_scores[~scored], human[~scored], apply_scores[scored])
    return calibrated

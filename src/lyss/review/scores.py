"""The speakers' ratings as `human_scores` (`method,id,human,annotators`, read by the evidence stage,
lyss.evidence.dataset), in two forms:

- direct assessment, z-normalised per rater as in WMT (Graham et al. 2017): each rater's scores minus the
  rater's mean, over the rater's standard deviation (population, over all the outputs the rater scored),
  then averaged over the output's raters. A harsh and a lenient speaker then count alike; a rater who gave
  every output the same score says nothing about their order and contributes 0.
- MQM-style error weights: an output's penalty is the sum of its marked spans (minor 1, major 5, as in
  Freitag et al. 2021), averaged over its raters and negated, so that higher is better as `human` requires.

Values are written at 6 decimals: the files are versioned, and the same ratings give the same bytes.
"""

import numpy as np

from lyss.review.ratings import Rating
from lyss.tables import write_csv

MQM_WEIGHTS = {"minor": 1.0, "major": 5.0}
HUMAN_COLUMNS = ["method", "id", "human", "annotators"]
DIGITS = 6


def rater_z_scores(ratings: list[Rating]) -> np.ndarray:
    """Each rating's score standardised within its rater (population standard deviation)."""
    scores = np.array([r.score for r in ratings], dtype=float)
    raters = np.array([r.rater for r in ratings])
    z = np.zeros(len(ratings))
    for rater in np.unique(raters):
        mine = raters == rater
        spread = scores[mine].std()
        if spread > 0:
            z[mine] = (scores[mine] - scores[mine].mean()) / spread
    return z


def mqm_penalty(rating: Rating) -> float:
    return sum(MQM_WEIGHTS[span.severity] for span in rating.errors)


def human_rows(ratings: list[Rating], where: dict[str, dict], values) -> list[dict]:
    """One row per rated output (method, entry id) with the mean of `values` over its raters."""
    grouped: dict[tuple[str, str], list[float]] = {}
    for rating, value in zip(ratings, values, strict=True):
        item = where[rating.item]
        grouped.setdefault((item["method"], item["id"]), []).append(float(value))
    return [{"method": method, "id": entry, "human": round(float(np.mean(v)), DIGITS), "annotators": len(v)}
            for (method, entry), v in sorted(grouped.items())]


def write_human_scores(ratings: list[Rating], key: dict, da_path, mqm_path) -> tuple[list[dict], list[dict]]:
    """Write both CSVs; returns their rows."""
    da = human_rows(ratings, key["items"], rater_z_scores(ratings))
    mqm = human_rows(ratings, key["items"], [-mqm_penalty(r) for r in ratings])
    write_csv(da_path, HUMAN_COLUMNS, da)
    write_csv(mqm_path, HUMAN_COLUMNS, mqm)
    return da, mqm

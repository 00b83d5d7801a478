"""Seed 004 against the speakers: can a calibrated jury of LLM judges stand in where speakers are scarce?

Input: `lyss judge` output for the reviewed methods, one file per judge and method (`<dir>/<judge>/<method>.jsonl`,
rows `{"id", "grade", "probabilities", "error"}` in the 1–5 rubric). A judge's score for an output is its
expected grade (Σ grade × probability; the grade itself when the server gave no probabilities); the jury's
score is the mean of its judges' scores, as in seed 004.

Seed 004 found that judges rank well but sit on a scale shifted from people's, and that quantile mapping onto
the human distribution, fitted where the scored items are not, fixes it (lyss.studies.calibration). Here the
human distribution is the speakers' mean 0–100 score per output, and the fit for an output uses only the
other folds of segments (five folds by segment, every system's output of a segment in the same fold), so no
speaker rating of a segment calibrates that segment. Reported for each judge alone and for the jury, on the
outputs every judge graded: Pearson and Kendall τ-b with the speakers' mean, mean absolute error on the 0–100
scale after calibration, and how often the calibrated score lands on the speakers' side of the neutral point
for the outputs the speakers' interval rule decided (usable or unusable).
"""

from pathlib import Path

import numpy as np
from scipy.stats import kendalltau, pearsonr

from lyss.errors import InputError
from lyss.io import iter_jsonl
from lyss.review.ratings import Rating
from lyss.review.statistics import UNUSABLE, USABLE
from lyss.studies.calibration import leave_one_corpus_out

FOLDS = 5
JURY = "jury"


def read_judge_scores(judges_dir, methods) -> dict[str, dict[tuple[str, str], float]]:
    """judge → (method, entry id) → expected grade, from `<judges_dir>/<judge>/<method>.jsonl`."""
    judges = {}
    for folder in sorted(p for p in Path(judges_dir).iterdir() if p.is_dir()):
        scores = {}
        for method in methods:
            path = folder / f"{method}.jsonl"
            if not path.exists():
                continue
            for line, row in iter_jsonl(path):
                if row.get("error") is not None:
                    continue
                probabilities = row.get("probabilities") or {}
                try:
                    value = (sum(int(g) * float(p) for g, p in probabilities.items()) if probabilities
                             else float(row["grade"]))
                except (KeyError, TypeError, ValueError):
                    raise InputError(path, "expected a 1-5 grade or its probabilities", line=line,
                                     field="probabilities") from None
                scores[(method, str(row.get("id")))] = value
        if scores:
            judges[folder.name] = scores
    if not judges:
        raise InputError(judges_dir, "no `lyss judge` output for the reviewed methods (<judge>/<method>.jsonl)")
    return judges


def _agreement(score, human, labels, neutral) -> dict:
    decided = np.isin(labels, [USABLE, UNUSABLE])
    said_usable = score > neutral
    return {"pearson": float(pearsonr(score, human).statistic), "kendall": float(kendalltau(score, human).statistic),
            "mae": float(np.mean(np.abs(score - human))),
            "label_agreement": float(np.mean(said_usable[decided] == (labels[decided] == USABLE)))
            if decided.any() else None,
            "decided_outputs": int(decided.sum())}


def jury_against_speakers(ratings: list[Rating], label_rows: list[dict], key: dict, judges: dict,
                          neutral: float) -> dict:
    """Each judge and the jury, raw and calibrated, against the speakers on the outputs every judge graded."""
    means: dict[str, list[float]] = {}
    for rating in ratings:
        means.setdefault(rating.item, []).append(rating.score)
    label_of = {row["item"]: row["class_ci"] for row in label_rows}
    items = sorted(i for i in means if all((key["items"][i]["method"], key["items"][i]["id"]) in s
                                           for s in judges.values()))
    if len(items) < FOLDS:
        raise InputError("judges", f"only {len(items)} reviewed outputs have a grade from every judge")
    segments = sorted({key["items"][i]["id"] for i in items})
    fold_of = {segment: k % FOLDS for k, segment in enumerate(segments)}
    folds = np.array([fold_of[key["items"][i]["id"]] for i in items])
    human = np.array([np.mean(means[i]) for i in items])
    labels = np.array([label_of[i] for i in items])
    raw = {name: np.array([scores[(key["items"][i]["method"], key["items"][i]["id"])] for i in items])
           for name, scores in judges.items()}
    raw[JURY] = np.mean([raw[name] for name in judges], axis=0)
    members = {}
    for name, score in raw.items():
        calibrated = leave_one_corpus_out(folds, score, human)
        members[name] = {"bias": float(np.mean((score - 1) * 25 - human)),  # 1–5 laid on 0–100, minus the speakers
                         "raw": _agreement((score - 1) * 25, human, labels, neutral),
                         "calibrated": _agreement(calibrated, human, labels, neutral)}
    ranked = sorted(raw, key=lambda n: -members[n]["calibrated"]["kendall"])
    return {"outputs": len(items), "judges": sorted(judges), "folds": FOLDS, "members": members,
            "jury_rank_by_calibrated_kendall": ranked.index(JURY) + 1}

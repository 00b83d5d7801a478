"""What the speakers' ratings say: how far they agree, which outputs they find usable, and each method's
verdict, with the spec §1.6 bar (200+ segment pairs, each rated by 3+ bilingual speakers).

- Agreement: Krippendorff's α at the interval level (the `krippendorff` package) over all outputs rated
  twice or more, and Kendall's τ-b between every two raters on the outputs both rated.
- Labels: seed 000's two rules on each output's raw 0–100 scores around `review.neutral` (lyss.studies.labels):
  the bootstrap interval of the mean lies above it → usable, below → unusable, else undecided; and the
  restrictive rule, a label only when `review.share` (80%) of the raters are on one side (usable /
  unusable), or exactly at the neutral point (borderline), else undecided. Raw scores, not z-scores: "usable"
  is a point on the speakers' scale, which z-normalisation (made for ranking) would move to the sample's mean.
- Verdict: a method is usable when at least `review.usable_share` of its labelled outputs are usable by the
  interval rule (the rule the spec's source presents as its own).
"""

from collections import Counter
from itertools import combinations

import krippendorff
import numpy as np
from scipy.stats import kendalltau

from lyss.evidence.dataset import MIN_ANNOTATORS, MIN_SEGMENTS
from lyss.review.ratings import Rating
from lyss.review.settings import ReviewSettings
from lyss.studies.labels import LabelRules, Ratings, crosstab, label_items

USABLE, UNUSABLE, UNDECIDED, BORDERLINE, INSUFFICIENT = "usable", "unusable", "undecided", "borderline", "insufficient"
CI_NAMES = {"entailment": USABLE, "neutral": UNDECIDED, "contradiction": UNUSABLE, "insufficient": INSUFFICIENT}
RESTRICT_NAMES = {"entailment": USABLE, "neutral": BORDERLINE, "contradiction": UNUSABLE,
                  "unclassified": UNDECIDED, "insufficient": INSUFFICIENT}
CI_ORDER = (USABLE, UNDECIDED, UNUSABLE)
RESTRICT_ORDER = (USABLE, BORDERLINE, UNUSABLE, UNDECIDED)
LABEL_COLUMNS = ["item", "method", "id", "raters", "mean", "ci_lower", "ci_upper", "class_ci", "class_restrict"]


def _counts(labels: list[str], order) -> dict[str, int]:
    """Counts in the rule's order, zeros included; "insufficient" (one rating only) when it occurs."""
    counts = Counter(labels)
    return {label: counts[label] for label in (*order, *([INSUFFICIENT] if counts[INSUFFICIENT] else []))}


def score_matrix(ratings: list[Rating]) -> tuple[list[str], list[str], np.ndarray]:
    """(raters, items, raters × items scores with NaN where a rater did not rate an item), both sorted."""
    raters = sorted({r.rater for r in ratings})
    items = sorted({r.item for r in ratings})
    row, column = {r: k for k, r in enumerate(raters)}, {i: k for k, i in enumerate(items)}
    matrix = np.full((len(raters), len(items)), np.nan)
    for rating in ratings:
        matrix[row[rating.rater], column[rating.item]] = rating.score
    return raters, items, matrix


def agreement(ratings: list[Rating]) -> dict:
    """Interval α over the outputs rated at least twice, and pairwise Kendall τ-b on shared outputs."""
    raters, _, matrix = score_matrix(ratings)
    shared = np.sum(~np.isnan(matrix), axis=0) >= 2
    alpha = (float(krippendorff.alpha(reliability_data=matrix[:, shared], level_of_measurement="interval"))
             if shared.sum() >= 2 else None)
    pairs = []
    for a, b in combinations(range(len(raters)), 2):
        both = ~np.isnan(matrix[a]) & ~np.isnan(matrix[b])
        tau = kendalltau(matrix[a, both], matrix[b, both]).statistic if both.sum() >= 2 else float("nan")
        pairs.append({"raters": [raters[a], raters[b]], "items": int(both.sum()),
                      "kendall": None if np.isnan(tau) else float(tau)})
    taus = [p["kendall"] for p in pairs if p["kendall"] is not None]
    return {"krippendorff_alpha_interval": alpha, "outputs_rated_twice_or_more": int(shared.sum()),
            "pairwise_kendall": pairs, "mean_pairwise_kendall": float(np.mean(taus)) if taus else None}


def label_outputs(ratings: list[Rating], key: dict, settings: ReviewSettings) -> list[dict]:
    """Seed 000's two labels for every rated output (lyss.studies.labels, each output resampled with its
    own seed), with its method and entry id from the key."""
    raters, items, matrix = score_matrix(ratings)
    by_item = {item: matrix[:, k][~np.isnan(matrix[:, k])] for k, item in enumerate(items)}
    rules = LabelRules(neutral=settings.neutral, confidence=settings.confidence, resamples=settings.resamples,
                       seed=settings.seed, share=settings.share)
    rows = []
    for label in label_items(Ratings(items, raters, by_item, matrix), rules):
        where = key["items"][label.item]
        rows.append({"item": label.item, "method": where["method"], "id": where["id"], "raters": label.n,
                     "mean": label.mean, "ci_lower": label.ci_lower, "ci_upper": label.ci_upper,
                     "class_ci": CI_NAMES[label.class_ci], "class_restrict": RESTRICT_NAMES[label.class_restrict],
                     "_label": label})
    return rows


def label_table(rows: list[dict]) -> list[dict]:
    """The two rules' cross-table (interval rule rows, restrictive rule columns), laid out as seed 000's."""
    _, table = crosstab([row["_label"] for row in rows])
    renamed = []
    for line in table:
        out = {"class_ci": CI_NAMES.get(line["class_ci"], line["class_ci"])}
        out.update({RESTRICT_NAMES.get(k, k): v for k, v in line.items() if k != "class_ci"})
        renamed.append(out)
    return renamed


def method_verdicts(rows: list[dict], ratings: list[Rating], key: dict, settings: ReviewSettings) -> dict:
    """Per method: outputs reviewed, speakers, the interval rule's counts and the verdict."""
    speakers: dict[str, set] = {}
    for rating in ratings:
        speakers.setdefault(key["items"][rating.item]["method"], set()).add(rating.rater)
    verdicts = {}
    for method in sorted(speakers):
        labels = Counter(row["class_ci"] for row in rows if row["method"] == method)
        labelled = labels[USABLE] + labels[UNUSABLE] + labels[UNDECIDED]
        share = labels[USABLE] / labelled if labelled else None
        verdicts[method] = {
            "outputs": sum(labels.values()), "speakers": len(speakers[method]),
            "usable": labels[USABLE], "unusable": labels[UNUSABLE], "undecided": labels[UNDECIDED],
            "usable_share": None if share is None else round(share, 6),
            "verdict": None if share is None else ("usable" if share >= settings.usable_share else "not usable"),
        }
    return verdicts


def review_summary(ratings: list[Rating], key: dict, settings: ReviewSettings) -> tuple[dict, list[dict]]:
    """verdict.json (what the run cards read) and the per-output label rows."""
    rows = label_outputs(ratings, key, settings)
    raters_per_output = Counter(r.item for r in ratings)
    pairs = sum(1 for n in raters_per_output.values() if n >= MIN_ANNOTATORS)
    speakers = len({r.rater for r in ratings})
    summary = {
        "study": key["study"], "dataset": key["dataset"], "language_pair": key["language_pair"],
        "speakers": speakers, "ratings": len(ratings), "outputs": len(raters_per_output),
        "pairs_with_min_speakers": pairs,
        "spec_minimum": {"pairs": MIN_SEGMENTS, "speakers_per_pair": MIN_ANNOTATORS},
        "meets_spec_minimum": pairs >= MIN_SEGMENTS and speakers >= MIN_ANNOTATORS,
        "agreement": agreement(ratings),
        "labels": {"class_ci": _counts([r["class_ci"] for r in rows], CI_ORDER),
                   "class_restrict": _counts([r["class_restrict"] for r in rows], RESTRICT_ORDER),
                   "crosstab": label_table(rows)},
        "methods": method_verdicts(rows, ratings, key, settings),
        "rules": {"neutral": settings.neutral, "confidence": settings.confidence, "resamples": settings.resamples,
                  "seed": settings.seed, "share": settings.share, "usable_share": settings.usable_share},
    }
    return summary, [{k: v for k, v in row.items() if k != "_label"} for row in rows]

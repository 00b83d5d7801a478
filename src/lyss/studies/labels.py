"""Turn graded ratings into three-way labels with the two rules of the CommitmentBank-style spec.

class_ci follows de Marneffe et al. (2019): a percentile bootstrap interval of the item's mean
rating that lies entirely on one side of the neutral point decides the label. class_restrict follows
de Marneffe & Jiang (2019): a label only when a large share (80 %) of the ratings agree, otherwise
the item is left unclassified. Both are computed for every item so that the cross-table shows where
the rules disagree.
"""

from collections import Counter
from dataclasses import dataclass

import numpy as np

from lyss.errors import InputError
from lyss.stats import count_matrix, percentile_interval
from lyss.studies.agreement import krippendorff_alpha_ordinal
from lyss.tables import CsvTable

ENTAILMENT, NEUTRAL, CONTRADICTION = "entailment", "neutral", "contradiction"
UNCLASSIFIED, INSUFFICIENT = "unclassified", "insufficient"
CI_LABELS = [ENTAILMENT, NEUTRAL, CONTRADICTION]
RESTRICT_LABELS = [ENTAILMENT, NEUTRAL, CONTRADICTION, UNCLASSIFIED]
TOUCHING_CHOICES = ("neutral", "inclusive")


@dataclass(frozen=True)
class LabelRules:
    """Parameters of both rules. `touching` says what an interval touching the neutral point means:
    "neutral" (default) requires the interval to lie strictly on one side; "inclusive" follows the
    spec's literal wording ("lower and upper bound >= 0" is entailment), so an interval ending
    exactly at the neutral point still gets a label (an interval that is the single point gets none).
    """

    neutral: float = 0.0
    confidence: float = 0.95
    resamples: int = 10_000
    seed: int = 0
    share: float = 0.8
    touching: str = "neutral"
    min_ratings: int = 2


@dataclass
class ItemLabel:
    item: str
    n: int
    mean: float
    ci_lower: float
    ci_upper: float
    class_ci: str
    class_restrict: str
    flag: str


@dataclass
class Ratings:
    """Ratings grouped by item in order of first appearance; `matrix` is annotators x items."""

    items: list[str]
    annotators: list[str]
    by_item: dict[str, np.ndarray]
    matrix: np.ndarray


def read_ratings(
    table: CsvTable, item_col: str, annotator_col: str, score_col: str, scale: tuple[float, float]
) -> Ratings:
    """Long-format ratings; off-scale scores and a second rating by the same annotator are errors."""
    table.require(item_col, annotator_col, score_col)
    items = table.strings(item_col)
    annotators = table.strings(annotator_col)
    scores = table.numbers(score_col)
    low, high = scale
    seen: dict[tuple[str, str], int] = {}
    for item, annotator, score, line in zip(items, annotators, scores, table.lines, strict=True):
        if not item:
            raise InputError(table.path, "empty item id", line=line, field=item_col)
        if not low <= score <= high:
            raise InputError(
                table.path, f"rating {score:g} is off the scale {low:g}..{high:g}", line=line, field=score_col
            )
        key = (item, annotator)
        if key in seen:
            raise InputError(
                table.path,
                f"annotator '{annotator}' rated item '{item}' twice (first on line {seen[key]})",
                line=line,
                field=annotator_col,
            )
        seen[key] = line
    item_order = list(dict.fromkeys(items))
    annotator_order = list(dict.fromkeys(annotators))
    matrix = np.full((len(annotator_order), len(item_order)), np.nan)
    item_index = {item: k for k, item in enumerate(item_order)}
    annotator_index = {a: k for k, a in enumerate(annotator_order)}
    for item, annotator, score in zip(items, annotators, scores, strict=True):
        matrix[annotator_index[annotator], item_index[item]] = score
    by_item = {item: matrix[:, k][~np.isnan(matrix[:, k])] for k, item in enumerate(item_order)}
    return Ratings(item_order, annotator_order, by_item, matrix)


def bootstrap_mean_interval(values, resamples: int, confidence: float, seed) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean, all resamples drawn as one count matrix."""
    values = np.asarray(values, dtype=float)
    counts = count_matrix(len(values), resamples, seed)
    return percentile_interval(counts @ values / len(values), confidence)


def class_from_interval(lower: float, upper: float, rules: LabelRules) -> str:
    if rules.touching == "inclusive":
        if lower >= rules.neutral and upper <= rules.neutral:
            return NEUTRAL
        if lower >= rules.neutral:
            return ENTAILMENT
        if upper <= rules.neutral:
            return CONTRADICTION
        return NEUTRAL
    if lower > rules.neutral:
        return ENTAILMENT
    if upper < rules.neutral:
        return CONTRADICTION
    return NEUTRAL


def class_from_shares(values, rules: LabelRules) -> str:
    """The restrictive rule. The spec's third case literally reads "80 % chose 0 -> contradiction";
    that is taken as a typo for neutral, as in de Marneffe & Jiang (2019)."""
    values = np.asarray(values, dtype=float)
    n = len(values)
    if np.sum(values > rules.neutral) / n >= rules.share:
        return ENTAILMENT
    if np.sum(values < rules.neutral) / n >= rules.share:
        return CONTRADICTION
    if np.sum(values == rules.neutral) / n >= rules.share:
        return NEUTRAL
    return UNCLASSIFIED


def label_items(ratings: Ratings, rules: LabelRules) -> list[ItemLabel]:
    """Both labels per item. Each item's resamples come from its own seed (master seed, item
    position), so an item's interval does not change when other items are added or removed."""
    labels = []
    for position, item in enumerate(ratings.items):
        values = ratings.by_item[item]
        mean = float(values.mean())
        if len(values) < rules.min_ratings:
            flag = f"fewer than {rules.min_ratings} ratings"
            labels.append(
                ItemLabel(item, len(values), mean, float("nan"), float("nan"), INSUFFICIENT, INSUFFICIENT, flag)
            )
            continue
        lower, upper = bootstrap_mean_interval(values, rules.resamples, rules.confidence, [rules.seed, position])
        labels.append(
            ItemLabel(
                item,
                len(values),
                mean,
                lower,
                upper,
                class_from_interval(lower, upper, rules),
                class_from_shares(values, rules),
                "",
            )
        )
    return labels


def crosstab(labels: list[ItemLabel]) -> tuple[list[str], list[dict]]:
    """class_ci rows x class_restrict columns with totals, laid out like the spec's table."""
    rows = CI_LABELS + ([INSUFFICIENT] if any(x.class_ci == INSUFFICIENT for x in labels) else [])
    columns = RESTRICT_LABELS + ([INSUFFICIENT] if any(x.class_restrict == INSUFFICIENT for x in labels) else [])
    counts = Counter((x.class_ci, x.class_restrict) for x in labels)
    table = []
    for row in rows:
        cells = {column: counts[(row, column)] for column in columns}
        table.append({"class_ci": row, **cells, "total": sum(cells.values())})
    totals = {column: sum(counts[(row, column)] for row in rows) for column in columns}
    table.append({"class_ci": "total", **totals, "total": len(labels)})
    return ["class_ci", *columns, "total"], table


def summarise(ratings: Ratings, labels: list[ItemLabel], rules: LabelRules) -> dict:
    """Label counts for each rule, agreement among annotators and the parameters used."""
    return {
        "items": len(labels),
        "ratings": int(sum(len(v) for v in ratings.by_item.values())),
        "annotators": len(ratings.annotators),
        "class_ci": _counts([x.class_ci for x in labels], CI_LABELS),
        "class_restrict": _counts([x.class_restrict for x in labels], RESTRICT_LABELS),
        "krippendorff_alpha_ordinal": krippendorff_alpha_ordinal(list(ratings.by_item.values())),
        "flagged_items": [{"item": x.item, "n": x.n, "flag": x.flag} for x in labels if x.flag],
        "parameters": {
            "neutral": rules.neutral,
            "confidence": rules.confidence,
            "resamples": rules.resamples,
            "seed": rules.seed,
            "share": rules.share,
            "touching": rules.touching,
            "min_ratings": rules.min_ratings,
        },
    }


def _counts(values: list[str], order: list[str]) -> dict[str, int]:
    """Counts in the rule's label order, zeros included; "insufficient" only when it occurs."""
    counts = Counter(values)
    extra = [INSUFFICIENT] if counts[INSUFFICIENT] else []
    return {label: counts[label] for label in order + extra}

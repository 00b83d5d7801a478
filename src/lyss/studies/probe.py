"""Label-bias probe of a judge that returns a probability for every option (seed 003).

The same items are judged under several prompt conditions (label + definition, label only,
neutral letters, labels shifted off their definitions, ...). The probe reports accuracy per
condition, paired exact McNemar tests and bootstrap intervals of accuracy differences, how often
the judge follows a shifted label instead of the definition, whether its top probability separates
right from wrong answers (AUROC and an accept/defer table), the two-call test (total-variation
distance between the option distributions of two conditions) and whether repeated runs are
identical.

Scoring is always by definition: an option is identified by the category its definition
describes, whatever label it is shown with.
"""

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from lyss.errors import InputError
from lyss.io import iter_jsonl
from lyss.stats import count_matrix, mcnemar_p, percentile_interval
from lyss.stats.correlation import auroc

REQUIRED = ("run", "condition", "item", "gold", "probs")


@dataclass
class Record:
    """One judgement. `probs` is keyed by the label shown to the judge; `options` maps each shown
    label to the category whose definition it was attached to (identity when absent); `confidence`
    is an optional separate confidence score the judge reports besides the probabilities."""

    line: int
    run: str
    condition: str
    item: str
    gold: str
    probs: dict[str, float]
    options: dict[str, str]
    confidence: float | None = None

    @property
    def chosen(self) -> str:
        """The label with the highest probability (the first one listed on a tie)."""
        return max(self.probs, key=self.probs.get)

    @property
    def predicted(self) -> str:
        return self.options[self.chosen]

    @property
    def correct(self) -> bool:
        return self.predicted == self.gold

    @property
    def top(self) -> float:
        return self.probs[self.chosen]

    @property
    def followed_label(self) -> bool:
        """Picked the option wearing the gold category's name although its definition is another."""
        return self.chosen == self.gold and self.options[self.chosen] != self.gold

    @property
    def shifted(self) -> bool:
        """Some shown label names a category other than the one its definition describes."""
        categories = set(self.options.values())
        return any(label in categories and label != category for label, category in self.options.items())

    def by_category(self) -> dict[str, float]:
        distribution: dict[str, float] = {}
        for label, p in self.probs.items():
            distribution[self.options[label]] = distribution.get(self.options[label], 0.0) + p
        return distribution


def _text(obj: dict, key: str, path, line: int) -> str:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, str | int) or value == "":
        raise InputError(path, f"expected a non-empty string, got {value!r}", line=line, field=key)
    return str(value)


def _record(obj: dict, path, line: int, tolerance: float) -> Record:
    for key in REQUIRED:
        if key not in obj:
            raise InputError(path, "missing key", line=line, field=key)
    probs = obj["probs"]
    if not isinstance(probs, dict) or not probs:
        raise InputError(path, "expected a non-empty object of option probabilities", line=line, field="probs")
    for label, p in probs.items():
        if isinstance(p, bool) or not isinstance(p, int | float) or not 0 <= p <= 1:
            raise InputError(
                path,
                f"probability of option '{label}' is {p!r}, not a number in [0, 1]",
                line=line,
                field="probs",
            )
    total = float(sum(probs.values()))
    if abs(total - 1) > tolerance:
        raise InputError(
            path,
            f"probabilities sum to {total:.6g}, not 1 (tolerance {tolerance:g})",
            line=line,
            field="probs",
        )
    options = obj.get("options") or {label: label for label in probs}
    if (
        not isinstance(options, dict)
        or set(options) != set(probs)
        or not all(isinstance(v, str) for v in options.values())
    ):
        raise InputError(
            path,
            "must map every label in 'probs' to the category of its definition",
            line=line,
            field="options",
        )
    record = Record(
        line,
        _text(obj, "run", path, line),
        _text(obj, "condition", path, line),
        _text(obj, "item", path, line),
        _text(obj, "gold", path, line),
        {str(k): float(v) for k, v in probs.items()},
        {str(k): v for k, v in options.items()},
        _confidence(obj, path, line),
    )
    if record.gold not in record.options.values():
        raise InputError(path, f"gold '{record.gold}' is not among the option categories", line=line, field="gold")
    return record


def _confidence(obj: dict, path, line: int) -> float | None:
    value = obj.get("confidence")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise InputError(path, f"expected a number, got {value!r}", line=line, field="confidence")
    return None if value is None else float(value)


def read_runs(path, tolerance: float = 1e-3) -> list[Record]:
    """All records; a (run, condition, item) triple may occur only once."""
    records, seen = [], {}
    for line, obj in iter_jsonl(path):
        record = _record(obj, path, line, tolerance)
        key = (record.run, record.condition, record.item)
        if key in seen:
            raise InputError(
                path,
                f"duplicate (run, condition, item) = {key} (first on line {seen[key]})",
                line=line,
                field="item",
            )
        seen[key] = line
        records.append(record)
    if not records:
        raise InputError(path, "no records")
    return records


@dataclass(frozen=True)
class ProbeOptions:
    run: str | None = None
    pairs: tuple[tuple[str, str], ...] | None = None
    thresholds: tuple[float, ...] = (0.5, 0.7, 0.9)
    tvd_threshold: float = 0.01
    resamples: int = 10_000
    confidence: float = 0.95
    seed: int = 0


class Probe:
    """Records indexed by (run, condition) -> item -> record, in order of first appearance."""

    def __init__(self, records: list[Record], path):
        self.path = str(path)
        self.table: dict[tuple[str, str], dict[str, Record]] = {}
        for record in records:
            self.table.setdefault((record.run, record.condition), {})[record.item] = record
        self.runs = list(dict.fromkeys(r.run for r in records))
        self.conditions = list(dict.fromkeys(r.condition for r in records))

    def cell(self, run: str, condition: str) -> dict[str, Record]:
        return self.table.get((run, condition), {})

    def paired(self, run: str, a: str, b: str) -> tuple[list[Record], list[Record]]:
        """Records of conditions a and b on the items both have, in a's order."""
        first, second = self.cell(run, a), self.cell(run, b)
        items = [item for item in first if item in second]
        return [first[i] for i in items], [second[i] for i in items]

    def check(self, options: ProbeOptions) -> tuple[str, list[tuple[str, str]]]:
        """The run analysed and the condition pairs compared; unknown names are input errors."""
        run = options.run or self.runs[0]
        if run not in self.runs:
            raise InputError(self.path, f"run '{run}' does not occur (runs: {', '.join(self.runs)})", field="run")
        pairs = list(options.pairs) if options.pairs else list(combinations(self.conditions, 2))
        for pair in pairs:
            for condition in pair:
                if condition not in self.conditions:
                    raise InputError(
                        self.path,
                        f"condition '{condition}' does not occur (conditions: {', '.join(self.conditions)})",
                        field="condition",
                    )
        return run, pairs


def accuracy_table(probe: Probe) -> list[dict]:
    rows = []
    for run in probe.runs:
        for condition in probe.conditions:
            records = list(probe.cell(run, condition).values())
            if not records:
                continue
            correct = sum(r.correct for r in records)
            shifted = any(r.shifted for r in records)
            rows.append(
                {
                    "condition": condition,
                    "run": run,
                    "n": len(records),
                    "correct": correct,
                    "accuracy": correct / len(records),
                    "label_following": sum(r.followed_label for r in records) if shifted else None,
                }
            )
    return rows


def comparison_table(probe: Probe, run: str, pairs, options: ProbeOptions) -> list[dict]:
    """Paired comparison of two conditions on their common items: difference = accuracy_b - accuracy_a."""
    rows = []
    for k, (a, b) in enumerate(pairs):
        first, second = probe.paired(run, a, b)
        if not first:
            continue
        right_a = np.array([r.correct for r in first], dtype=float)
        right_b = np.array([r.correct for r in second], dtype=float)
        only_a = int(np.sum((right_a == 1) & (right_b == 0)))
        only_b = int(np.sum((right_a == 0) & (right_b == 1)))
        counts = count_matrix(len(first), options.resamples, [options.seed, k])
        low, high = percentile_interval(counts @ (right_b - right_a) / len(first), options.confidence)
        rows.append(
            {
                "condition_a": a,
                "condition_b": b,
                "run": run,
                "n": len(first),
                "correct_a": int(right_a.sum()),
                "correct_b": int(right_b.sum()),
                "accuracy_a": right_a.mean(),
                "accuracy_b": right_b.mean(),
                "difference": right_b.mean() - right_a.mean(),
                "difference_lo": low,
                "difference_hi": high,
                "only_a": only_a,
                "only_b": only_b,
                "mcnemar_p": mcnemar_p(only_a, only_b),
            }
        )
    return rows


def auroc_table(probe: Probe, run: str, options: ProbeOptions) -> list[dict]:
    """AUROC of the top probability for right (positive) vs wrong answers, items resampled; the same
    for the judge's separate confidence field when every record of the condition has one."""
    rows = []
    for k, condition in enumerate(probe.conditions):
        records = list(probe.cell(run, condition).values())
        if not records:
            continue
        right = np.array([r.correct for r in records])
        counts = count_matrix(len(records), options.resamples, [options.seed, 1000 + k])
        row = {"condition": condition, "run": run, "n": len(records), "correct": int(right.sum())}
        scores = {"auroc": np.array([r.top for r in records])}
        if all(r.confidence is not None for r in records):
            scores["auroc_confidence"] = np.array([r.confidence for r in records])
        for name, score in scores.items():
            low, high = percentile_interval(auroc(score, right, counts), options.confidence)
            row |= {name: float(auroc(score, right)), f"{name}_lo": low, f"{name}_hi": high}
        rows.append(row)
    return rows


def threshold_table(probe: Probe, run: str, options: ProbeOptions) -> list[dict]:
    """Selective routing: answers with top probability >= threshold are accepted, the rest deferred."""
    rows = []
    for condition in probe.conditions:
        records = list(probe.cell(run, condition).values())
        top = np.array([r.top for r in records])
        right = np.array([r.correct for r in records])
        for threshold in options.thresholds:
            accepted = top >= threshold
            rows.append(
                {
                    "condition": condition,
                    "run": run,
                    "threshold": threshold,
                    "accepted": int(accepted.sum()),
                    "accepted_accuracy": float(right[accepted].mean()) if accepted.any() else None,
                    "deferred": int((~accepted).sum()),
                    "deferred_accuracy": float(right[~accepted].mean()) if (~accepted).any() else None,
                }
            )
    return rows


def total_variation(p: dict[str, float], q: dict[str, float]) -> float:
    """Summed in sorted key order: a set's order changes with each process's hash seed, and a float sum with
    it, so results/validation would differ between two identical runs."""
    return 0.5 * sum(abs(p.get(key, 0.0) - q.get(key, 0.0)) for key in sorted(set(p) | set(q)))


def two_call_table(probe: Probe, run: str, pairs, options: ProbeOptions) -> list[dict]:
    """The two-call test: does the distribution over categories move when only the labels change?
    No gold labels needed; a distance above the threshold means the judge reads the labels."""
    rows = []
    for a, b in pairs:
        first, second = probe.paired(run, a, b)
        if not first:
            continue
        distance = np.array(
            [total_variation(x.by_category(), y.by_category()) for x, y in zip(first, second, strict=True)]
        )
        rows.append(
            {
                "condition_a": a,
                "condition_b": b,
                "run": run,
                "n": len(first),
                "tvd_mean": float(distance.mean()),
                "tvd_max": float(distance.max()),
                "above_threshold": int(np.sum(distance > options.tvd_threshold)),
                "predictions_changed": sum(x.predicted != y.predicted for x, y in zip(first, second, strict=True)),
            }
        )
    return rows


def determinism_table(probe: Probe) -> list[dict]:
    """Repeated runs of a condition compared with the first run, to the last digit (exact floats)."""
    rows = []
    for condition in probe.conditions:
        runs = [run for run in probe.runs if probe.cell(run, condition)]
        for other in runs[1:]:
            first = probe.cell(runs[0], condition)
            second = probe.cell(other, condition)
            items = [i for i in first if i in second]
            identical = sum(first[i].probs == second[i].probs for i in items)
            gaps = [
                abs(first[i].probs.get(k, 0.0) - second[i].probs.get(k, 0.0))
                for i in items
                for k in set(first[i].probs) | set(second[i].probs)
            ]
            rows.append(
                {
                    "condition": condition,
                    "run_a": runs[0],
                    "run_b": other,
                    "n": len(items),
                    "identical_items": identical,
                    "identical": identical == len(items),
                    "max_abs_difference": max(gaps, default=0.0),
                    "predictions_changed": sum(first[i].predicted != second[i].predicted for i in items),
                }
            )
    return rows

"""The reference check: on every dataset, each metric must give the reference (scored as if it were a
system's output) its ideal value. A metric that does not is not valid on that dataset (its embedder does
not know the language, a card is missing, a word list is English-centred) and is null in every run card
of the dataset instead of judging other outputs.

A metric passes when the reference's value is within `oracle.tolerance` of the metric's declared `ideal`
on the normalised scale: the deviation, in the metric's bad direction, divided by |ideal| (by 1 where the
ideal is 0, for rates). So with tolerance 0.05 chrF++ passes from 95, exact match from 0.95, a
code-switching rate up to 0.05 and a length ratio within 0.95–1.05. A metric without a fixed ideal
(COMET) or without a value on the reference is not checked.
"""

from lyss.metrics import MetricResult, resolve_metric

DEFAULT_TOLERANCE = 0.05


def deviation(value: float, ideal: float, direction: str) -> float:
    """How far `value` falls short of `ideal` on the normalised scale (0 = ideal or better)."""
    scale = abs(ideal) or 1.0
    if direction == "higher":
        return max(0.0, ideal - value) / scale
    if direction == "lower":
        return max(0.0, value - ideal) / scale
    return abs(value - ideal) / scale


def reference_check(reference_results: dict[str, MetricResult], target_card: dict | None,
                    tolerance: float = DEFAULT_TOLERANCE) -> dict:
    """Per metric scored on the reference: {reference_value, ideal, direction, passed}; `passed` is
    None where nothing can be checked (no fixed ideal, or no value on the reference)."""
    checks = {}
    for metric_id, result in sorted(reference_results.items()):
        plugin = resolve_metric(metric_id, target_card)
        ideal, direction = plugin.ideal, plugin.direction
        value = result.corpus_value
        passed = None
        if ideal is not None and value is not None:
            passed = deviation(value, ideal, direction) <= tolerance + 1e-12
        checks[metric_id] = {"reference_value": None if value is None else round(float(value), 6),
                             "ideal": ideal, "direction": direction, "passed": passed}
    return checks


def failure_reason(check: dict) -> str:
    """The null reason of a metric that fails its reference check (exact wording: docs/oracle.md)."""
    return f"fails its reference check (reference scores {round(check['reference_value'], 4):g})"


def failed_metrics(checks: dict) -> dict[str, str]:
    """Metric → null reason, for the metrics whose check failed."""
    return {m: failure_reason(c) for m, c in checks.items() if c["passed"] is False}

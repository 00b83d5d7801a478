"""Which way a metric agrees with people, read from the metric's own `direction` declaration.

Human scores are "higher is better". A lower-is-better metric (TER, the code-switching rate) agrees with
people when it correlates negatively; a "target" metric (the length ratio, best at its `ideal`) is judged by
its distance to the ideal, which is lower-is-better. Agreement statistics keep each metric's own sign
(so TER's τ is negative when it agrees) and say which sign counts; tests that compare metrics with each
other use the oriented values (sign flipped for lower-is-better) so that "better" means the same thing
for both.
"""

import numpy as np

from lyss.metrics import REGISTRY

COMPOSITE = "composite"


def direction_of(name: str) -> str:
    """"higher" or "lower" for a metric id or `composite` (a target metric's distance is "lower")."""
    if name == COMPOSITE or name not in REGISTRY:
        return "higher"
    return "lower" if REGISTRY[name].direction in ("lower", "target") else "higher"


def as_compared(name: str, values: np.ndarray) -> np.ndarray:
    """The values whose correlation with people is reported: target metrics become |value − ideal|."""
    metric = REGISTRY.get(name)
    if metric is not None and metric.direction == "target":
        return np.abs(np.asarray(values, dtype=float) - metric.ideal)
    return np.asarray(values, dtype=float)


def oriented(name: str, values: np.ndarray) -> np.ndarray:
    """Reported values with the sign flipped for lower-is-better metrics: higher now always means better."""
    compared = as_compared(name, values)
    return -compared if direction_of(name) == "lower" else compared


def agrees(direction: str, low, high) -> bool:
    """Agreement in the metric's own direction: the whole interval lies on the agreeing side of 0."""
    if low is None or high is None or np.isnan(low) or np.isnan(high):
        return False
    return bool(low > 0) if direction == "higher" else bool(high < 0)

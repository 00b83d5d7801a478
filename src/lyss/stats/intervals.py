"""The one percentile rule for every bootstrap interval in the project (run cards, significance,
human-judgment studies): order statistics without interpolation, sacrebleu's `estimate_ci` rule.

With R resamples sorted, a (1 − α) interval is the pair at 0-based positions ⌊R·α/2⌋ and R − ⌊R·α/2⌋ − 1:
the 26th and 975th smallest of 1000 at α = 0.05. Interpolated quantiles would give bounds that no
resample produced, and a second rule would make "95% CI" mean two things in one report.
"""

import math

import numpy as np


def percentile_ci(samples: np.ndarray, alpha: float = 0.05) -> tuple[float | None, float | None]:
    """Percentile interval as order statistics (no interpolation), sacrebleu's `estimate_ci` rule
    generalised: with R sorted samples the bounds sit at 0-based positions ⌊R·α/2⌋ and R − ⌊R·α/2⌋ − 1,
    i.e. the 26th and 975th smallest of 1000 at α = 0.05. Resamples where the score is undefined (NaN)
    are dropped."""
    finite = np.sort(np.asarray(samples, dtype=np.float64)[np.isfinite(samples)])
    if finite.size == 0:
        return None, None
    lower = math.floor(finite.size * alpha / 2 + 1e-9)
    return float(finite[lower]), float(finite[finite.size - lower - 1])


def percentile_interval(samples: np.ndarray, confidence: float) -> tuple[float, float]:
    """`percentile_ci` at a confidence level (0.95) rather than α, NaN rather than None when no resample
    is defined: the form the human-judgment tables write."""
    lower, upper = percentile_ci(samples, 1.0 - confidence)
    return (float("nan"), float("nan")) if lower is None else (lower, upper)

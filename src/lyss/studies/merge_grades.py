"""Rules that merge the grades of several judges into one jury score."""

import numpy as np

RULES = ("median", "mean", "majority", "trimmed")


def aggregate(grades: np.ndarray, rule: str, levels, trim: float = 0.2) -> np.ndarray:
    """Jury score per item from an (items x judges) matrix of grades.

    median and mean are the usual ones; trimmed drops `trim` of the judges at each end (rounded
    down, scipy's trim_mean) before averaging; majority is the most frequent grade, a tie going to
    the tied grade nearest the median and then to the lower one.
    """
    grades = np.asarray(grades, dtype=float)
    if rule == "median":
        return np.median(grades, axis=1)
    if rule == "mean":
        return grades.mean(axis=1)
    if rule == "trimmed":
        from scipy.stats import trim_mean  # a second to import: `lyss score` imports this module, never trims

        return trim_mean(grades, trim, axis=1)
    if rule == "majority":
        levels = np.asarray(levels, dtype=float)
        votes = (grades[:, :, None] == levels[None, None, :]).sum(axis=1)
        tied = votes == votes.max(axis=1, keepdims=True)
        distance = np.abs(levels[None, :] - np.median(grades, axis=1)[:, None])
        return levels[np.argmin(np.where(tied, distance, np.inf), axis=1)]
    raise ValueError(f"unknown aggregation rule {rule!r}; choose from {', '.join(RULES)}")


def to_grade(scores, levels) -> np.ndarray:
    """Nearest grade on the scale, halves rounded up (so a median of 3 and 4 becomes 4)."""
    levels = np.asarray(levels, dtype=float)
    return np.clip(np.floor(np.asarray(scores, dtype=float) + 0.5), levels[0], levels[-1])

"""The composite of one entry, so it can be checked against people segment by segment.

The run card's composite weights corpus-level metric values (spec §4.1); human judgments are per
segment, so here the same weights and normalisation (§4.2) are applied to each entry's per-entry
values, renormalised per entry over the metrics defined for it. The weight profile is the one the
run cards use: `composite.profile` names it, "auto" (the default) picks A or B by the target
language's analyzer (§4.3).
"""

import numpy as np

from lyss.aggregate.composite import normalise, select_profile
from lyss.errors import InputError


def profile_weights(composite_settings: dict, target_card: dict | None, source="params.yaml") -> tuple[str, dict]:
    """(profile name, weights) selected by `composite.profile`."""
    name = composite_settings.get("profile", "auto")
    if name == "auto":
        name = select_profile(target_card)
    profiles = composite_settings["profiles"]
    if name not in profiles:
        raise InputError(source, f"unknown weight profile {name!r}; profiles: {', '.join(profiles)}",
                         field="composite.profile")
    return name, profiles[name]


def entry_composite(values: dict[str, np.ndarray], weights: dict[str, float], normalisation: dict) -> np.ndarray:
    """Σ wᵢ·norm(vᵢ) / Σ wᵢ over the weighted metrics defined (non-NaN) for each entry; NaN where none is."""
    length = len(next(iter(values.values())))
    total, weight_sum = np.zeros(length), np.zeros(length)
    for metric, weight in weights.items():
        if metric not in values:
            continue
        normalised = normalise(metric, np.asarray(values[metric], dtype=float), normalisation)
        defined = ~np.isnan(normalised)
        total += np.where(defined, weight * normalised, 0.0)
        weight_sum += np.where(defined, weight, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(weight_sum > 0, total / weight_sum, np.nan)

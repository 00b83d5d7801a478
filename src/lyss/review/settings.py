"""params.yaml `review:` as a typed object. The defaults are the schema's (src/lyss/schemas/params.schema.json),
read from it rather than written twice."""

import functools
import json
from dataclasses import dataclass, fields
from importlib import resources

from lyss.errors import InputError


@dataclass(frozen=True)
class ReviewSettings:
    speakers: int
    items_per_speaker: int
    overlap: int
    seed: int
    show_reference: bool
    neutral: float
    share: float
    confidence: float
    resamples: int
    usable_share: float


@functools.cache
def _defaults() -> dict:
    schema = json.loads(resources.files("lyss.schemas").joinpath("params.schema.json").read_text(encoding="utf-8"))
    return {k: v["default"] for k, v in schema["properties"]["review"]["properties"].items()}


def review_settings(section: dict | None, source="params.yaml") -> ReviewSettings:
    """The `review:` section (already checked against the schema) with defaults filled in. An overlap above
    the number of speakers cannot be met: one speaker never rates an output twice."""
    values = {**_defaults(), **(section or {})}
    settings = ReviewSettings(**{f.name: values[f.name] for f in fields(ReviewSettings)})
    if settings.overlap > settings.speakers:
        raise InputError(source, f"overlap {settings.overlap} is more than the {settings.speakers} speakers: "
                         "each output is rated by `overlap` different speakers", field="review.overlap")
    return settings

"""params.yaml `review:` as a typed object. The defaults are the schema's (src/lyss/schemas/params.schema.json),
filled in by lyss.settings rather than written twice."""

from dataclasses import dataclass, fields

from lyss.errors import InputError
from lyss.settings import section_defaults


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


def review_settings(section: dict | None, source="params.yaml") -> ReviewSettings:
    """The `review:` section (already checked against the schema) with defaults filled in. An overlap above
    the number of speakers cannot be met: one speaker never rates an output twice."""
    values = {**section_defaults("review"), **(section or {})}
    settings = ReviewSettings(**{f.name: values[f.name] for f in fields(ReviewSettings)})
    if settings.overlap > settings.speakers:
        raise InputError(source, f"overlap {settings.overlap} is more than the {settings.speakers} speakers: "
                         "each output is rated by `overlap` different speakers", field="review.overlap")
    return settings

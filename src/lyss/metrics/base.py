"""The MetricPlugin protocol: what a metric receives and what it must give back.

Every metric returns per-entry values (and, for count-based metrics, per-entry sufficient statistics)
plus its corpus value, so that confidence intervals and paired tests resample rows instead of
re-scoring strings. A metric that cannot be computed says why (`available=False, reason=...`).
"""

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np


@dataclass
class ScoringInput:
    """Everything a metric may look at for one dataset × method."""

    entries: list[dict]
    predictions: list[str | None]  # None: the entry has no output (translation error)
    raw_predictions: list[str | None]
    source_lang: str
    target_lang: str
    source_card: dict = field(default_factory=dict)
    target_card: dict = field(default_factory=dict)
    options: dict = field(default_factory=dict)
    # Sentence vectors shared by the embedding metrics (lyss.embedders.Embeddings): the cached files of rule
    # `embed` in the pipeline, one in-memory table in `lyss score`; None = the metric embeds for itself.
    embeddings: object | None = None

    @property
    def ids(self) -> list[str]:
        return [e["id"] for e in self.entries]

    @property
    def references(self) -> list[str]:
        return [e["reference"] for e in self.entries]

    @property
    def sources(self) -> list[str]:
        return [e["source"] for e in self.entries]


@dataclass
class MetricResult:
    """Per-entry values (NaN where undefined for an entry) and the corpus value with its provenance."""

    metric: str
    values: np.ndarray
    corpus_value: float | None
    stats: np.ndarray | None = None  # (n_entries, k) sufficient statistics for count-based metrics
    counts: dict = field(default_factory=dict)  # companion counts, e.g. {"exact_matches": 41}
    signature: str | None = None
    reason: str | None = None  # why the corpus value is null
    details: dict = field(default_factory=dict)  # method notes recorded in the run card
    columns: dict = field(default_factory=dict)  # extra per-entry columns (e.g. verdicts)

    @property
    def available(self) -> bool:
        return self.corpus_value is not None

    @classmethod
    def unavailable(cls, metric: str, n_entries: int, reason: str, **details) -> "MetricResult":
        return cls(metric, np.full(n_entries, np.nan), None, reason=reason, details=details)


class MetricPlugin(Protocol):
    """A metric: an id spelled as in the spec, and a `score` that never raises for missing resources
    (it returns `MetricResult.unavailable` with the reason instead)."""

    id: str
    # "higher" or "lower" is better, or "target": best at `ideal` (length_ratio); agreement statistics and
    # the reference check read it from here.
    direction: str
    # The value a perfect output (the reference itself) gets; None where no fixed value exists (COMET).
    ideal: float | None

    def score(self, data: ScoringInput) -> MetricResult: ...

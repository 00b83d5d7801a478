"""What every translation method produces, and the context it is built with.

A method yields one `TranslationRecord` per entry as soon as it has it; the runner writes each
record to disk immediately, so a killed job resumes where it stopped.
"""

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Protocol


@dataclass
class TranslationRecord:
    id: str
    prediction: str | None
    raw_prediction: str | None = None  # before post-processing hooks (rule `postprocess`)
    latency_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float = 0.0
    error: str | None = None
    hooks_applied: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class MethodContext:
    """A method's settings from params.yaml (`methods.<name>`) plus the dataset's language pair."""

    name: str
    options: dict
    source_lang: str
    target_lang: str
    prices: dict = field(default_factory=dict)  # params.yaml `prices`, per model
    corpus_ids: list[str] = field(default_factory=list)  # the whole corpus, in order
    dataset: str = ""  # the dataset's name in params.yaml (precomputed `paths` are keyed by it)
    source: str = "params.yaml"  # where `options` came from, for error messages


class Translator(Protocol):
    def translate(self, entries: list[dict]) -> Iterator[TranslationRecord]:
        """Yield one record per entry (any order); a failed entry is a record with `error` set."""
        ...

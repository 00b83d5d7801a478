"""The MetricPlugin protocol: what a metric receives and what it must give back.

Every metric returns per-entry values (and, for count-based metrics, per-entry sufficient statistics)
plus its corpus value, so that confidence intervals and paired tests resample rows instead of
re-scoring strings. A metric that cannot be computed says why (`available=False, reason=...`).
"""

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from lyss.errors import did_you_mean


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
    # Sentence vectors shared by the embedding metrics (lyss.embed.embedders.Embeddings): the cached files of rule
    # `embed` in the pipeline, one in-memory table in `lyss score`; None = the metric embeds for itself.
    embeddings: object | None = None

    @property
    def ids(self) -> list[str]:
        return [e["id"] for e in self.entries]

    @property
    def references(self) -> list[str]:
        """The first reference of every entry: what a metric that uses one reference compares with."""
        return [e["reference"] for e in self.entries]

    @property
    def reference_streams(self) -> list[list[str]]:
        """Every reference as sacrebleu takes them, one stream per reference, the first stream being
        `references`. An entry may carry `references` (all of its references, `reference` first, as
        `lyss score -r A B` builds them); the pipeline's entries have `reference` alone. Streams are
        line-parallel, so every entry must carry the same number of references."""
        per_entry = [e.get("references") or [e["reference"]] for e in self.entries]
        counts = {len(refs) for refs in per_entry}
        if len(counts) > 1:
            raise ValueError(f"entries carry different numbers of references: {sorted(counts)}")
        return [list(stream) for stream in zip(*per_entry, strict=True)] or [[]]

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
    # "higher" or "lower" is better, or "target": best at `ideal` (the length ratio); agreement statistics and
    # the reference check read it from here.
    direction: str
    # The value a perfect output (the reference itself) gets; None where no fixed value exists (COMET).
    ideal: float | None

    def score(self, data: ScoringInput) -> MetricResult: ...


def ratio_of_sums(sums):
    """Σ column 0 / Σ column 1 of a metric's corpus rows: with rows [value (0 where undefined), defined] the
    mean of the defined per-entry values; with rows [hits, totals] a rate over words."""
    sums = np.asarray(sums, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sums[..., 1] > 0, sums[..., 0] / sums[..., 1], np.nan)


COUNT = {"type": ["integer", "null"], "minimum": 0}

# What a metric class declares beyond `score`, with the value a class gets when it declares nothing. Every list
# of metrics elsewhere (run-card keys and schema, CI and significance lists, summary and leaderboard columns,
# database columns, composite normalisation) is derived from these through the helpers in `lyss.metrics`,
# so adding a metric is one module: a class that omits a declaration gets the ordinary behaviour below.
DECLARATION_DEFAULTS = {
    # Position among the §9 `scores` keys (spec order); undeclared metrics follow, in registry order.
    "card_position": 1_000,
    # JSON Schema bounds of the value in the card ("maximum": None = unbounded above).
    "minimum": 0,
    "maximum": 1,
    # Companion keys reported beside the value: key → (value when the metric is null, JSON Schema).
    "companions": {},
    # §4.2: onto 0–1 with 1 = perfect ("identity" | "divide_by_100" | "invert"); params.yaml
    # `composite.normalisation` may override it.
    "normalisation": "identity",
    # A bootstrap CI in `scores.confidence_intervals` (§8.1).
    "has_ci": False,
    # Card key of its per-difficulty-tier CI and `by_difficulty`/`by_provenance` value (None: not broken down).
    "tier_key": None,
    # Which rows the corpus value is recomputed from: "values" (per-entry value, defined) or "stats" (the
    # metric's own per-entry sufficient statistics), and the formula over their column sums.
    "corpus_rows": "values",
    "corpus_value": ratio_of_sums,
    # Compared between methods by the paired tests (§8.2); `binary` ones also by McNemar.
    "significance": False,
    "binary": False,
    # §9.1 column of `run_cards` (None: only in the JSON card).
    "db_column": None,
    # Display: label, decimals, and the position of its column on the leaderboard (None: not shown there).
    "label": None,
    "decimals": 4,
    "leaderboard_position": None,
    # Copied into results/metrics.json (`dvc metrics diff`).
    "in_summary": True,
    # params.yaml `metric_options.<id>`: option → JSON Schema (refs into params.schema.json's $defs); exactly
    # the options the module reads from ScoringInput.options.
    "options_schema": {},
    # `lyss score`/`compare` flags spelled as sacrebleu's (argparse dest → an option of `options_schema`), so the
    # command line names no metric: `-tok` and `-lc` are BLEU's, `--chrf-lowercase` chrF's, as in sacrebleu.
    "cli_options": {},
    # Reads sentence vectors (lyss.embed.embedders), which the pipeline computes once per dataset (rule `embed`).
    "needs_embeddings": False,
    # Fields of the target card naming files it reads (`fst_analyzer`, `spelling_dictionary`): their bytes count
    # in its stamp (lyss.metrics.score), so installing, upgrading or removing one recomputes it.
    "card_files": (),
    # A function (entries, predictions) → the texts it embeds beyond whole sources, references and outputs (e.g.
    # their sentences), so that `lyss score` embeds them with the rest in one pass (None: none).
    "extra_texts": None,
    # A function (source_lang, target_lang, source_card, target_card, options) that loads now what the metric's
    # first job of that language pair would load before reading a word (word lists, a language identifier's
    # models): a worker runs it while Snakemake prepares the run (lyss.metrics.warm_up). None: nothing to load.
    "warm_up": None,
    # GPUs a scoring job asks the cluster for.
    "gpus": 0,
    # Needs a model the user provides (COMET): `lyss score` leaves it out of its defaults unless asked for.
    "requires_model": False,
    # Compares with every reference of an entry (`ScoringInput.reference_streams`, e.g. sacrebleu's multi-reference
    # chrF++/BLEU/TER) rather than with the first alone; `lyss score -r A B` says which metrics used only the first.
    "uses_all_references": False,
    # Reads the source text: `lyss score` asks for `--source` only when a requested metric says so.
    "reads_source": True,
    # Needs the languages (their cards, word lists, a language identifier): `lyss score` and `compare` ask for `-l`
    # only when a requested metric says so. sacrebleu's metrics run without it as in sacrebleu (BLEU then
    # tokenizes with 13a, which a target language could change: zh, ja-mecab, ko-mecab).
    "reads_language": True,
    # Other names `lyss score -m` accepts for it (case-insensitive; the id itself is too), e.g. "chrF++".
    "aliases": (),
}
# Declared by every metric, with no default: its id, which way is better, and the value of a perfect output.
CORE_DECLARATIONS = ("id", "direction", "ideal")


def check_declarations(cls: type) -> None:
    """Refuse a metric class that declares something the registry does not read (a misspelt `has_cl = True`
    would otherwise silently get the default) or lacks a core declaration. Public class attributes are
    declarations; annotated ones (`rules: VariantRules | None = None`) are the plugin's own state."""
    where = f"{cls.__module__}.{cls.__qualname__}"
    known = (*CORE_DECLARATIONS, *DECLARATION_DEFAULTS)
    for klass in cls.__mro__[:-1]:  # object last
        state = set(vars(klass).get("__annotations__", {}))
        for name, value in vars(klass).items():
            if name.startswith("_") or name in state or name in known or callable(value) or isinstance(
                    value, (staticmethod, classmethod, property)):
                continue
            raise TypeError(f"{where}: {name!r} is not a metric declaration{did_you_mean(name, known)}; the "
                            "declarations and their defaults are lyss.metrics.base.DECLARATION_DEFAULTS")
    missing = [name for name in CORE_DECLARATIONS if not hasattr(cls, name)]
    if missing or not callable(getattr(cls, "score", None)):
        raise TypeError(f"{where}: a metric declares {', '.join(CORE_DECLARATIONS)} and a score(data) method "
                        f"(missing: {', '.join(missing) or 'score'})")


def declared(metric, name: str):
    """A metric class's (or plugin's) declaration `name`, or its default from DECLARATION_DEFAULTS."""
    return getattr(metric, name) if hasattr(metric, name) else DECLARATION_DEFAULTS[name]

"""The metric registry: metric id (spelled as in the spec) → plugin class, and the lists derived from it.

A metric class is the single source of truth about its metric (lyss.metrics.base.DECLARATION_DEFAULTS):
run-card keys and schema, CI and significance lists, summary and leaderboard columns, database columns and
the composite normalisation are all read from the registry through the functions below, never restated.
Adding a metric is one module and one line here (docs/metrics.md); the Snakefile derives its jobs from
params.yaml.
"""

from lyss.errors import InputError, unknown
from lyss.languages import language_plugin
from lyss.metrics.base import MetricPlugin, MetricResult, ScoringInput, check_declarations, declared
from lyss.metrics.behavioural import CodeSwitchingRate, HallucinationRate
from lyss.metrics.comet import CometScore
from lyss.metrics.compliance import ComplianceIndex, RepairEffectiveness
from lyss.metrics.equivalence import EquivalentMatch
from lyss.metrics.fst import FstAcceptance, MorphologicalAccuracy
from lyss.metrics.orthography import OrthographicAccuracy
from lyss.metrics.semantic import SemanticScore
from lyss.metrics.surface import Bleu, ChrFPlusPlus, ExactMatch, LengthRatio, Ter
from lyss.metrics.terminology import ConsistencyScore, TerminologyAdherence

# Keyed by each class's own `id`, so the id is written once, in its module.
REGISTRY: dict[str, type] = {cls.id: cls for cls in (
    ExactMatch, ChrFPlusPlus, Bleu, Ter, LengthRatio, EquivalentMatch, FstAcceptance, MorphologicalAccuracy,
    OrthographicAccuracy, TerminologyAdherence, ConsistencyScore, SemanticScore, CometScore, CodeSwitchingRate,
    HallucinationRate, ComplianceIndex, RepairEffectiveness,
)}
for _plugin in REGISTRY.values():
    check_declarations(_plugin)  # a misspelt declaration fails here, at import, not as a silent default


def declaration(metric_id: str, name: str):
    """What the registered class of `metric_id` declares as `name` (its default when it is not registered,
    e.g. "composite")."""
    return declared(REGISTRY.get(metric_id), name)


def card_metric_keys() -> list[str]:
    """The §9 `scores` metric keys, in card order (each the corpus value of the metric with that id)."""
    ordered = sorted(enumerate(REGISTRY), key=lambda item: (declaration(item[1], "card_position"), item[0]))
    return [metric_id for _, metric_id in ordered]


def _selected(name: str) -> list[str]:
    return [m for m in card_metric_keys() if declaration(m, name)]


def companion_keys() -> dict[str, tuple[str, object, dict]]:
    """Companion card key → (owning metric, value when that metric is null, JSON Schema), in card order."""
    return {key: (m, default, schema) for m in card_metric_keys()
            for key, (default, schema) in declaration(m, "companions").items()}


def ci_metrics() -> list[str]:
    """Metrics with a bootstrap CI in `scores.confidence_intervals` (§8.1), besides the composite."""
    return _selected("has_ci")


def tier_metrics() -> dict[str, str]:
    """Card key of the per-difficulty-tier CI → metric (also the metrics of `by_difficulty`/`by_provenance`)."""
    return {declaration(m, "tier_key"): m for m in _selected("tier_key")}


def significance_metrics() -> list[str]:
    """Metrics compared by the paired bootstrap and approximate randomization (§8.2), composite last."""
    return [*_selected("significance"), "composite"]


def binary_metrics() -> list[str]:
    """Metrics with 0/1 per-entry outcomes, compared by McNemar's exact test."""
    return _selected("binary")


def summary_metrics() -> list[str]:
    """Metrics copied into results/metrics.json."""
    return _selected("in_summary")


def leaderboard_metrics() -> list[str]:
    """Metrics with a leaderboard column, in column order."""
    return sorted(_selected("leaderboard_position"), key=lambda m: declaration(m, "leaderboard_position"))


def db_columns() -> list[tuple[str, str]]:
    """(column of `run_cards`, metric) for the metrics that declare a §9.1 database column."""
    return [(declaration(m, "db_column"), m) for m in _selected("db_column")]


def default_normalisation(metric_id: str) -> str:
    """The metric's §4.2 normalisation onto 0–1 (params.yaml `composite.normalisation` may override it)."""
    return declaration(metric_id, "normalisation")


def label(metric_id: str) -> str:
    return declaration(metric_id, "label") or metric_id


def score_schemas() -> dict[str, dict]:
    """JSON Schema of each metric's value and companion keys in the run card's `scores` block."""
    out = {}
    for m in card_metric_keys():
        schema = {"type": ["number", "null"], "minimum": declaration(m, "minimum")}
        if declaration(m, "maximum") is not None:
            schema["maximum"] = declaration(m, "maximum")
        out[m] = schema
    out.update({key: schema for key, (_, _, schema) in companion_keys().items()})
    return out


def get_metric(metric_id: str, source="params.yaml") -> MetricPlugin:
    if metric_id not in REGISTRY:
        raise InputError(source, unknown("metric", metric_id, sorted(REGISTRY)), field="metrics")
    return REGISTRY[metric_id]()


def resolve_metric(metric_id: str, target_card: dict | None, source="params.yaml") -> MetricPlugin:
    """The plugin that scores `metric_id` for a target language: the one its card declares under
    `evalMetrics` (e.g. CrkLinterMetric for equivalent_match_rate into Plains Cree), else the generic one."""
    plugin = language_plugin(target_card, metric_id)
    if plugin is None:
        return get_metric(metric_id, source)
    try:
        check_declarations(type(plugin))
    except TypeError as err:
        raise InputError((target_card or {}).get("source") or source, str(err), field="evalMetrics") from None
    return plugin


__all__ = ["REGISTRY", "MetricPlugin", "MetricResult", "ScoringInput", "binary_metrics", "card_metric_keys",
           "ci_metrics", "companion_keys", "db_columns", "declaration", "default_normalisation", "get_metric",
           "label", "leaderboard_metrics", "resolve_metric", "score_schemas", "significance_metrics",
           "summary_metrics", "tier_metrics"]

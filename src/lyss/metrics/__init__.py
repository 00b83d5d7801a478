"""The metric registry: metric id (spelled as in the spec) → plugin class.

Adding a metric is one module and one line here; the Snakefile derives its jobs from params.yaml.
"""

from lyss.errors import InputError
from lyss.languages import language_plugin
from lyss.metrics.base import MetricPlugin, MetricResult, ScoringInput
from lyss.metrics.behavioural import CodeSwitchingRate, HallucinationRate
from lyss.metrics.comet import CometScore
from lyss.metrics.compliance import ComplianceIndex, RepairEffectiveness
from lyss.metrics.equivalence import EquivalentMatch
from lyss.metrics.fst import FstAcceptance, MorphologicalAccuracy
from lyss.metrics.orthography import OrthographicAccuracy
from lyss.metrics.semantic import SemanticScore
from lyss.metrics.surface import Bleu, ChrFPlusPlus, ExactMatch, LengthRatio, Ter
from lyss.metrics.terminology import ConsistencyScore, TerminologyAdherence

REGISTRY: dict[str, type] = {
    "exact_match_rate": ExactMatch,
    "chrf_plus_plus": ChrFPlusPlus,
    "bleu": Bleu,
    "ter": Ter,
    "length_ratio": LengthRatio,
    "equivalent_match_rate": EquivalentMatch,
    "fst_acceptance_rate": FstAcceptance,
    "morphological_accuracy": MorphologicalAccuracy,
    "orthographic_accuracy": OrthographicAccuracy,
    "terminology_adherence": TerminologyAdherence,
    "consistency_score": ConsistencyScore,
    "semantic_score": SemanticScore,
    "comet_score": CometScore,
    "code_switching_rate": CodeSwitchingRate,
    "hallucination_rate": HallucinationRate,
    "compliance_index": ComplianceIndex,
    "repair_effectiveness": RepairEffectiveness,
}


def get_metric(metric_id: str, source="params.yaml") -> MetricPlugin:
    if metric_id not in REGISTRY:
        raise InputError(source, f"unknown metric {metric_id!r}; known: {', '.join(sorted(REGISTRY))}",
                         field="metrics")
    return REGISTRY[metric_id]()


def resolve_metric(metric_id: str, target_card: dict | None, source="params.yaml") -> MetricPlugin:
    """The plugin that scores `metric_id` for a target language: the one its card declares under
    `evalMetrics` (e.g. CrkLinterMetric for equivalent_match_rate into Plains Cree), else the generic one."""
    return language_plugin(target_card, metric_id) or get_metric(metric_id, source)


__all__ = ["REGISTRY", "MetricPlugin", "MetricResult", "ScoringInput", "get_metric", "resolve_metric"]

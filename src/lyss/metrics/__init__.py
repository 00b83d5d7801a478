"""The metric registry: metric id (spelled as in the spec) → plugin class.

Adding a metric is one module and one line here; the Snakefile derives its jobs from params.yaml.
"""

from lyss.errors import InputError
from lyss.metrics.base import MetricPlugin, MetricResult, ScoringInput
from lyss.metrics.surface import Bleu, ChrFPlusPlus, ExactMatch, LengthRatio, Ter

REGISTRY: dict[str, type] = {
    "exact_match_rate": ExactMatch,
    "chrf_plus_plus": ChrFPlusPlus,
    "bleu": Bleu,
    "ter": Ter,
    "length_ratio": LengthRatio,
}


def get_metric(metric_id: str, source="params.yaml") -> MetricPlugin:
    if metric_id not in REGISTRY:
        raise InputError(source, f"unknown metric {metric_id!r}; known: {', '.join(sorted(REGISTRY))}",
                         field="metrics")
    return REGISTRY[metric_id]()


__all__ = ["REGISTRY", "MetricPlugin", "MetricResult", "ScoringInput", "get_metric"]

"""Metric–human agreement for a pipeline dataset (spec §1.6: no metric is trusted until it is checked
against people). A dataset may carry human scores of its methods' translations (`human_scores:` in
params.yaml, a CSV with `method,id,human` and optionally `annotators`); they are joined with the
per-entry values in the metric files, so the agreement is measured on exactly the numbers that the run
cards aggregate, and summarised as the evidence the spec's validation status asks for.
"""

from pathlib import Path

import numpy as np

from lyss.commands.correlate import CORRELATION_COLUMNS, SIGNIFICANCE_COLUMNS
from lyss.errors import InputError
from lyss.io import write_json_atomic
from lyss.metric_files import read_metric_result
from lyss.validation.correlate import (
    CorrelationOptions,
    ScoreData,
    correlation_table,
    levels_for,
    significance_table,
)
from lyss.validation.tables import read_csv, write_csv

# Spec §1.6, first required experiment: 200+ sentence pairs rated by 3+ bilingual speakers.
MIN_SEGMENTS, MIN_ANNOTATORS = 200, 3


def per_entry_values(metric_paths) -> dict[str, dict[str, dict[str, float]]]:
    """metric → method → entry id → value, from `results/metrics/<dataset>/<method>/<metric>.parquet`."""
    values: dict[str, dict[str, dict[str, float]]] = {}
    for path in map(Path, metric_paths):
        result, ids = read_metric_result(path)
        values.setdefault(result.metric, {})[path.parent.name] = dict(zip(ids, result.values.tolist(), strict=True))
    return values


def join_human_scores(human_csv, metric_paths) -> tuple[ScoreData, np.ndarray | None]:
    """Rows of the human CSV with every metric that has a per-entry value on all of them (corpus-only
    metrics such as consistency_score have none). Unknown methods or ids are errors at their line."""
    table = read_csv(human_csv)
    methods, ids, human = table.strings("method"), table.strings("id"), table.numbers("human")
    annotators = table.numbers("annotators") if "annotators" in table.header else None
    values = per_entry_values(metric_paths)
    known_methods = {m for by_method in values.values() for m in by_method}
    known_ids = {i for by_method in values.values() for by_id in by_method.values() for i in by_id}
    for method, entry_id, line in zip(methods, ids, table.lines, strict=True):
        if method not in known_methods:
            raise InputError(table.path, f"unknown method {method!r} (methods: {', '.join(sorted(known_methods))})",
                             line=line, field="method")
        if entry_id not in known_ids:
            raise InputError(table.path, f"unknown entry id {entry_id!r}", line=line, field="id")
    columns = {}
    for metric, by_method in sorted(values.items()):
        column = np.array([by_method.get(m, {}).get(i, np.nan) for m, i in zip(methods, ids, strict=True)])
        if not np.isnan(column).any():
            columns[metric] = column
    if not columns:
        raise InputError(table.path, "no metric has per-entry values for these rows")
    return ScoreData(table.path, human, columns, methods, ids, "id"), annotators


def validation_evidence(correlations: list[dict], data: ScoreData, annotators: np.ndarray | None) -> dict:
    """Per metric: how much human evidence there is and what it shows, against the §1.6 minimum."""
    n_annotators = int(annotators.min()) if annotators is not None else None
    enough = len(data.human) >= MIN_SEGMENTS and (n_annotators or 0) >= MIN_ANNOTATORS
    evidence = {}
    for row in correlations:
        if row["level"] != "segment":
            continue
        evidence[row["metric"]] = {
            "segments": len(data.human),
            "systems": len(set(data.systems or [])),
            "min_annotators_per_segment": n_annotators,
            "segment_pearson": [row["pearson"], row["pearson_lo"], row["pearson_hi"]],
            "segment_kendall": [row["kendall"], row["kendall_lo"], row["kendall_hi"]],
            "meets_spec_minimum": enough,
            "positive_agreement": bool(row["pearson_lo"] is not None and row["pearson_lo"] > 0),
        }
    return evidence


def validate_dataset(human_csv, metric_paths, out_dir, *, seed: int, resamples: int = 1000,
                     permutations: int = 1000) -> dict:
    """Write `correlations.csv`, `significance.csv` (as `lyss correlate` does) and `evidence.json`."""
    data, annotators = join_human_scores(human_csv, metric_paths)
    options = CorrelationOptions(resamples=resamples, permutations=permutations, seed=seed)
    levels = levels_for(data, options)
    correlations = correlation_table(data, levels, options)
    out_dir = Path(out_dir)
    write_csv(out_dir / "correlations.csv", CORRELATION_COLUMNS, correlations)
    significance = significance_table(data, levels, options) if len(data.metrics) > 1 else []
    write_csv(out_dir / "significance.csv", SIGNIFICANCE_COLUMNS, significance)
    evidence = validation_evidence(correlations, data, annotators)
    write_json_atomic(out_dir / "evidence.json", evidence)
    return evidence

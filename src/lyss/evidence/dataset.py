"""Metric–human agreement for a pipeline dataset (spec §1.6: no metric is trusted until it is checked
against people). A dataset may carry human scores of its methods' translations (`human_scores:` in
params.yaml, a CSV with `method,id,human` and optionally `annotators`; higher = better); they are
joined with the per-entry values in the metric files, so the agreement is measured on exactly the
numbers that the run cards aggregate, and summarised as the evidence the spec's validation status asks
for (results/evidence/<dataset>/evidence.json, read by the run cards).

Segment level is Kendall τ per item (the systems' translations of one source segment ranked against
each other, then averaged over items), as in the WMT metrics task; system level correlates the
per-system means of the human scores with the statistic the leaderboard shows: each metric's corpus
formula over the system's rated entries (corpus chrF++ from the summed sufficient statistics, not the
mean of sentence chrF++) and the card's composite of those corpus values (§4.1). Every statistic keeps
the metric's own sign; `direction` says which sign agrees.
"""

from dataclasses import replace
from pathlib import Path

import numpy as np

from lyss.aggregate.composite import composite
from lyss.aggregate.confidence import corpus_statistic
from lyss.errors import InputError
from lyss.evidence.composite_entries import entry_composite, profile_weights
from lyss.evidence.correlate import (
    CORRELATION_COLUMNS,
    SIGNIFICANCE_COLUMNS,
    CorrelationOptions,
    ScoreData,
    correlation_table,
    levels_for,
    negated,
    significance_table,
)
from lyss.evidence.orientation import COMPOSITE, agrees, as_compared, direction_of, oriented
from lyss.evidence.raters import RATERS_FILE, rater_verdict
from lyss.io import read_json, write_json_atomic
from lyss.languages import card_for
from lyss.metrics.files import read_metric_result
from lyss.settings import Composite, Stats, thaw
from lyss.stats import CorpusStatistic, joint
from lyss.stats.correlation import kendall_tau_b
from lyss.tables import check_unique, json_ready, read_csv, write_csv

# Spec §1.6, first required experiment: 200+ sentence pairs rated by 3+ bilingual speakers.
MIN_SEGMENTS, MIN_ANNOTATORS = 200, 3
DATASET_COLUMNS = [*CORRELATION_COLUMNS, "kendall_items", "direction", "agrees"]
SIGNIFICANCE_STATISTICS = ("kendall", "pearson")


def metric_results(metric_paths) -> dict[str, dict[str, tuple]]:
    """metric → method → (MetricResult, entry ids), from `results/metrics/<dataset>/<method>/<metric>.parquet`."""
    results: dict[str, dict[str, tuple]] = {}
    for path in map(Path, metric_paths):
        result, ids = read_metric_result(path)
        results.setdefault(result.metric, {})[path.parent.name] = (result, ids)
    return results


def rated_statistics(results: dict[str, dict[str, tuple]], methods: list[str], ids: list[str]
                     ) -> dict[str, CorpusStatistic]:
    """metric → its corpus statistic on the rated rows: each rated (method, id) row carries that entry's
    resampling rows (sufficient statistics for chrF++, BLEU, TER), so a system's corpus score over its
    rated entries is the metric's declared formula over their sum, as the run card computes it over all
    entries. A metric whose formula does not reproduce its corpus value for some method, or that lacks a
    rated entry, is left out (its system level is then the mean of its per-entry values)."""
    out = {}
    for metric, by_method in results.items():
        statistics = {m: corpus_statistic(result) for m, (result, _) in by_method.items()}
        if any(statistics.get(m) is None for m in set(methods)):
            continue
        index = {m: {i: k for k, i in enumerate(entry_ids)} for m, (_, entry_ids) in by_method.items()}
        if any(i not in index[m] for m, i in zip(methods, ids, strict=True)):
            continue
        rows = np.vstack([statistics[m].rows[index[m][i]] for m, i in zip(methods, ids, strict=True)])
        out[metric] = CorpusStatistic(rows, next(iter(statistics.values())).formula)
    return out


def composite_statistic(statistics: dict[str, CorpusStatistic], weights: dict, normalisation: dict
                        ) -> CorpusStatistic | None:
    """The card's composite (§4.1) of the weighted metrics' corpus values, renormalised over the metrics
    defined; None when no weighted metric has a corpus statistic."""
    parts = {m: statistics[m] for m in weights if m in statistics}
    if not parts:
        return None
    return joint(parts, lambda scores: composite(scores, weights, normalisation))


def oriented_statistic(metric: str, statistic: CorpusStatistic) -> CorpusStatistic:
    """Higher = better for every metric: lower-is-better formulas enter negated."""
    return negated(statistic) if direction_of(metric) == "lower" else statistic


def human_methods(human_csv) -> list[str]:
    """The methods a human-score CSV rates (the validation rule needs exactly their metric files)."""
    return sorted(set(read_csv(human_csv).strings("method")))


def check_one_rating_each(table) -> None:
    """One row per method and entry: a repeated pair would count twice in the agreement and leave the raters'
    table (lyss.evidence.raters) one of the two scores."""
    check_unique(table, zip(table.strings("method"), table.strings("id"), strict=True), "id",
                 lambda key: f"method {key[0]!r} rated on entry {key[1]!r}")


def join_human_scores(human_csv, metric_paths):
    """(rows, per-metric columns on those rows, annotators). Unknown methods or ids are errors at their
    line. Columns may hold NaN where a metric is undefined for an entry."""
    table = read_csv(human_csv)
    methods, ids, human = table.strings("method"), table.strings("id"), table.numbers("human")
    check_one_rating_each(table)
    annotators = table.numbers("annotators") if "annotators" in table.header else None
    results = metric_results(metric_paths)
    values = {metric: {method: dict(zip(ids, result.values.tolist(), strict=True))
                       for method, (result, ids) in by_method.items()}
              for metric, by_method in results.items()}
    known_methods = {m for by_method in values.values() for m in by_method}
    known_ids = {i for by_method in values.values() for by_id in by_method.values() for i in by_id}
    for method, entry_id, line in zip(methods, ids, table.lines, strict=True):
        if method not in known_methods:
            raise InputError(table.path, f"unknown method {method!r} (methods: {', '.join(sorted(known_methods))})",
                             line=line, field="method")
        if entry_id not in known_ids:
            raise InputError(table.path, f"unknown entry id {entry_id!r}", line=line, field="id")
    columns = {metric: np.array([by_method.get(m, {}).get(i, np.nan) for m, i in zip(methods, ids, strict=True)])
               for metric, by_method in sorted(values.items())}
    data = ScoreData(table.path, human, {}, methods, ids, "id", corpus=rated_statistics(results, methods, ids))
    return data, columns, annotators


def compared_metrics(columns: dict[str, np.ndarray], weights: dict | None, normalisation: dict):
    """The columns that can be correlated (defined on every row), the composite built from all of
    them, and why each other metric is left out."""
    compared, left_out = {}, {}
    for metric, column in columns.items():
        missing = int(np.isnan(column).sum())
        if missing:
            left_out[metric] = f"undefined for {missing} of {len(column)} rated entries"
        else:
            compared[metric] = as_compared(metric, column)
    if weights is not None:
        composite = entry_composite(columns, weights, normalisation)
        if np.isnan(composite).any():
            left_out[COMPOSITE] = "no weighted metric is defined for some rated entries"
        else:
            compared[COMPOSITE] = composite
    return compared, left_out


def validation_evidence(correlations: list[dict], data: ScoreData, annotators: np.ndarray | None,
                        language_pair: str | None) -> dict:
    """Contract 4: per metric, the segment Kendall and system Pearson with CIs, whether they agree in
    the metric's own direction, and whether the data meets the §1.6 minimum. `segments` counts the
    segments where the metric's τ per item is defined."""
    n_annotators = int(annotators.min()) if annotators is not None else None
    by_level = {(row["level"], row["metric"]): row for row in correlations}
    metrics = {}
    for (level, metric), segment in by_level.items():
        if level != "segment":
            continue
        system = by_level.get(("system", metric), {})
        direction = direction_of(metric)
        agreement = agrees(direction, segment["kendall_lo"], segment["kendall_hi"])
        # Segments that carry evidence for this metric: those where its τ per item is defined (a metric
        # tied across all translations of a segment says nothing there).
        n_segments = segment.get("kendall_items", len(set(data.items)))
        enough = n_segments >= MIN_SEGMENTS and (n_annotators or 0) >= MIN_ANNOTATORS
        metrics[metric] = {
            "status": "validated" if enough and agreement else "evidence",
            "direction": direction,
            "segment_kendall": [segment["kendall"], segment["kendall_lo"], segment["kendall_hi"]],
            "system_pearson": [system.get("pearson"), system.get("pearson_lo"), system.get("pearson_hi")],
            "agrees": agreement,
            "segments": n_segments,
            "systems": len(set(data.systems or [])),
            "min_annotators_per_segment": n_annotators,
            "meets_spec_minimum": enough,
        }
    return {"language_pair": language_pair, "metrics": metrics}


def validate_dataset(human_csv, metric_paths, out_dir, draws: CorrelationOptions, *, weights: dict | None = None,
                     normalisation: dict | None = None, language_pair: str | None = None,
                     dataset: str | None = None) -> dict:
    """Write `correlations.csv`, `significance.csv` and `evidence.json` (+ `left_out.json`, and `raters.json`:
    the raters' own ranking of the methods, lyss.evidence.raters, tested at `draws.alpha`). `draws`: the
    resamples, permutations, seed and α (Kendall τ is always grouped by item here).

    Significance compares the oriented values (higher = better for every metric), so "metric_a agrees
    better than metric_b" means the same for TER as for chrF++."""
    data, columns, annotators = join_human_scores(human_csv, metric_paths)
    compared, left_out = compared_metrics(columns, weights, normalisation or {})
    if not compared:
        raise InputError(data.path, "no metric has per-entry values for every rated row")
    data.metrics = compared
    data.corpus = {m: st for m, st in data.corpus.items() if m in compared}
    if weights is not None and COMPOSITE in compared:
        card_composite = composite_statistic(data.corpus, weights, normalisation or {})
        if card_composite is not None:
            data.corpus[COMPOSITE] = card_composite
    data.lower = frozenset(m for m in compared if direction_of(m) == "lower")
    options = replace(draws, group_by_item=True)
    levels = levels_for(data, options)
    correlations = correlation_table(data, levels, options)
    segment = levels[0]
    for row in correlations:
        if row["level"] == "segment":
            # Items where τ is defined (a metric tied on all of an item's translations has none there):
            # a τ averaged over few items is not comparable with one averaged over all of them.
            per_item = kendall_tau_b(segment.human, compared[row["metric"]][segment.grid])
            row["kendall_items"] = int(np.count_nonzero(~np.isnan(per_item)))
        row["direction"] = direction_of(row["metric"])
        row["agrees"] = agrees(row["direction"], row["kendall_lo"], row["kendall_hi"])
    out_dir = Path(out_dir)
    write_csv(out_dir / "correlations.csv", DATASET_COLUMNS, correlations)
    oriented_data = ScoreData(data.path, data.human, {m: oriented(m, v) for m, v in compared.items()},
                              data.systems, data.items, data.item_col,
                              corpus={m: oriented_statistic(m, st) for m, st in data.corpus.items()})
    # The permutation test covers the statistics evidence.json reports (Kendall, Pearson): with tie
    # calibration every permutation would need its own sort of all pairs.
    tested = replace(options, statistics=SIGNIFICANCE_STATISTICS)
    significance = (significance_table(oriented_data, levels_for(oriented_data, tested), tested)
                    if len(compared) > 1 else [])
    write_csv(out_dir / "significance.csv", SIGNIFICANCE_COLUMNS, significance)
    evidence = validation_evidence(correlations, data, annotators, language_pair)
    evidence = json_ready(evidence)  # undefined statistics (NaN) become null, valid JSON
    write_json_atomic(out_dir / "evidence.json", evidence)
    write_json_atomic(out_dir / "left_out.json", left_out)
    write_json_atomic(out_dir / RATERS_FILE, rater_verdict(dataset, data.systems, data.items, data.human,
                                                           resamples=draws.resamples, seed=draws.seed,
                                                           alpha=draws.alpha))
    return evidence


def validate_pipeline_dataset(*, human_csv, corpus_meta_path, metric_paths, languages_dir, composite: Composite,
                              stats: Stats, out_dir, workers: int = 1) -> dict:
    """The pipeline step: the composite with the weight profile the run cards of this dataset use, its
    statistics on `workers` threads (the job's cores)."""
    dataset = read_json(corpus_meta_path)["dataset"]
    target_card = card_for(dataset["target_lang"], languages_dir)
    _, weights = profile_weights(composite, target_card)
    draws = CorrelationOptions(resamples=stats.bootstrap_resamples, seed=stats.seed, alpha=stats.alpha,
                               workers=workers)
    return validate_dataset(human_csv, metric_paths, out_dir, draws, weights=weights,
                            normalisation=thaw(composite.normalisation),
                            language_pair=dataset["language_pair"], dataset=dataset["id"])

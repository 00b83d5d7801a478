"""Metric–human agreement on a pipeline dataset: human scores joined with the metric files' per-entry
values; segment Kendall per item and system Pearson checked against scipy on the same columns; the
direction of lower-is-better metrics; the per-entry composite computed by hand."""

import json

import numpy as np
import pytest
from scipy import stats

from lyss.errors import InputError
from lyss.evidence.composite_entries import entry_composite, profile_weights
from lyss.evidence.correlate import CorrelationOptions
from lyss.evidence.dataset import join_human_scores, validate_dataset
from lyss.io import fixed
from lyss.metrics.base import MetricResult
from lyss.metrics.files import write_metric_result
from lyss.settings import Composite

IDS = ["e1", "e2", "e3", "e4", "e5", "e6"]
VALUES = {  # method → metric → per-entry values
    "good": {"chrf_plus_plus": [80, 70, 90, 60, 85, 75], "ter": [20, 35, 10, 45, 15, 30],
             "semantic_score": [0.9, np.nan, 0.95, 0.7, 0.9, 0.8], "consistency_score": [np.nan] * 6},
    "fair": {"chrf_plus_plus": [60, 65, 50, 55, 40, 70], "ter": [40, 30, 55, 50, 60, 25],
             "semantic_score": [0.8, 0.75, 0.7, 0.8, 0.6, 0.85], "consistency_score": [np.nan] * 6},
    "poor": {"chrf_plus_plus": [30, 50, 20, 40, 35, 45], "ter": [75, 55, 80, 60, 70, 58],
             "semantic_score": [0.5, 0.6, 0.4, 0.6, 0.55, 0.5], "consistency_score": [np.nan] * 6},
}
HUMAN = {"good": [-0.0, -1.0, 0.0, -5.0, -1.0, -0.1], "fair": [-1.0, -0.1, -5.0, -2.0, -6.0, -1.0],
         "poor": [-10.0, -5.0, -11.0, -6.0, -5.0, -5.1]}
WEIGHTS = {"chrf_plus_plus": 0.25, "semantic_score": 0.75}
NORMALISATION = {"chrf_plus_plus": "divide_by_100"}


@pytest.fixture
def dataset(tmp_path):
    paths = []
    for method, metrics in VALUES.items():
        for metric, values in metrics.items():
            path = tmp_path / "metrics" / method / f"{metric}.parquet"
            values = np.array(values, dtype=float)
            corpus = None if np.isnan(values).all() else float(np.nanmean(values))
            write_metric_result(path, MetricResult(metric, values, corpus), IDS)
            paths.append(path)
    human = tmp_path / "human.csv"
    rows = [f"{m},{i},{h},1" for m in HUMAN for i, h in zip(IDS, HUMAN[m], strict=True)]
    human.write_text("method,id,human,annotators\n" + "\n".join(rows) + "\n")
    return human, paths


def _column(metric):
    return np.array([v for m in VALUES for v in VALUES[m][metric]], dtype=float)


def _human():
    return np.array([h for m in HUMAN for h in HUMAN[m]])


def _kendall_per_item(metric_column):
    """WMT 'item' grouping: τ-b across the 3 systems of each entry, averaged over entries."""
    human, n = _human(), len(IDS)
    taus = [stats.kendalltau(human[i::n], metric_column[i::n], variant="b")[0] for i in range(n)]
    return np.nanmean(taus)


def _system_pearson(metric_column):
    """System means rounded to 9 decimals, as the evidence documents (ties must not depend on the BLAS)."""
    human, n = _human(), len(IDS)
    means = [np.round(column.reshape(-1, n).mean(axis=1), 9) for column in (human, metric_column)]
    return stats.pearsonr(*means)[0]


def test_join_keeps_every_metric_column(dataset):
    human, paths = dataset
    data, columns, annotators = join_human_scores(human, paths)
    assert sorted(columns) == ["chrf_plus_plus", "consistency_score", "semantic_score", "ter"]
    assert columns["chrf_plus_plus"].tolist() == _column("chrf_plus_plus").tolist()
    assert annotators.tolist() == [1] * 18
    assert data.items[:2] == ["e1", "e2"] and data.systems[0] == "good"


def test_entry_composite_renormalises_per_entry():
    values = {"chrf_plus_plus": np.array([80.0, 70.0]), "semantic_score": np.array([0.9, np.nan])}
    got = entry_composite(values, WEIGHTS, NORMALISATION)
    # entry 1: 0.25·0.80 + 0.75·0.90 = 0.875; entry 2: only chrF++ is defined, so its weight becomes 1.
    assert got.tolist() == pytest.approx([0.875, 0.70])


def test_profile_auto_is_b_without_an_analyzer_and_a_named_profile_is_used():
    settings = {"profile": "auto", "profiles": {"A": {"x": 1.0}, "B": {"y": 1.0}, "fitted": {"z": 1.0}}}
    assert profile_weights(Composite.of(settings), None) == ("B", {"y": 1.0})
    assert profile_weights(Composite.of({**settings, "profile": "fitted"}), None) == ("fitted", {"z": 1.0})
    with pytest.raises(InputError, match="unknown weight profile 'nope'"):
        profile_weights(Composite.of({**settings, "profile": "nope"}), None)


def test_evidence_matches_scipy_and_respects_direction(dataset, tmp_path):
    human, paths = dataset
    draws = CorrelationOptions(resamples=200, permutations=200, seed=1)
    evidence = validate_dataset(human, paths, tmp_path / "out", draws,
                                weights=WEIGHTS, normalisation=NORMALISATION, language_pair="eng-deu")
    assert evidence["language_pair"] == "eng-deu"
    metrics = evidence["metrics"]
    # semantic_score is undefined for one rated entry and consistency_score for all: not compared.
    assert sorted(metrics) == ["chrf_plus_plus", "composite", "ter"]
    chrf, ter = metrics["chrf_plus_plus"], metrics["ter"]
    assert chrf["segment_kendall"][0] == pytest.approx(_kendall_per_item(_column("chrf_plus_plus")), abs=1e-12)
    assert chrf["system_pearson"][0] == pytest.approx(_system_pearson(_column("chrf_plus_plus")), abs=1e-12)
    assert ter["segment_kendall"][0] == pytest.approx(_kendall_per_item(_column("ter")), abs=1e-12)
    assert ter["segment_kendall"][0] < 0 and ter["direction"] == "lower"
    assert ter["agrees"] is True  # lower TER for better translations: agreement, with the CI below 0
    assert chrf["direction"] == "higher" and chrf["agrees"] is True
    composite = entry_composite({m: _column(m) for m in ("chrf_plus_plus", "semantic_score")}, WEIGHTS,
                                NORMALISATION)
    assert metrics["composite"]["segment_kendall"][0] == pytest.approx(_kendall_per_item(composite), abs=1e-12)
    assert (chrf["systems"], chrf["min_annotators_per_segment"]) == (3, 1)
    assert chrf["meets_spec_minimum"] is False and chrf["status"] == "evidence"
    assert json.loads((tmp_path / "out/evidence.json").read_text()) == fixed(evidence)  # at lyss.io's precision
    header, *lines = (tmp_path / "out/correlations.csv").read_text().splitlines()
    table = [dict(zip(header.split(","), line.split(","), strict=True)) for line in lines]
    chrf_row = next(r for r in table if (r["level"], r["metric"]) == ("segment", "chrf_plus_plus"))
    human, n = _human(), len(IDS)
    defined = [not np.isnan(stats.kendalltau(human[i::n], _column("chrf_plus_plus")[i::n])[0]) for i in range(n)]
    assert int(chrf_row["kendall_items"]) == sum(defined) == chrf["segments"]
    left_out = json.loads((tmp_path / "out/left_out.json").read_text())
    assert left_out["semantic_score"] == "undefined for 1 of 18 rated entries"


def test_significance_compares_oriented_values(dataset, tmp_path):
    """TER (lower is better) and its negation's mirror chrF-like metric: the test must not call TER worse
    merely because its correlation is negative."""
    human, paths = dataset
    validate_dataset(human, paths, tmp_path / "out", CorrelationOptions(resamples=50, permutations=200, seed=1))
    lines = (tmp_path / "out/significance.csv").read_text().splitlines()
    header = lines[0].split(",")
    rows = [dict(zip(header, line.split(","), strict=True)) for line in lines[1:]]
    row = next(r for r in rows if (r["level"], r["statistic"], r["metric_a"], r["metric_b"])
               == ("segment", "kendall", "ter", "chrf_plus_plus"))
    expected = -_kendall_per_item(_column("ter")) - _kendall_per_item(_column("chrf_plus_plus"))
    assert float(row["delta"]) == pytest.approx(expected, abs=1e-12)


def test_a_method_rated_twice_on_one_entry_names_both_lines(dataset):
    human, paths = dataset
    human.write_text(human.read_text() + "fair,e2,-3.0,1\n")  # fair's e2 is line 9 (header, then good's 6)
    with pytest.raises(InputError) as caught:
        join_human_scores(human, paths)
    assert (caught.value.line, caught.value.field) == (20, "id")
    assert "method 'fair' rated on entry 'e2' twice (first on line 9)" in str(caught.value)


def test_unknown_method_names_the_line(dataset, tmp_path):
    human, paths = dataset
    human.write_text(human.read_text() + "nobody,e1,3.0,3\n")
    with pytest.raises(InputError) as caught:
        join_human_scores(human, paths)
    assert (caught.value.line, caught.value.field) == (20, "method")

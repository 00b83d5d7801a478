"""Metric–human agreement on a pipeline dataset: human scores joined with the metric files' per-entry
values; correlations checked against scipy on the same joined columns."""

import json

import numpy as np
import pytest
from scipy import stats

from lyss.errors import InputError
from lyss.metric_files import write_metric_result
from lyss.metrics.base import MetricResult
from lyss.validation.dataset import join_human_scores, validate_dataset

IDS = ["e1", "e2", "e3", "e4", "e5", "e6"]
VALUES = {  # method → metric → per-entry values
    "good": {"chrf_plus_plus": [80, 70, 90, 60, 85, 75], "consistency_score": [np.nan] * 6},
    "poor": {"chrf_plus_plus": [30, 50, 20, 40, 35, 45], "consistency_score": [np.nan] * 6},
}
HUMAN = {"good": [4.5, 4.0, 5.0, 3.5, 4.5, 4.0], "poor": [2.0, 3.0, 1.5, 2.5, 2.0, 3.5]}


@pytest.fixture
def dataset(tmp_path):
    paths = []
    for method, metrics in VALUES.items():
        for metric, values in metrics.items():
            path = tmp_path / "metrics" / method / f"{metric}.parquet"
            values = np.array(values, dtype=float)
            corpus = None if np.isnan(values).all() else float(values.mean())
            write_metric_result(path, MetricResult(metric, values, corpus), IDS)
            paths.append(path)
    human = tmp_path / "human.csv"
    rows = [f"{m},{i},{h},3" for m in HUMAN for i, h in zip(IDS, HUMAN[m], strict=True)]
    human.write_text("method,id,human,annotators\n" + "\n".join(rows) + "\n")
    return human, paths


def test_join_keeps_metrics_with_per_entry_values(dataset):
    human, paths = dataset
    data, annotators = join_human_scores(human, paths)
    assert list(data.metrics) == ["chrf_plus_plus"]  # consistency_score is corpus-level only
    expected = VALUES["good"]["chrf_plus_plus"] + VALUES["poor"]["chrf_plus_plus"]
    assert data.metrics["chrf_plus_plus"].tolist() == expected
    assert annotators.tolist() == [3] * 12


def test_correlations_and_evidence_match_scipy(dataset, tmp_path):
    human, paths = dataset
    evidence = validate_dataset(human, paths, tmp_path / "out", seed=1, resamples=200, permutations=200)
    x = VALUES["good"]["chrf_plus_plus"] + VALUES["poor"]["chrf_plus_plus"]
    y = HUMAN["good"] + HUMAN["poor"]
    chrf = evidence["chrf_plus_plus"]
    assert chrf["segment_pearson"][0] == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-9)
    assert chrf["segment_kendall"][0] == pytest.approx(stats.kendalltau(x, y, variant="b")[0], abs=1e-9)
    assert (chrf["segments"], chrf["systems"], chrf["min_annotators_per_segment"]) == (12, 2, 3)
    assert chrf["meets_spec_minimum"] is False  # 12 segments < the 200 the spec asks for
    assert chrf["positive_agreement"] is True
    assert json.loads((tmp_path / "out/evidence.json").read_text()) == evidence
    assert (tmp_path / "out/correlations.csv").read_text().startswith("level,metric,n,")


def test_unknown_method_names_the_line(dataset, tmp_path):
    human, paths = dataset
    human.write_text(human.read_text() + "nobody,e1,3.0,3\n")
    with pytest.raises(InputError) as caught:
        join_human_scores(human, paths)
    assert (caught.value.line, caught.value.field) == (14, "method")

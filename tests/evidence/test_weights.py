"""`lyss weights fit`: weights recovered from data generated with known weights, folds that never
score a row they were fitted on, Kendall per item against scipy, statistics computed within each fold
(never pooled across folds fitted with different weights), folds too small to measure refused or
merged, weights reported with their metric's spread, and the written profile."""

import numpy as np
import pytest
from scipy.stats import kendalltau, pearsonr

from lyss.commands.weights import rounded_profile
from lyss.evidence.weights import (
    FoldError,
    RatedRows,
    cross_validate,
    fit_weights,
    folds_of,
    item_kendall,
    metric_spread,
    system_pearson,
    too_sparse,
    varying_rows,
)


def _rows(seed=0, systems=8, items=60):
    """human = 0.7·chrF++ + 0.3·semantic + an item effect the metrics do not see, + small noise;
    `noise_metric` is unrelated to the human score."""
    rng = np.random.default_rng(seed)
    sys_names = np.repeat([f"s{k}" for k in range(systems)], items)
    item_names = np.tile([f"i{k:03d}" for k in range(items)], systems)
    docs = np.array([f"d{int(name[1:]) % 4}" for name in item_names])
    chrf = rng.uniform(0.2, 0.9, systems * items)
    semantic = rng.uniform(0.5, 1.0, systems * items)
    noise_metric = rng.uniform(0, 1, systems * items)
    item_effect = np.tile(rng.normal(0, 5, items), systems)
    human = 0.7 * chrf + 0.3 * semantic + item_effect + rng.normal(0, 0.01, systems * items)
    features = {"chrf_plus_plus": chrf, "semantic_score": semantic, "exact_match_rate": noise_metric}
    return RatedRows(human, sys_names, item_names, docs, features)


def test_fit_recovers_the_generating_weights_despite_item_effects():
    rows = _rows()
    weights = fit_weights(rows, np.ones(len(rows.human), dtype=bool))
    assert sum(weights.values()) == pytest.approx(1.0)
    assert weights["chrf_plus_plus"] == pytest.approx(0.7, abs=0.02)
    assert weights["semantic_score"] == pytest.approx(0.3, abs=0.02)
    assert weights["exact_match_rate"] == pytest.approx(0.0, abs=0.02)
    assert min(weights.values()) >= 0


def test_a_metric_that_varies_on_a_handful_of_rows_is_not_fitted():
    """As hallucination_rate on TED (9 flags in 6,877 rows): a rare flag on rows that people rate far down gets a
    large least-squares coefficient, which as a weight would lift every composite by a near-constant; below
    `min_rows` varying rows it gets none, and the other weights are fitted as if it were absent."""
    rows = _rows()
    flags = np.zeros(len(rows.human))
    flagged = np.argsort(rows.human)[:5]  # the five rows people rate lowest, spread over items
    flags[flagged] = 1.0
    rows.features["hallucination_rate"] = 1.0 - flags  # normalised: 1 = no hallucination
    rows.human[flagged] -= 3.0  # people punish them hard
    every = np.ones(len(rows.human), dtype=bool)
    unguarded = fit_weights(rows, every)
    assert unguarded["hallucination_rate"] > 0.5  # what the fit did without the guard
    assert too_sparse(rows, every, 30) == {"hallucination_rate": 5}
    guarded = fit_weights(rows, every, min_rows=30)
    assert guarded["hallucination_rate"] == 0.0 and sum(guarded.values()) == pytest.approx(1.0)
    without = {m: v for m, v in rows.features.items() if m != "hallucination_rate"}
    expected = fit_weights(RatedRows(rows.human, rows.systems, rows.items, rows.documents, without), every)
    assert {m: w for m, w in guarded.items() if m != "hallucination_rate"} == pytest.approx(expected, abs=1e-12)
    assert varying_rows(np.array([0.0, 0.0, 1.0, 0.5, 0.0])) == 2


def test_item_kendall_is_the_mean_of_scipy_per_item():
    rng = np.random.default_rng(3)
    items = np.array(["a"] * 4 + ["b"] * 3 + ["c"] * 1 + ["d"] * 3)
    human = rng.integers(0, 3, len(items)).astype(float)
    score = rng.normal(size=len(items))
    expected = []
    for item in ["a", "b", "d"]:  # "c" has one row: no pair
        tau = kendalltau(human[items == item], score[items == item], variant="b")[0]
        if not np.isnan(tau):
            expected.append(tau)
    assert item_kendall(human, score, items) == pytest.approx(np.mean(expected), abs=1e-12)


def test_system_pearson_of_means():
    systems = np.array(["x", "x", "y", "y", "z", "z"])
    human, score = np.array([1.0, 3, 2, 2, 5, 7]), np.array([0.1, 0.3, 0.5, 0.1, 0.9, 0.7])
    assert system_pearson(human, score, systems) == pytest.approx(pearsonr([2, 2, 6], [0.2, 0.3, 0.8])[0])


@pytest.mark.parametrize("by", ["system", "document"])
def test_folds_partition_the_rows_by_whole_groups(by):
    rows = _rows(systems=9)
    folds, warnings = folds_of(rows, by, 3, seed=1)
    assert len(folds) == 3 and not warnings
    assert np.array_equal(np.sum(folds, axis=0), np.ones(len(rows.human)))  # each row held out once
    groups = rows.systems if by == "system" else rows.documents
    for test in folds:
        assert not set(groups[test]) & set(groups[~test])  # a group is never split


def test_each_fold_is_scored_with_weights_fitted_without_it():
    rows = _rows(seed=5)
    report = cross_validate(rows, {"chrf_plus_plus": 0.5, "semantic_score": 0.5}, "system", 4, seed=2)
    folds, _ = folds_of(rows, "system", 4, seed=2)
    assert len(folds) == 2  # 8 systems: two folds of at least 3 (4 would leave 2 per fold)
    for fold, test in zip(report["folds"], folds, strict=True):
        assert fold["weights"] == fit_weights(rows, ~test)
        held = item_kendall(rows.human[test], rows.features["chrf_plus_plus"][test], rows.items[test])
        assert fold["chrf_plus_plus_segment_kendall"] == pytest.approx(held, abs=1e-12)
    # Generated with a 0.7/0.3 mix, the fitted composite beats chrF++ alone on held-out systems.
    summary = report["summary"]
    assert summary["fitted_composite"]["segment_kendall"] > summary["chrf_plus_plus"]["segment_kendall"]


def test_folds_never_hold_fewer_than_three_systems():
    folds, warnings = folds_of(_rows(systems=6), "system", 5, seed=0)
    assert len(folds) == 2 and all(len(set(_rows(systems=6).systems[t])) == 3 for t in folds)
    assert "using 2 folds" in warnings[0]
    with pytest.raises(FoldError, match="at least 6 systems"):
        folds_of(_rows(systems=5), "system", 5, seed=0)


def test_a_fold_without_an_item_rated_twice_is_refused():
    rows = _rows(systems=6, items=4)
    rows.items = np.array([f"{s}-{i}" for s, i in zip(rows.systems, rows.items, strict=True)])  # nothing shared
    with pytest.raises(FoldError, match="no item rated for two systems"):
        folds_of(rows, "system", 2, seed=0)


def test_document_folds_need_provenance():
    rows = _rows()
    rows.documents = np.where(np.arange(len(rows.documents)) % 2 == 0, rows.documents, "")
    with pytest.raises(FoldError, match=r"provenance .* 240 of 480 rated rows have none"):
        folds_of(rows, "document", 3, seed=0)


def test_system_pearson_is_computed_within_each_fold_and_averaged():
    rows = _rows(seed=3, systems=6, items=20)
    report = cross_validate(rows, {"chrf_plus_plus": 0.5, "semantic_score": 0.5}, "system", 2, seed=0)
    folds, _ = folds_of(rows, "system", 2, seed=0)
    per_fold = []
    for test in folds:
        names = sorted(set(rows.systems[test]))
        human = [rows.human[test & (rows.systems == n)].mean() for n in names]
        chrf = [rows.features["chrf_plus_plus"][test & (rows.systems == n)].mean() for n in names]
        per_fold.append(pearsonr(human, chrf)[0])
    assert [f["chrf_plus_plus_system_pearson"] for f in report["folds"]] == pytest.approx(per_fold, abs=1e-12)
    assert report["summary"]["chrf_plus_plus"]["system_pearson"] == pytest.approx(np.mean(per_fold), abs=1e-12)


def test_weights_are_reported_with_their_metric_spread():
    rows = RatedRows(np.zeros(4), np.array(list("abcd")), np.array(list("wxyz")), np.array([""] * 4),
                     {"flat": np.array([0.98, 0.98, 0.98, 1.0]), "wide": np.array([0.2, 0.4, 0.6, 0.8])})
    report = metric_spread(rows, {"flat": 0.8, "wide": 0.2})
    flat_sd, wide_sd = np.std([0.98, 0.98, 0.98, 1.0]), np.std([0.2, 0.4, 0.6, 0.8])
    assert report["flat"]["spread"] == pytest.approx(flat_sd) and report["wide"]["spread"] == pytest.approx(wide_sd)
    # 80% of the weight on a near-constant signal is about 13% of what moves the composite.
    assert report["flat"]["influence"] == pytest.approx(0.8 * flat_sd / (0.8 * flat_sd + 0.2 * wide_sd))
    assert report["flat"]["influence"] < 0.15


def test_rounded_profile_sums_to_one():
    profile = rounded_profile({"a": 0.33333, "b": 0.33333, "c": 0.33334, "d": 0.0001})
    assert sum(profile.values()) == pytest.approx(1.0, abs=1e-12) and "d" not in profile


def test_cli_fits_from_pipeline_files_and_writes_a_selectable_profile(tmp_path, monkeypatch, capsys):
    import json
    from pathlib import Path

    import yaml

    from lyss.cli import main
    from lyss.metrics.base import MetricResult
    from lyss.metrics.files import write_metric_result

    root = Path(__file__).resolve().parents[2]
    rows = _rows(seed=7, systems=6, items=30)
    ids = [f"i{k:03d}" for k in range(30)]
    folder = tmp_path / "data/corpora/tiny"
    folder.mkdir(parents=True)
    (folder / "dataset.yaml").write_text("id: tiny\nlanguage_pair: eng-deu\nlicence: CC0-1.0\ncitation: test\n")
    (folder / "corpus.jsonl").write_text("".join(
        json.dumps({"id": i, "source": "s", "reference": "r", "provenance": f"doc{k % 3}"}) + "\n"
        for k, i in enumerate(ids)))
    human_lines = ["method,id,human"]  # Python floats below: NumPy 2 spells a float64 np.float64(…)
    for s in range(6):
        block = slice(30 * s, 30 * (s + 1))
        human_lines += [f"m{s},{i},{h!r}" for i, h in zip(ids, rows.human[block].tolist(), strict=True)]
        for metric, scale in (("chrf_plus_plus", 100.0), ("semantic_score", 1.0)):
            values = rows.features[metric][block] * scale
            write_metric_result(tmp_path / f"results/metrics/tiny/m{s}/{metric}.parquet",
                                MetricResult(metric, values, float(values.mean())), ids)
    (tmp_path / "human.csv").write_text("\n".join(human_lines) + "\n")
    params = yaml.safe_load((root / "params.yaml").read_text(encoding="utf-8"))
    params["datasets"] = {"tiny": {"path": "data/corpora/tiny", "human_scores": "human.csv"}}
    params["methods"] = {"copy_source": {"kind": "copy_source"}}
    params.pop("validation", None)
    params["languages_dir"] = str(root / "data/languages")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    monkeypatch.chdir(tmp_path)

    assert main(["weights", "fit", "tiny", "--by", "document", "--folds", "3", "--out", "out"]) == 0
    profile = yaml.safe_load((tmp_path / "out/profile.yaml").read_text())
    weights = profile["fitted_tiny"]
    assert sum(weights.values()) == pytest.approx(1.0, abs=1e-12)
    assert weights["chrf_plus_plus"] == pytest.approx(0.7, abs=0.03)  # generated as 0.7·chrF++ + 0.3·semantic
    summary = json.loads((tmp_path / "out/summary.json").read_text())
    assert set(summary["summary"]) == {"spec_composite", "fitted_composite", "chrf_plus_plus"}
    assert len(summary["folds"]) == 3 and summary["by"] == "document"
    assert "fitted_composite" in capsys.readouterr().out

    assert set(summary["spread"]["fitted_tiny"]) == set(weights)

    assert main(["weights", "fit", "nope", "--out", "out"]) == 2
    assert "field 'datasets': unknown dataset 'nope'; known: " in capsys.readouterr().err

    (folder / "corpus.jsonl").write_text("".join(
        json.dumps({"id": i, "source": "s", "reference": "r"}) + "\n" for i in ids))
    assert main(["weights", "fit", "tiny", "--by", "document", "--out", "out2"]) == 2
    assert "needs the provenance (document) of every rated entry" in capsys.readouterr().err

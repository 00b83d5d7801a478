"""The raters' own verdict on a rated dataset's systems (lyss.evidence.raters), carried by the run cards and
weighed against the leaderboard's ★. Means and differences are computed by hand from the literals below; the
bootstrap cases are ones whose outcome follows from the definitions (a constant difference has a CI of exactly
that difference and the smallest p a bootstrap can give; identical scores have p = 1)."""

import json

import numpy as np
import pytest
from handmade_cards import make_card

from lyss.aggregate.validation_status import load_raters, rater_block
from lyss.evidence.correlate import CorrelationOptions
from lyss.evidence.dataset import validate_dataset
from lyss.evidence.raters import complete_items, rater_verdict
from lyss.metrics.base import MetricResult
from lyss.metrics.files import write_metric_result
from lyss.report import leaderboard_markdown
from lyss.report.board import best_marks, dataset_notes
from lyss.stats import holm_resolvable


def _rows(table: dict[str, list[float]], items: list[str]):
    methods, ids, human = [], [], []
    for method, values in table.items():
        for item, value in zip(items, values, strict=True):
            if value is not None:
                methods.append(method)
                ids.append(item)
                human.append(value)
    return methods, ids, np.array(human)


def test_holm_needs_more_resamples_than_pairs_over_alpha():
    # 13 systems: 78 pairs; the smallest bootstrap p with N resamples is 1/(N + 1), which Holm multiplies by 78.
    assert 78 / (1000 + 1) > 0.05  # why 1,000 resamples can never give a significant pair among 13 systems
    assert holm_resolvable(1000, 78, 0.05) == 3119 and 78 / (3119 + 1) == 0.025
    assert holm_resolvable(1000, 15, 0.05) == 1000  # 6 systems: 15/1001 < 0.025 already
    assert holm_resolvable(10, 1, 0.05) == 10  # one comparison: no correction
    assert holm_resolvable(5000, 78, 0.05) == 5000


def test_complete_items_are_those_every_method_rated():
    methods, ids, _ = _rows({"a": [1, 2, 3], "b": [1, None, 3], "c": [1, 2, 3]}, ["x", "y", "z"])
    assert complete_items(methods, ids) == ["x", "z"]


def test_means_ranks_and_a_constant_difference():
    items = [f"i{k}" for k in range(8)]
    base = [-3.0, -1.0, 0.0, -5.0, -2.0, -1.0, -4.0, 0.0]
    table = {"better": [v + 1.0 for v in base], "worse": base, "same": list(base), "partial": [0.0] * 7 + [None]}
    methods, ids, human = _rows(table, items)
    verdict = rater_verdict("demo", methods, ids, human, resamples=200, seed=1, alpha=0.05)
    # "partial" has no score for i7, so every mean is over i0..i6: sum(base[:7]) = -16
    assert verdict["items"] == 7 and verdict["dataset"] == "demo"
    assert verdict["methods"]["worse"]["mean"] == pytest.approx(-16 / 7)
    assert verdict["methods"]["better"]["mean"] == pytest.approx(-9 / 7)
    assert verdict["methods"]["partial"] == {"mean": 0.0, "rank": 1}
    # competition ranking: worse and same tie at -16/7 and share rank 3
    assert [verdict["methods"][m]["rank"] for m in ("better", "worse", "same")] == [2, 3, 3]
    preferred = {(p["better"], p["worse"]): p for p in verdict["preferred"]}
    # better − worse is exactly 1 on every item: every resample gives 1, so the CI is [1, 1] and p = 1/(N + 1);
    # 6 pairs → N = max(200, 2·6/0.05 − 1) = 239, Holm multiplies the smallest p by at most 6.
    row = preferred[("better", "worse")]
    assert row["delta"] == pytest.approx(1.0) and row["ci"] == pytest.approx([1.0, 1.0])
    assert row["p_holm"] <= 6 / 240
    assert ("better", "same") in preferred
    assert all("same" not in pair or "worse" not in pair for pair in preferred)  # identical scores: p = 1


def test_no_pair_without_a_shared_item():
    methods, ids, human = _rows({"a": [1.0, None], "b": [None, 2.0]}, ["x", "y"])
    verdict = rater_verdict(None, methods, ids, human, resamples=100, seed=1, alpha=0.05)
    assert verdict["items"] == 0 and verdict["preferred"] == []
    assert verdict["methods"]["a"] == {"mean": None, "rank": None}


def test_card_block_lists_who_the_raters_prefer(tmp_path):
    verdict = {"dataset": "demo", "items": 7,
               "methods": {"a": {"mean": -1.0, "rank": 1}, "b": {"mean": -2.5, "rank": 2}},
               "preferred": [{"better": "a", "worse": "b", "delta": 1.5, "ci": [0.5, 2.5], "p_holm": 0.01}]}
    assert rater_block(verdict, "b") == {"mean": -2.5, "rank": 2, "items": 7, "rated_methods": 2,
                                         "preferred_to_it": [{"method": "a", "delta": 1.5, "ci": [0.5, 2.5],
                                                              "p_holm": 0.01}]}
    assert rater_block(verdict, "a")["preferred_to_it"] == []
    assert rater_block(verdict, "apertium") is None and rater_block(None, "a") is None
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo/raters.json").write_text(json.dumps(verdict))
    (tmp_path / "other").mkdir()
    (tmp_path / "other/raters.json").write_text(json.dumps({**verdict, "dataset": "other"}))
    assert load_raters([tmp_path / "other", tmp_path / "demo"], "demo") == verdict
    assert load_raters([tmp_path / "other"], "demo") is None


def _board(raters_of_alpha):
    alpha = make_card(method="alpha", fingerprint="a", composite=0.8, tier="deployable")
    bravo = make_card(method="bravo", fingerprint="b", composite=0.6)
    alpha["raters"] = raters_of_alpha
    bravo["raters"] = {"mean": -1.0, "rank": 1, "items": 40, "rated_methods": 2, "preferred_to_it": []}
    significance = {"comparisons": [{"metric": "composite", "baseline": "alpha", "system": "bravo",
                                     "significant": True, "p_bs_holm": 0.001}]}
    return [alpha, bravo], significance


def test_star_is_withheld_where_the_raters_prefer_another_system():
    objection = {"mean": -2.0, "rank": 2, "items": 40, "rated_methods": 2,
                 "preferred_to_it": [{"method": "bravo", "delta": 1.0, "ci": [0.4, 1.6], "p_holm": 0.003}]}
    group, significance = _board(objection)
    mark, tip = best_marks(group, significance)["alpha"]
    assert mark == "☆" and "raters (40 items) significantly prefer bravo by 1 [0.4, 1.6]" in tip
    notes = dataset_notes(group)
    assert notes[-1].endswith("1. bravo (-1), 2. alpha (-2)")
    board = leaderboard_markdown(group, {"demo": significance})
    assert "| 1 | alpha ☆ |" in board and "★" not in board.split("\n★")[0]


def test_star_stays_where_the_raters_do_not_object():
    group, significance = _board({"mean": -1.5, "rank": 2, "items": 40, "rated_methods": 2, "preferred_to_it": []})
    assert best_marks(group, significance)["alpha"][0] == "★"
    group, significance = _board(None)  # an unrated method: nothing to weigh
    assert best_marks(group, significance)["alpha"][0] == "★"


def test_the_evidence_stage_writes_the_raters_table(tmp_path):
    ids = [f"e{k}" for k in range(6)]
    human = {"good": [0.0, -1.0, 0.0, -2.0, -1.0, 0.0], "poor": [-6.0, -5.0, -7.0, -6.0, -5.0, -8.0]}
    paths = []
    for method in human:
        path = tmp_path / "metrics" / method / "chrf_plus_plus.parquet"
        values = np.array([80.0, 70, 90, 60, 85, 75]) - (30 if method == "poor" else 0)
        write_metric_result(path, MetricResult("chrf_plus_plus", values, float(values.mean())), ids)
        paths.append(path)
    csv = tmp_path / "human.csv"
    csv.write_text("method,id,human\n" + "".join(f"{m},{i},{h}\n" for m in human
                                                 for i, h in zip(ids, human[m], strict=True)))
    validate_dataset(csv, paths, tmp_path / "out",
                     CorrelationOptions(resamples=100, permutations=100, seed=1, alpha=0.05), dataset="demo")
    table = json.loads((tmp_path / "out/raters.json").read_text())
    assert table["methods"]["good"] == {"mean": pytest.approx(-4 / 6, abs=1e-9), "rank": 1}
    assert table["methods"]["poor"] == {"mean": pytest.approx(-37 / 6, abs=1e-9), "rank": 2}
    # good − poor per item: 6, 4, 7, 4, 4, 8 — every resample's mean lies within [4, 8], so the CI excludes 0
    [row] = table["preferred"]
    assert (row["better"], row["worse"]) == ("good", "poor") and row["delta"] == pytest.approx(33 / 6)
    assert 4 <= row["ci"][0] <= row["ci"][1] <= 8

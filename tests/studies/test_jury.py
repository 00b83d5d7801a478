"""Juries of judges: agreement statistics by hand and against sklearn/scipy, quantile mapping,
leave-one-corpus-out isolation, aggregation rules, combinations, anchors, the rubric condition,
and `lyss jury`."""

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr
from sklearn.metrics import cohen_kappa_score

from lyss.cli import main
from lyss.studies.agreement import grade_agreement, per_grade_exact, quadratic_weighted_kappa
from lyss.studies.anchors import anchor_table, pull
from lyss.studies.calibration import leave_one_corpus_out, quantile_map
from lyss.studies.jury import (
    GradesData,
    JuryOptions,
    before_after_table,
    build_members,
    judge_table,
    jury_grades,
    rubric_table,
    size_and_combination_tables,
    unanimity_table,
)
from lyss.studies.merge_grades import aggregate, to_grade

DEMO = Path(__file__).resolve().parents[2] / "data" / "validation" / "grades.csv"
JUDGES = [f"judge_{c}" for c in "abcdefg"]
LEVELS = [1, 2, 3, 4, 5]


def test_qwk_by_hand_and_against_sklearn():
    # a = (1, 2), b = (2, 1) on a 2-grade scale: observed [[0,1],[1,0]], expected all 0.5,
    # weights [[0,1],[1,0]] -> 1 - 2 / 1 = -1.
    assert quadratic_weighted_kappa([1, 2], [2, 1], [1, 2]) == pytest.approx(-1.0)
    assert quadratic_weighted_kappa([1, 2, 3], [1, 2, 3], LEVELS) == pytest.approx(1.0)
    rng = np.random.default_rng(0)
    a = rng.integers(1, 6, 80)
    b = np.clip(a + rng.integers(-1, 3, 80), 1, 5)
    expected = cohen_kappa_score(a, b, weights="quadratic", labels=LEVELS)
    assert quadratic_weighted_kappa(a, b, LEVELS) == pytest.approx(expected, abs=1e-12)
    # with a grade nobody used, the full scale keeps grade distances (sklearn given the same labels)
    c, d = np.array([1, 3, 5, 3, 1]), np.array([1, 5, 5, 3, 3])
    assert quadratic_weighted_kappa(c, d, LEVELS) == pytest.approx(
        cohen_kappa_score(c, d, weights="quadratic", labels=LEVELS), abs=1e-12
    )


def test_grade_agreement_by_hand():
    # human 1 2 3 4 5, member 2 2 4 4 5: bias (17 - 15) / 5 = 0.4; exact 3/5; within1 5/5;
    # MAE 2/5. Positive = grade >= 4: TP 2, FP 1 (item 3), FN 0, TN 2 ->
    # sensitivity 1, specificity 2/3, F1 = 2*2 / (2*2 + 1 + 0) = 0.8.
    stats = grade_agreement([1, 2, 3, 4, 5], [2, 2, 4, 4, 5], LEVELS, threshold=4)
    assert stats["bias"] == pytest.approx(0.4)
    assert stats["exact"] == pytest.approx(0.6)
    assert stats["within1"] == pytest.approx(1.0)
    assert stats["mae"] == pytest.approx(0.4)
    assert stats["sensitivity"] == pytest.approx(1.0)
    assert stats["specificity"] == pytest.approx(2 / 3)
    assert stats["f1"] == pytest.approx(0.8)
    # per grade: humans gave each grade once; the member matched grades 2, 4, 5.
    assert [exact for _, _, exact in per_grade_exact([1, 2, 3, 4, 5], [2, 2, 4, 4, 5], LEVELS)] == [
        0,
        1,
        0,
        1,
        1,
    ]


def test_aggregation_rules_by_hand():
    grades = np.array([[1, 2, 2, 5, 5], [3, 3, 4, 4, 5]])
    assert aggregate(grades, "median", LEVELS).tolist() == [2, 4]
    assert aggregate(grades, "mean", LEVELS).tolist() == [3, 3.8]
    # trimmed 0.2 of 5 judges drops one at each end: (2+2+5)/3 = 3 and (3+4+4)/3 = 11/3
    assert aggregate(grades, "trimmed", LEVELS) == pytest.approx([3, 11 / 3])
    # majority: row 1 ties 2 and 5 (two votes each), the median 2 picks 2; row 2 ties 3 and 4,
    # median 4 picks 4.
    assert aggregate(grades, "majority", LEVELS).tolist() == [2, 4]
    # two judges 3 and 4: median 3.5 rounds up to 4; majority tie at equal distance goes lower.
    pair = np.array([[3, 4]])
    assert to_grade(aggregate(pair, "median", LEVELS), LEVELS).tolist() == [4]
    assert aggregate(pair, "majority", LEVELS).tolist() == [3]


def test_quantile_map_by_hand():
    # Fit scores 1 2 3 4, fit human grades 1 1 2 3 (sorted). Score 2: 1 below, 2 at or below ->
    # F = (1 + 2) / 8 = 3/8, ceil(3/8 * 4) = 2 -> 2nd smallest grade = 1. Score 3: F = 5/8 ->
    # ceil(2.5) = 3 -> grade 2. Score 4: F = 7/8 -> 4th -> 3. Score 0: F = 0 -> lowest grade 1.
    assert quantile_map([1, 2, 3, 4], [1, 1, 2, 3], [0, 2, 3, 4]).tolist() == [1, 1, 2, 3]


def test_quantile_map_is_monotone_and_matches_the_human_distribution():
    rng = np.random.default_rng(1)
    fit = rng.normal(size=500)
    human = rng.choice(LEVELS, 500, p=[0.3, 0.2, 0.2, 0.2, 0.1])
    mapped = quantile_map(fit, human, np.sort(fit))
    assert np.all(np.diff(mapped) >= 0)
    # mapping the fitting scores themselves reproduces the human grade counts (up to one item per grade)
    counts = np.array([np.sum(mapped == g) for g in LEVELS])
    assert np.abs(counts - np.array([np.sum(human == g) for g in LEVELS])).max() <= 1


def test_leave_one_corpus_out_never_sees_the_scored_corpus():
    rng = np.random.default_rng(2)
    corpus = np.array(["a"] * 60 + ["b"] * 50 + ["c"] * 40)
    human = rng.integers(1, 6, 150).astype(float)
    scores = np.clip(human + rng.normal(0.8, 0.8, 150), 1, 5)
    before = leave_one_corpus_out(corpus, scores, human)
    changed = human.copy()
    changed[corpus == "a"] = rng.integers(1, 6, 60)  # only corpus a's human grades change
    after = leave_one_corpus_out(corpus, scores, changed)
    np.testing.assert_array_equal(before[corpus == "a"], after[corpus == "a"])
    assert not np.array_equal(before[corpus != "a"], after[corpus != "a"])  # the others did use them


def _grades_data(human, corpus, judges):
    return GradesData(
        "grades.csv",
        [f"i{k}" for k in range(len(human))],
        np.asarray(corpus),
        np.asarray(human, float),
        {k: np.asarray(v, float) for k, v in judges.items()},
        {k: "grade" for k in judges},
    )


def _synthetic(seed=3, sizes=(40, 30, 30)):
    rng = np.random.default_rng(seed)
    corpus = np.concatenate([[f"c{k}"] * n for k, n in enumerate(sizes)])
    truth = rng.uniform(0.6, 5.4, len(corpus))
    human = np.clip(np.rint(truth + rng.normal(0, 0.3, len(corpus))), 1, 5)
    judges = {f"j{k}": np.clip(np.rint(truth + 0.8 + rng.normal(0, 0.8, len(corpus))), 1, 5) for k in range(5)}
    return _grades_data(human, corpus, judges)


def test_calibrated_jury_of_a_corpus_ignores_that_corpus_human_grades():
    data = _synthetic()
    names = list(data.judges)
    options = JuryOptions()
    before = {m.name: m.calibrated for m in build_members(data, names, options)}
    data.human[data.corpus == "c0"] = 6 - data.human[data.corpus == "c0"]  # flip c0's human grades
    after = {m.name: m.calibrated for m in build_members(data, names, options)}
    for name in before:
        np.testing.assert_array_equal(before[name][data.corpus == "c0"], after[name][data.corpus == "c0"])


def test_judge_table_against_sklearn_and_scipy_and_ranks():
    data = _synthetic(seed=4)
    names = list(data.judges)
    options = JuryOptions()
    rows, _ = judge_table(data, build_members(data, names, options), names, options)
    mask = data.corpus == "c1"
    row = next(r for r in rows if r["corpus"] == "c1" and r["member"] == "j2" and not r["calibrated"])
    assert row["qwk"] == pytest.approx(
        cohen_kappa_score(data.human[mask], data.judges["j2"][mask], weights="quadratic", labels=LEVELS),
        abs=1e-12,
    )
    assert row["spearman"] == pytest.approx(spearmanr(data.human[mask], data.judges["j2"][mask])[0], abs=1e-12)
    raw = [r for r in rows if r["corpus"] == "c1" and not r["calibrated"]]
    singles = {r["member"]: r["exact"] for r in raw if not r["member"].startswith("jury:")}
    for r in raw:
        others = [v for m, v in singles.items() if m != r["member"]]
        assert r["rank_exact"] == 1 + sum(v > r["exact"] for v in others)


def test_size_curve_and_combinations_by_hand():
    # Three judges on one corpus, raw only. Size 1: the mean of the judges' exact agreement;
    # size 3: the median of the three. Judge exact: j0 3/4, j1 2/4, j2 1/4 -> size-1 mean 0.5.
    # Medians per item: (1,1,2)->1, (2,3,3)->3, (3,3,1)->3, (4,2,2)->2 vs human 1,2,3,4: exact 2/4.
    human = [1, 2, 3, 4]
    data = _grades_data(human, ["x"] * 4, {"j0": [1, 2, 3, 2], "j1": [1, 3, 3, 2], "j2": [2, 3, 1, 4]})
    sizes, combos, counts = size_and_combination_tables(data, ["j0", "j1", "j2"], JuryOptions())
    assert [(r["size"], r["combinations"]) for r in sizes] == [(1, 3), (3, 1)]
    assert sizes[0]["exact"] == pytest.approx(0.5) and sizes[1]["exact"] == pytest.approx(0.5)
    (combo,) = combos
    assert combo["member_mean_exact"] == pytest.approx(0.5) and combo["member_best_exact"] == pytest.approx(0.75)
    assert not combo["beats_member_mean"] and not combo["at_least_member_best"]
    assert counts["raw"]["x"] == {
        "combinations": 1,
        "beats_member_mean": 0,
        "at_least_member_best": 0,
        "beats_member_best": 0,
        "both": 0,
    }


def test_combinations_better_with_rubric_by_hand():
    # The size-curve case plus rubric grades j0 1 2 3 3, j1 1 2 3 2, j2 2 3 3 4. Rubric medians:
    # (1,1,2)->1, (2,2,3)->2, (3,3,3)->3, (3,2,4)->3 vs human 1,2,3,4: exact 3/4 > blind 2/4, so
    # better with the rubric (2); the jury still does not beat its member mean (1): (1)+(2) = 0.
    data = _grades_data([1, 2, 3, 4], ["x"] * 4, {"j0": [1, 2, 3, 2], "j1": [1, 3, 3, 2], "j2": [2, 3, 1, 4]})
    data.rubric = {"j0": np.array([1, 2, 3, 3.0]), "j1": np.array([1, 2, 3, 2.0]), "j2": np.array([2, 3, 3, 4.0])}
    _, combos, counts = size_and_combination_tables(data, ["j0", "j1", "j2"], JuryOptions())
    (combo,) = combos
    assert combo["jury_exact_rubric"] == pytest.approx(0.75) and combo["better_with_rubric"]
    assert counts["raw"]["x"] | counts["raw"]["every corpus"] == {
        "combinations": 1,
        "beats_member_mean": 0,
        "at_least_member_best": 0,
        "beats_member_best": 0,
        "better_with_rubric": 1,
        "both": 0,
        "mean_and_rubric": 0,
        "mean_rubric_and_best": 0,
    }


def _rubric_case():
    """Two corpora x, y of four items, human 1 2 3 4 in both; two judges, blind and rubric."""
    return _grades_data(
        [1, 2, 3, 4] * 2,
        ["x"] * 4 + ["y"] * 4,
        {"j0": [2, 3, 4, 5, 2, 3, 5, 4], "j1": [1, 3, 4, 5, 1, 3, 4, 5]},
    )


def test_rubric_table_by_hand():
    # Quantile mapping with fit human grades 1 2 3 4: a score s with L fit scores below it and R at
    # or below maps to grade max(1, ceil((L + R) / 2)).
    # Blind fits (the other corpus's blind grades; the same multiset in x and y for each judge):
    #   j0 {2,3,4,5}: 1->1 2->1 3->2 4->3 5->4;  j1 {1,3,4,5}: 1->1 2->1 3->2 4->3 5->4.
    #   jury mean, x is mapped with y's {1.5,3,4.5,4.5}: 1.5->1 3->2 4->2 4.5->3 5->4;
    #   y is mapped with x's {1.5,3,4,5}: 1.5->1 2->1 3->2 3.5->2 4->3 4.5->3.
    # Blind: x jury mean 1.5 3 4 5 -> 1 2 2 4: 3/4; y 1.5 3 4.5 4.5 -> 1 2 3 3: 3/4.
    #   judges calibrated: x j0 1 2 3 4 (1), j1 1 2 3 4 (1) -> mean 1; y j0 1 2 4 3 (1/2), j1 (1) -> 3/4.
    #   raw median: x 1.5 3 4 5 -> 2 3 4 5: 0; y 1.5 3 4.5 4.5 -> 2 3 5 5: 0.
    # Rubric x: j0 1 3 4 5, j1 2 3 5 5. Jury mean 1.5 3 4.5 5 -> 1 2 3 4: 1 (+1/4). j0 -> 1 2 3 4 (1),
    #   j1 -> 1 2 4 4 (3/4): mean 7/8 (-1/8). Median 1.5 3 4.5 5 -> 2 3 5 5: 0 (+0).
    # Rubric y: j0 2 2 4 4, j1 1 2 3 5. Jury mean 1.5 2 3.5 4.5 -> 1 1 2 3: 1/4 (-1/2). j0 -> 1 1 3 3
    #   (1/2), j1 -> 1 1 2 4 (1/2): mean 1/2 (-1/4). Median 1.5 2 3.5 4.5 -> 2 2 4 5: 1/4 (+1/4).
    data = _rubric_case()
    data.rubric = {
        "j0": np.array([1, 3, 4, 5, 2, 2, 4, 4], float),
        "j1": np.array([2, 3, 5, 5, 1, 2, 3, 5], float),
    }
    options = JuryOptions()
    x, y = rubric_table(data, ["j0", "j1"], options)
    expected = {
        "x": (0.75, 1.0, 1.0, 7 / 8, 0.0, 0.0),
        "y": (0.75, 0.25, 0.75, 0.5, 0.0, 0.25),
    }
    for row in (x, y):
        jury_b, jury_r, mean_b, mean_r, raw_b, raw_r = expected[row["corpus"]]
        assert row["n"] == 4 and row["members"] == 2
        assert (row["jury_cal_blind"], row["jury_cal_rubric"]) == pytest.approx((jury_b, jury_r))
        assert (row["member_mean_cal_blind"], row["member_mean_cal_rubric"]) == pytest.approx((mean_b, mean_r))
        assert (row["jury_raw_blind"], row["jury_raw_rubric"]) == pytest.approx((raw_b, raw_r))
        assert row["jury_cal_change"] == pytest.approx(jury_r - jury_b)
        assert row["member_mean_cal_change"] == pytest.approx(mean_r - mean_b)
        assert row["jury_raw_change"] == pytest.approx(raw_r - raw_b)
    # The blind side is the before/after table's (same members, rules and calibration).
    judge_rows, _ = judge_table(data, build_members(data, ["j0", "j1"], options), ["j0", "j1"], options)
    for row, before in zip((x, y), before_after_table(data, judge_rows, ["j0", "j1"], options), strict=True):
        assert row["jury_cal_blind"] == pytest.approx(before["jury_cal"])
        assert row["member_mean_cal_blind"] == pytest.approx(before["member_mean_cal"])
        assert row["jury_raw_blind"] == pytest.approx(before["jury_raw"])
    # One corpus: no calibration, only the raw jury is compared.
    single = _grades_data([1, 2, 3, 4], ["x"] * 4, {k: v[:4] for k, v in data.judges.items()})
    single.rubric = {k: v[:4] for k, v in data.rubric.items()}
    (row,) = rubric_table(single, ["j0", "j1"], options)
    assert row["jury_raw_rubric"] == pytest.approx(0.0) and "jury_cal_rubric" not in row


def test_rubric_grades_are_mapped_with_the_blind_fit():
    data = _synthetic(seed=7)
    rng = np.random.default_rng(7)
    names = list(data.judges)
    data.rubric = {n: np.clip(v + rng.integers(-1, 1, len(v)), 1, 5) for n, v in data.judges.items()}
    options = JuryOptions()
    scored, others = data.corpus == "c0", data.corpus != "c0"

    def calibrated_rubric():
        """c0's calibrated rubric grades: the jury's and each judge's alone, and c0's rubric row."""
        grades = [
            jury_grades(data, chosen, options, rubric=True)[2][scored] for chosen in [names, *[[n] for n in names]]
        ]
        return grades, rubric_table(data, names, options)[0]

    before, row = calibrated_rubric()
    # Other corpora's rubric grades change: nothing about c0 moves (no fit on rubric grades) ...
    for n in names:
        data.rubric[n][others] = rng.integers(1, 6, others.sum())
    after, row_after = calibrated_rubric()
    for b, a in zip(before, after, strict=True):
        np.testing.assert_array_equal(b, a)
    assert row_after == row
    # ... while changing their blind grades (the fit) moves c0's calibrated rubric grades.
    for n in names:
        data.judges[n][others] = np.clip(data.judges[n][others] - 2, 1, 5)
    moved, _ = calibrated_rubric()
    assert not np.array_equal(before[0], moved[0])
    assert all(not np.array_equal(b, m) for b, m in zip(before[1:], moved[1:], strict=True))
    # and the scored corpus's blind grades play no part in its calibrated rubric grades
    data.judges = {n: np.where(scored, 6 - v, v) for n, v in data.judges.items()}
    flipped, _ = calibrated_rubric()
    for m, f in zip(moved, flipped, strict=True):
        np.testing.assert_array_equal(m, f)


def test_seven_judges_give_57_odd_combinations():
    data = _synthetic(seed=5)
    data.judges |= {"j5": data.judges["j0"], "j6": data.judges["j1"]}
    data.kinds |= {"j5": "grade", "j6": "grade"}
    _, _, counts = size_and_combination_tables(data, list(data.judges), JuryOptions())
    assert counts["calibrated"]["every corpus"]["combinations"] == 35 + 21 + 1


def test_before_after_by_hand():
    # One corpus, judges j0 j1 j2 as in the size-curve case: exact 3/4, 2/4, 1/4; raw median jury 2/4.
    # Member mean 0.5, best j0 0.75, gain 0, beats nobody strictly except j2 (0.25): 1 member beaten.
    # Biases: j0 (8 - 10)/4 = -0.5, j1 (9 - 10)/4 = -0.25, j2 (10 - 10)/4 = 0 -> mean -0.25.
    data = _grades_data([1, 2, 3, 4], ["x"] * 4, {"j0": [1, 2, 3, 2], "j1": [1, 3, 3, 2], "j2": [2, 3, 1, 4]})
    names = ["j0", "j1", "j2"]
    options = JuryOptions()
    judge_rows, _ = judge_table(data, build_members(data, names, options), names, options)
    (row,) = before_after_table(data, judge_rows, names, options)
    assert row["jury_raw"] == pytest.approx(0.5) and row["member_mean_raw"] == pytest.approx(0.5)
    assert row["best_member_raw"] == "j0" and row["member_best_raw"] == pytest.approx(0.75)
    assert row["members_beaten_raw"] == 1 and row["gain_raw"] == pytest.approx(0.0)
    assert row["human_mean"] == pytest.approx(2.5) and row["member_bias_mean"] == pytest.approx(-0.25)
    assert "jury_cal" not in row  # one corpus: nothing to calibrate out of corpus


def test_unanimity_by_hand():
    # Items: (2,2,2) human 2 -> unanimous and right; (3,3,3) human 4 -> unanimous, wrong;
    # (1,2,1) human 1 -> split. Unanimity 2/3, exact when unanimous 1/2. Routing split items to
    # j0 or j2 gives 2/3, to j1 gives 1/3.
    data = _grades_data([2, 4, 1], ["x"] * 3, {"j0": [2, 3, 1], "j1": [2, 3, 2], "j2": [2, 3, 1]})
    (row,) = unanimity_table(data, ["j0", "j1", "j2"])
    assert row["unanimity_rate"] == pytest.approx(2 / 3)
    assert row["exact_when_unanimous"] == pytest.approx(0.5)
    assert row["best_fallback"] == "j0" and row["exact_routed"] == pytest.approx(2 / 3)


def test_anchor_pull_by_hand():
    # blind 2 2 3 4, anchored 3 2 3 2, anchor 4 1 3 5:
    # item 1 moves 2 -> 3 toward 4; item 2 and 3 stay; item 4 moves 4 -> 2 away from 5.
    # mean shift in the anchor's direction: (+1 + 0 + 0 - 2) / 4 = -0.25.
    moved = pull(np.array([2, 2, 3, 4]), np.array([3, 2, 3, 2]), np.array([4, 1, 3, 5]))
    assert moved == {
        "toward": 0.25,
        "away": 0.25,
        "equal_anchor_blind": 0.25,
        "equal_anchor_anchored": 0.25,
        "mean_shift": -0.25,
    }


def test_anchor_table_effect_and_split():
    data = _synthetic(seed=6)
    rng = np.random.default_rng(0)
    data.anchor = rng.integers(1, 6, len(data.items)).astype(float)
    data.anchored = {n: np.where(rng.random(len(data.items)) < 0.4, data.anchor, v) for n, v in data.judges.items()}
    options = JuryOptions(resamples=300)
    rows = anchor_table(data, list(data.judges), options)
    assert {r["member"] for r in rows} == {*data.judges, "judges:mean", "jury:median", "jury:mean"}
    mask = data.corpus == "c0"
    row = next(r for r in rows if r["corpus"] == "c0" and r["member"] == "j1")
    blind_right = data.judges["j1"][mask] == data.human[mask]
    anchored_right = data.anchored["j1"][mask] == data.human[mask]
    assert row["exact_effect"] == pytest.approx(anchored_right.mean() - blind_right.mean())
    assert row["exact_effect_lo"] <= row["exact_effect"] <= row["exact_effect_hi"]
    truth = data.anchor[mask] == data.human[mask]
    assert row["exact_anchored_anchor_true"] == pytest.approx(anchored_right[truth].mean())
    assert row["n_anchor_true"] == truth.sum()


def _read(path):
    with open(path, encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_cli_on_demo_data(tmp_path):
    out = tmp_path / "jury"
    code = main(
        [
            "jury",
            str(DEMO),
            "--human",
            "human",
            "--judges",
            ",".join([*JUDGES, "metric_sim"]),
            "--corpus",
            "corpus",
            "--anchor",
            "anchor",
            "--resamples",
            "200",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    judges = _read(out / "judges.csv")
    assert list(judges[0])[:10] == [
        "corpus",
        "member",
        "calibrated",
        "n",
        "bias",
        "exact",
        "within1",
        "mae",
        "spearman",
        "qwk",
    ]
    demo = _read(DEMO)
    news = [r for r in demo if r["corpus"] == "news"]
    human = np.array([float(r["human"]) for r in news])
    matrix = np.array([[float(r[j]) for j in JUDGES] for r in news])
    median = np.floor(np.median(matrix, axis=1) + 0.5)
    row = next(r for r in judges if r["corpus"] == "news" and r["member"] == "jury:median" and r["calibrated"] == "no")
    assert float(row["exact"]) == pytest.approx(np.mean(median == human), abs=1e-6)
    row = next(r for r in judges if r["corpus"] == "news" and r["member"] == "judge_a" and r["calibrated"] == "no")
    assert float(row["bias"]) == pytest.approx(matrix[:, 0].mean() - human.mean(), abs=1e-5)
    assert float(row["qwk"]) == pytest.approx(
        cohen_kappa_score(human, matrix[:, 0], weights="quadratic", labels=LEVELS), abs=1e-5
    )
    metric = next(r for r in judges if r["member"] == "metric_sim" and r["calibrated"] == "no")
    assert metric["exact"] == "" and metric["spearman"] != ""  # continuous: graded only via calibration
    assert {(r["member"], r["calibrated"]) for r in judges} >= {("metric_sim", "yes"), ("jury:mean", "yes")}
    sizes = _read(out / "sizes.csv")
    assert [int(r["size"]) for r in sizes if r["corpus"] == "news" and r["calibrated"] == "no"] == [
        1,
        3,
        5,
        7,
    ]
    assert len(_read(out / "combinations.csv")) == 3 * 2 * 57  # corpora x (raw, calibrated) x combinations
    items = _read(out / "items.csv")
    assert list(items[0]) == [
        "item",
        "corpus",
        "member",
        "human",
        "raw_score",
        "raw_grade",
        "calibrated_grade",
    ]
    assert len(items) == len(demo) * (len(JUDGES) + 1 + 4)
    assert {r["member"] for r in _read(out / "anchors.csv")} >= {"judges:mean", "jury:median", "jury:mean"}
    assert _read(out / "per_grade.csv") and _read(out / "before_after.csv")
    for png in ("jury_sizes.png", "distributions.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_rubric_on_demo_data(tmp_path):
    out = tmp_path / "jury"
    args = ["jury", str(DEMO), "--human", "human", "--judges", ",".join(JUDGES), "--corpus", "corpus"]
    assert main([*args, "--no-plots", "--out", str(out)]) == 0
    rubric = _read(out / "rubric.csv")
    assert list(rubric[0]) == [
        "corpus",
        "n",
        "members",
        "raw_rule",
        "calibrated_rule",
        *(f"{s}_{w}" for s in ("jury_cal", "member_mean_cal", "jury_raw") for w in ("blind", "rubric", "change")),
    ]
    assert [r["corpus"] for r in rubric] == ["news", "dialogue", "patents"]
    assert all(r[k] != "" for r in rubric for k in r)
    # the raw median vote on the rubric columns, by hand
    news = [r for r in _read(DEMO) if r["corpus"] == "news"]
    human = np.array([float(r["human"]) for r in news])
    median = np.floor(np.median([[float(r[f"{j}_rubric"]) for j in JUDGES] for r in news], axis=1) + 0.5)
    row = rubric[0]
    assert float(row["jury_raw_rubric"]) == pytest.approx(np.mean(median == human), abs=1e-6)
    assert float(row["jury_raw_change"]) == pytest.approx(
        float(row["jury_raw_rubric"]) - float(row["jury_raw_blind"]), abs=1e-5
    )
    # the whole-jury combination carries the same rubric numbers; every combination has the flag
    combos = _read(out / "combinations.csv")
    assert all(c["better_with_rubric"] in ("yes", "no") for c in combos)
    for c in combos:
        if c["members"] == "+".join(JUDGES) and c["corpus"] == "news":
            tag = "jury_cal" if c["calibrated"] == "yes" else "jury_raw"
            assert float(c["jury_exact_rubric"]) == pytest.approx(float(row[f"{tag}_rubric"]), abs=1e-6)
    counts = json.loads((out / "summary.json").read_text(encoding="utf-8"))["odd_combinations"]
    for version in ("raw", "calibrated"):
        for corpus, count in counts[version].items():
            rows = [c for c in combos if c["calibrated"] == ("yes" if version == "calibrated" else "no")]
            if corpus != "every corpus":
                rows = [c for c in rows if c["corpus"] == corpus]
                assert count["better_with_rubric"] == sum(c["better_with_rubric"] == "yes" for c in rows)
                assert count["mean_and_rubric"] == sum(
                    c["better_with_rubric"] == "yes" and c["beats_member_mean"] == "yes" for c in rows
                )
            assert count["mean_and_rubric"] <= min(count["beats_member_mean"], count["better_with_rubric"])
            assert count["mean_rubric_and_best"] <= min(count["mean_and_rubric"], count["both"])


def test_cli_rubric_columns_for_some_jury_members_only(tmp_path, capsys):
    partial = tmp_path / "grades.csv"
    partial.write_text("item,human,a,b,c,a_rubric,c_rubric\nx,3,3,4,3,3,3\ny,2,2,2,1,2,2\n", encoding="utf-8")
    args = ["jury", str(partial), "--human", "human", "--no-plots", "--out", str(tmp_path / "o"), "--judges"]
    assert main([*args, "a,b,c"]) == 2
    message = capsys.readouterr().err
    assert f"{partial}:1" in message and "field 'b_rubric'" in message and "2 of 3 jury members" in message
    # a jury without b is complete (rubric.csv written); a rubric grade off the scale names its line and column
    assert main([*args, "a,c"]) == 0 and (tmp_path / "o" / "rubric.csv").exists()
    partial.write_text("item,human,a,b,a_rubric,b_rubric\nx,3,3,4,3,3\ny,2,2,2,2,9\n", encoding="utf-8")
    assert main(["jury", str(partial), "--human", "human", "--judges", "a,b", "--out", str(tmp_path / "o")]) == 2
    message = capsys.readouterr().err
    assert f"{partial}:3" in message and "field 'b_rubric'" in message


def test_cli_bad_input_names_file_line_and_field(tmp_path, capsys):
    bad = tmp_path / "grades.csv"
    bad.write_text("item,human,a,b\nx,3,3,4\ny,7,2,2\n", encoding="utf-8")
    assert main(["jury", str(bad), "--human", "human", "--judges", "a,b", "--out", str(tmp_path / "o")]) == 2
    message = capsys.readouterr().err
    assert f"{bad}:3" in message and "field 'human'" in message and "not on the scale" in message
    assert main(["jury", str(bad), "--human", "human", "--judges", "a,zz", "--out", str(tmp_path / "o")]) == 2
    assert "missing column 'zz'" in capsys.readouterr().err
    text = tmp_path / "text.csv"
    text.write_text("item,human,a,b\nx,3,3,4\ny,2,two,2\n", encoding="utf-8")
    assert main(["jury", str(text), "--human", "human", "--judges", "a,b", "--out", str(tmp_path / "o")]) == 2
    message = capsys.readouterr().err
    assert f"{text}:3" in message and "field 'a'" in message

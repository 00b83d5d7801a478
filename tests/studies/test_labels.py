"""lyss.studies.labels and `lyss labels`: hand-computed rules, bootstrap coverage, krippendorff."""

import csv
import json
from pathlib import Path

import krippendorff
import numpy as np
import pytest

from lyss.cli import main
from lyss.errors import InputError
from lyss.studies.agreement import krippendorff_alpha_ordinal
from lyss.studies.labels import (
    ItemLabel,
    LabelRules,
    bootstrap_mean_interval,
    class_from_interval,
    class_from_shares,
    crosstab,
    read_ratings,
)
from lyss.tables import read_csv

DEMO = Path(__file__).resolve().parents[2] / "data" / "validation" / "ratings.csv"


@pytest.mark.parametrize(
    ("ratings", "expected"),
    [
        ([1, 2, 3, 1, -1], "entailment"),  # 4 of 5 above 0 = 80 %
        ([-1, -2, -3, -1, 2], "contradiction"),  # 4 of 5 below 0
        ([0, 0, 0, 0, 1], "neutral"),  # 4 of 5 exactly 0
        ([1, 2, -1, -1, 0], "unclassified"),  # 2/5 above, 2/5 below, 1/5 at 0
        ([1, 1, 1, 1, 1, 1, -1, -1], "unclassified"),  # 6 of 8 = 75 % < 80 %
        ([1, 1, 1, 1, 1, 1, 1, -1], "entailment"),  # 7 of 8 = 87.5 %: the spec's "7 of 8 annotators"
    ],
)
def test_restrictive_rule_hand_cases(ratings, expected):
    assert class_from_shares(ratings, LabelRules()) == expected


def test_restrictive_rule_share_is_configurable():
    # 3 of 5 above 0 = 60 %: unclassified at 80 %, entailment at 60 %.
    assert class_from_shares([1, 1, 1, -1, 0], LabelRules()) == "unclassified"
    assert class_from_shares([1, 1, 1, -1, 0], LabelRules(share=0.6)) == "entailment"


@pytest.mark.parametrize(
    ("interval", "strict", "inclusive"),
    [
        ((0.2, 1.0), "entailment", "entailment"),
        ((-1.0, -0.2), "contradiction", "contradiction"),
        ((-1.0, 1.0), "neutral", "neutral"),
        ((0.0, 1.2), "neutral", "entailment"),  # touches 0 from above
        ((-1.0, 0.0), "neutral", "contradiction"),  # touches 0 from below
        ((0.0, 0.0), "neutral", "neutral"),  # the single point 0 lies on neither side
    ],
)
def test_interval_rule_and_touching_option(interval, strict, inclusive):
    assert class_from_interval(*interval, LabelRules()) == strict
    assert class_from_interval(*interval, LabelRules(touching="inclusive")) == inclusive


def test_interval_rule_uses_the_configured_neutral_point():
    # On a 1..7 scale with neutral 4, an interval (4.2, 5) is above the neutral point.
    assert class_from_interval(4.2, 5.0, LabelRules(neutral=4)) == "entailment"


def test_bootstrap_interval_two_values_by_hand():
    # Ratings (1, 3): a resample of two draws has mean 1 (p = 1/4), 2 (p = 1/2) or 3 (p = 1/4);
    # the 2.5 % and 97.5 % quantiles of 10,000 such means are therefore 1 and 3.
    assert bootstrap_mean_interval([1, 3], 10_000, 0.95, seed=1) == (1.0, 3.0)
    # Identical ratings: every resample has the same mean.
    assert bootstrap_mean_interval([2, 2, 2], 500, 0.95, seed=1) == (2.0, 2.0)


def test_bootstrap_interval_coverage_on_simulated_data():
    # 300 samples of 40 from N(0.5, 1): the 95 % percentile interval should contain 0.5 about 95 %
    # of the time (the percentile bootstrap runs slightly narrow at this size).
    rng = np.random.default_rng(7)
    hits = 0
    for k in range(300):
        sample = rng.normal(0.5, 1.0, 40)
        low, high = bootstrap_mean_interval(sample, 1000, 0.95, seed=k)
        hits += low <= 0.5 <= high
    assert 0.90 <= hits / 300 <= 0.98


def test_bootstrap_interval_is_deterministic_for_a_seed():
    values = [1, -2, 3, 0, 2, 2]
    assert bootstrap_mean_interval(values, 2000, 0.9, seed=5) == bootstrap_mean_interval(values, 2000, 0.9, seed=5)


def test_krippendorff_hand_case():
    # Two units each rated (1, 2): coincidences o12 = o21 = 2, n1 = n2 = 2, n = 4.
    # Ordinal delta^2(1,2) = (n1 + n2 - (n1 + n2)/2)^2 = 4. Observed sum o*delta = 16,
    # expected sum n_c*n_k*delta = 2*2*4*2 = 32, alpha = 1 - (n - 1) * 16 / 32 = -0.5.
    assert krippendorff_alpha_ordinal([[1, 2], [1, 2]]) == pytest.approx(-0.5)
    assert krippendorff_alpha_ordinal([[1, 1], [3, 3], [2, 2, 2]]) == pytest.approx(1.0)


def test_krippendorff_matches_the_krippendorff_package():
    rng = np.random.default_rng(3)
    truth = rng.integers(-3, 4, 40)
    matrix = np.vstack([np.clip(truth + rng.integers(-1, 2, 40), -3, 3) for _ in range(5)]).astype(float)
    matrix[rng.random(matrix.shape) < 0.2] = np.nan  # missing ratings
    units = [col[~np.isnan(col)] for col in matrix.T]
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal")
    assert krippendorff_alpha_ordinal(units) == pytest.approx(expected, rel=1e-10)


def test_crosstab_counts_and_totals():
    def item(ci, restrict):
        return ItemLabel("x", 5, 0.0, 0.0, 0.0, ci, restrict, "")

    labels = [
        item("entailment", "entailment"),
        item("entailment", "unclassified"),
        item("neutral", "unclassified"),
        item("contradiction", "contradiction"),
    ]
    header, rows = crosstab(labels)
    assert header == ["class_ci", "entailment", "neutral", "contradiction", "unclassified", "total"]
    by_row = {r["class_ci"]: r for r in rows}
    assert by_row["entailment"]["entailment"] == 1 and by_row["entailment"]["unclassified"] == 1
    assert by_row["entailment"]["total"] == 2
    assert by_row["total"] == {
        "class_ci": "total",
        "entailment": 1,
        "neutral": 0,
        "contradiction": 1,
        "unclassified": 2,
        "total": 4,
    }


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_read_ratings_rejects_off_scale_duplicates_and_text(tmp_path):
    off = _write(tmp_path / "off.csv", "item,annotator,score\na,x,1\na,y,4\n")
    with pytest.raises(InputError) as err:
        read_ratings(read_csv(off), "item", "annotator", "score", (-3, 3))
    assert (err.value.line, err.value.field) == (3, "score")
    twice = _write(tmp_path / "twice.csv", "item,annotator,score\na,x,1\na,x,2\n")
    with pytest.raises(InputError, match="twice") as err:
        read_ratings(read_csv(twice), "item", "annotator", "score", (-3, 3))
    assert err.value.line == 3
    text = _write(tmp_path / "text.csv", "item,annotator,score\na,x,1\na,y,high\n")
    with pytest.raises(InputError, match="not a number") as err:
        read_ratings(read_csv(text), "item", "annotator", "score", (-3, 3))
    assert (err.value.line, err.value.field) == (3, "score")


def _demo_ratings() -> dict[str, list[float]]:
    by_item: dict[str, list[float]] = {}
    with open(DEMO, encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            by_item.setdefault(row["item"], []).append(float(row["score"]))
    return by_item


def test_cli_on_demo_data(tmp_path):
    out = tmp_path / "labels"
    assert main(["labels", str(DEMO), "--out", str(out), "--resamples", "2000"]) == 0
    with open(out / "labels.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == [
        "item",
        "n",
        "mean",
        "ci_lower",
        "ci_upper",
        "class_ci",
        "class_restrict",
        "flag",
    ]
    ratings = _demo_ratings()
    assert [r["item"] for r in rows] == list(ratings)
    for row in rows:
        values = ratings[row["item"]]
        assert int(row["n"]) == len(values)
        assert float(row["mean"]) == pytest.approx(np.mean(values), abs=1e-5)
        if len(values) < 2:
            assert row["class_ci"] == row["class_restrict"] == "insufficient" and row["flag"]
            continue
        above = sum(v > 0 for v in values) / len(values)
        below = sum(v < 0 for v in values) / len(values)
        zero = sum(v == 0 for v in values) / len(values)
        expected = (
            "entailment"
            if above >= 0.8
            else "contradiction"
            if below >= 0.8
            else "neutral"
            if zero >= 0.8
            else "unclassified"
        )
        assert row["class_restrict"] == expected
        low, high = float(row["ci_lower"]), float(row["ci_upper"])
        assert min(values) <= low <= float(row["mean"]) <= high <= max(values)
        assert row["class_ci"] == ("entailment" if low > 0 else "contradiction" if high < 0 else "neutral")
    summary = json.loads((out / "summary.json").read_text())
    for rule in ("class_ci", "class_restrict"):
        assert sum(summary[rule].values()) == len(rows)
        for label, count in summary[rule].items():
            assert count == sum(r[rule] == label for r in rows)
    with open(out / "crosstab.csv", encoding="utf-8") as handle:
        table = {r["class_ci"]: r for r in csv.DictReader(handle)}
    assert int(table["total"]["total"]) == len(rows)
    assert int(table["entailment"]["total"]) == summary["class_ci"]["entailment"]
    assert int(table["total"]["unclassified"]) == summary["class_restrict"]["unclassified"]
    matrix_alpha = krippendorff.alpha(
        reliability_data=[[v[k] if k < len(v) else np.nan for v in ratings.values()] for k in range(5)],
        level_of_measurement="ordinal",
    )
    # The demo file lists each item's annotators in the same order, so the rows above line up.
    assert summary["krippendorff_alpha_ordinal"] == pytest.approx(matrix_alpha, rel=1e-9)


def test_cli_bad_input_names_file_line_and_field(tmp_path, capsys):
    bad = _write(tmp_path / "ratings.csv", "item,annotator,score\na,x,1\na,y,lots\n")
    assert main(["labels", str(bad), "--out", str(tmp_path / "out")]) == 2
    message = capsys.readouterr().err
    assert f"{bad}:3" in message and "field 'score'" in message
    missing = _write(tmp_path / "cols.csv", "item,rater,score\na,x,1\n")
    assert main(["labels", str(missing), "--out", str(tmp_path / "out")]) == 2
    assert "missing column 'annotator'" in capsys.readouterr().err

"""Label-bias probe: McNemar against scipy, AUROC against sklearn, hand-computed tables, the two-call
test, the determinism check, RUNS.jsonl validation and `lyss probe`."""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest
from sklearn.metrics import roc_auc_score

from lyss.cli import main
from lyss.errors import InputError
from lyss.stats import mcnemar_p as mcnemar_exact
from lyss.stats.correlation import auroc
from lyss.studies.probe import (
    Probe,
    ProbeOptions,
    Record,
    accuracy_table,
    auroc_table,
    comparison_table,
    determinism_table,
    read_runs,
    threshold_table,
    total_variation,
    two_call_table,
)

DEMO = Path(__file__).resolve().parents[2] / "data" / "validation" / "probe_runs.jsonl"


@pytest.mark.parametrize(("only_a", "only_b"), [(0, 0), (1, 0), (5, 0), (9, 1), (13, 6), (40, 52)])
def test_mcnemar_exact_equals_scipy_binomtest(only_a, only_b):
    n = only_a + only_b
    expected = binomtest(only_a, n, 0.5).pvalue if n else 1.0
    assert mcnemar_exact(only_a, only_b) == pytest.approx(expected, rel=1e-12)


def test_mcnemar_by_hand():
    # 5 discordant pairs all one way: two-sided p = 2 * (1/2)^5 = 0.0625.
    assert mcnemar_exact(5, 0) == pytest.approx(0.0625)


def test_auroc_by_hand_and_against_sklearn():
    # Right answers scored 0.9 and 0.6, wrong ones 0.6 and 0.3: of 4 (right, wrong) pairs 3 are
    # ordered correctly and one is tied (0.6 vs 0.6, counts 1/2): AUROC = 3.5 / 4.
    assert auroc([0.9, 0.6, 0.6, 0.3], [True, True, False, False]) == pytest.approx(0.875)
    rng = np.random.default_rng(0)
    scores = np.round(rng.random(60), 1)  # ties on purpose
    right = rng.random(60) < scores
    assert auroc(scores, right) == pytest.approx(roc_auc_score(right, scores), abs=1e-12)
    weights = rng.integers(0, 4, 60)
    assert auroc(scores, right, weights) == pytest.approx(
        roc_auc_score(np.repeat(right, weights), np.repeat(scores, weights)), abs=1e-12
    )


def _record(run, condition, item, gold, probs, options=None, line=1, confidence=None):
    return Record(line, run, condition, item, gold, probs, options or {k: k for k in probs}, confidence)


SHIFT = {"loc": "hum", "hum": "loc", "num": "num"}  # shown label -> category of its definition


def test_record_scores_by_definition_and_detects_label_following():
    # Gold "hum". Under shifted labels the option *shown as* "hum" carries the definition of "loc".
    record = _record("r", "shifted", "q", "hum", {"loc": 0.1, "hum": 0.8, "num": 0.1}, SHIFT)
    assert record.chosen == "hum" and record.predicted == "loc"
    assert not record.correct and record.followed_label and record.shifted
    assert record.by_category() == {"hum": 0.1, "loc": 0.8, "num": 0.1}


def test_total_variation_by_hand():
    assert total_variation({"a": 0.5, "b": 0.5}, {"a": 1.0}) == pytest.approx(0.5)
    assert total_variation({"a": 0.2, "b": 0.8}, {"a": 0.2, "b": 0.8}) == 0


def test_total_variation_is_the_same_float_under_every_hash_seed():
    """These four gaps sum to 0.2 or 0.20000000000000004 depending on the order; a set's order follows the
    process's hash seed, so the two-call table once differed between two identical runs."""
    p = {"A": 0.1, "B": 0.2, "C": 0.7000000000000001, "D": 1e-17}
    q = {"A": 0.3, "B": 0.05, "C": 0.65, "D": 0.0}
    gaps = [abs(p[k] - q[k]) for k in "ABCD"]
    in_sorted_order = 0.5 * (((gaps[0] + gaps[1]) + gaps[2]) + gaps[3])
    assert in_sorted_order != 0.5 * (((gaps[2] + gaps[3]) + gaps[0]) + gaps[1])  # the order C, D, A, B differs
    code = f"from lyss.studies.probe import total_variation; print(repr(total_variation({p!r}, {q!r})))"
    seen = {subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONHASHSEED": str(seed)},
                           capture_output=True, text=True, check=True).stdout.strip() for seed in range(8)}
    assert seen == {repr(in_sorted_order)}


def _probe():
    """Four items, conditions base/shifted/letters, runs r1 and r2 (r2 = r1 except one item)."""
    golds = ["hum", "loc", "num", "hum"]
    base = [
        {"hum": 0.7, "loc": 0.2, "num": 0.1},
        {"hum": 0.2, "loc": 0.7, "num": 0.1},
        {"hum": 0.5, "loc": 0.1, "num": 0.4},
        {"hum": 0.9, "loc": 0.05, "num": 0.05},
    ]
    shifted = [
        {"loc": 0.1, "hum": 0.8, "num": 0.1},
        {"loc": 0.6, "hum": 0.3, "num": 0.1},
        {"loc": 0.1, "hum": 0.1, "num": 0.8},
        {"loc": 0.95, "hum": 0.03, "num": 0.02},
    ]
    letters = [
        {"A": 0.7, "B": 0.2, "C": 0.1},
        {"A": 0.25, "B": 0.65, "C": 0.1},
        {"A": 0.5, "B": 0.1, "C": 0.4},
        {"A": 0.9, "B": 0.05, "C": 0.05},
    ]
    letter_map = {"A": "hum", "B": "loc", "C": "num"}
    records = []
    for run in ("r1", "r2"):
        for k, gold in enumerate(golds):
            records.append(_record(run, "base", f"q{k}", gold, base[k]))
            records.append(_record(run, "shifted", f"q{k}", gold, shifted[k], SHIFT))
            probs = dict(letters[k])
            if run == "r2" and k == 0:
                probs = {"A": 0.7000001, "B": 0.1999999, "C": 0.1}
            records.append(_record(run, "letters", f"q{k}", gold, probs, letter_map))
    return Probe(records, "runs.jsonl")


def test_accuracy_and_label_following_by_hand():
    # base predicts hum, loc, hum, hum vs gold hum, loc, num, hum: 3/4 right.
    # shifted chooses shown labels hum, loc, num, loc = categories loc, hum, num, hum: only q2 and q3 right.
    # Label following (shown label == gold, definition elsewhere): q0 (shown hum) and q1 (shown loc).
    rows = {(r["condition"], r["run"]): r for r in accuracy_table(_probe())}
    assert rows[("base", "r1")]["correct"] == 3 and rows[("base", "r1")]["label_following"] is None
    assert rows[("shifted", "r1")]["correct"] == 2 and rows[("shifted", "r1")]["label_following"] == 2


def test_comparison_by_hand():
    # base right on q0, q1, q3; shifted right on q2, q3: only_a = 2 (q0, q1), only_b = 1 (q2).
    # difference = 2/4 - 3/4 = -0.25; McNemar p = 2 * P(X <= 1 | n=3) = 2 * 4/8 = 1.
    probe = _probe()
    (row,) = comparison_table(probe, "r1", [("base", "shifted")], ProbeOptions(resamples=500))
    assert (row["only_a"], row["only_b"]) == (2, 1)
    assert row["difference"] == pytest.approx(-0.25)
    assert row["mcnemar_p"] == pytest.approx(1.0)
    assert row["difference_lo"] <= row["difference"] <= row["difference_hi"]


def test_auroc_of_the_confidence_field():
    # Right answers carry confidence 0.2 and 0.4, wrong ones 0.9: the field ranks every wrong answer
    # above every right one, AUROC 0; the top probabilities (0.9, 0.8 right; 0.6 wrong) give 1.
    records = [
        _record("r", "c", "q0", "a", {"a": 0.9, "b": 0.1}, confidence=0.2),
        _record("r", "c", "q1", "a", {"a": 0.8, "b": 0.2}, confidence=0.4),
        _record("r", "c", "q2", "a", {"a": 0.4, "b": 0.6}, confidence=0.9),
    ]
    (row,) = auroc_table(Probe(records, "runs.jsonl"), "r", ProbeOptions(resamples=200))
    assert row["auroc"] == pytest.approx(1.0) and row["auroc_confidence"] == pytest.approx(0.0)


def test_threshold_table_by_hand():
    # base top probabilities 0.7, 0.7, 0.5, 0.9 (right, right, wrong, right). Threshold 0.7:
    # accepted q0, q1, q3 (all right), deferred q2 (wrong).
    (row,) = threshold_table(_probe(), "r1", ProbeOptions(thresholds=(0.7,)))[:1]
    assert (row["accepted"], row["accepted_accuracy"], row["deferred"], row["deferred_accuracy"]) == (
        3,
        1.0,
        1,
        0.0,
    )


def test_two_call_by_hand():
    # base vs letters, by category: q0 identical; q1 0.7/0.65 and 0.2/0.25 -> TVD 0.05;
    # q2 and q3 identical. Mean 0.0125, one item above 0.01, no prediction changed.
    (row,) = two_call_table(_probe(), "r1", [("base", "letters")], ProbeOptions())
    assert row["tvd_max"] == pytest.approx(0.05)
    assert row["tvd_mean"] == pytest.approx(0.0125)
    assert row["above_threshold"] == 1 and row["predictions_changed"] == 0


def test_determinism_check_finds_the_last_digit():
    rows = {r["condition"]: r for r in determinism_table(_probe())}
    assert rows["base"]["identical"] and rows["shifted"]["identical"]
    assert not rows["letters"]["identical"] and rows["letters"]["identical_items"] == 3
    assert rows["letters"]["max_abs_difference"] == pytest.approx(1e-7)


def _write_jsonl(path: Path, objects) -> Path:
    path.write_text("".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objects), encoding="utf-8")
    return path


GOOD = {"run": "r1", "condition": "c", "item": "q1", "gold": "a", "probs": {"a": 0.6, "b": 0.4}}


@pytest.mark.parametrize(
    ("second", "field", "message"),
    [
        ("{not json", None, "malformed JSON"),
        ({**GOOD, "item": "q2", "probs": {"a": 0.6, "b": 0.3}}, "probs", "sum to 0.9"),
        ({**GOOD, "item": "q2", "gold": "z"}, "gold", "not among"),
        ({**GOOD, "item": "q2", "options": {"a": "b"}}, "options", "every label"),
        ({k: v for k, v in GOOD.items() if k != "run"}, "run", "missing"),
        (GOOD, "item", "duplicate"),
    ],
)
def test_read_runs_rejects_bad_lines(tmp_path, second, field, message):
    path = _write_jsonl(tmp_path / "runs.jsonl", [GOOD, second])
    with pytest.raises(InputError, match=message) as err:
        read_runs(path)
    assert err.value.line == 2 and err.value.field == field


def test_cli_on_demo_data(tmp_path):
    out = tmp_path / "probe"
    assert main(["probe", str(DEMO), "--resamples", "500", "--out", str(out)]) == 0
    records = [json.loads(line) for line in DEMO.read_text().splitlines()]

    def category(record):
        chosen = max(record["probs"], key=record["probs"].get)
        return record.get("options", {}).get(chosen, chosen)

    with open(out / "accuracy.csv", encoding="utf-8") as handle:
        accuracy = list(csv.DictReader(handle))
    assert list(accuracy[0]) == ["condition", "run", "n", "correct", "accuracy", "label_following"]
    for row in accuracy:
        mine = [r for r in records if r["condition"] == row["condition"] and r["run"] == row["run"]]
        assert int(row["correct"]) == sum(category(r) == r["gold"] for r in mine)
    with open(out / "comparisons.csv", encoding="utf-8") as handle:
        comparisons = list(csv.DictReader(handle))
    assert len(comparisons) == 10  # five conditions, every pair
    with open(out / "auroc.csv", encoding="utf-8") as handle:
        aucs = {r["condition"]: r for r in csv.DictReader(handle)}
    shifted = [r for r in records if r["condition"] == "shifted" and r["run"] == "r1"]
    expected = roc_auc_score([category(r) == r["gold"] for r in shifted], [max(r["probs"].values()) for r in shifted])
    assert float(aucs["shifted"]["auroc"]) == pytest.approx(expected, abs=1e-6)
    expected = roc_auc_score([category(r) == r["gold"] for r in shifted], [r["confidence"] for r in shifted])
    assert float(aucs["shifted"]["auroc_confidence"]) == pytest.approx(expected, abs=1e-6)
    with open(out / "determinism.csv", encoding="utf-8") as handle:
        determinism = {r["condition"]: r for r in csv.DictReader(handle)}
    assert determinism["label_only"]["identical"] == "no" and determinism["letters"]["identical"] == "yes"
    assert {p.name for p in out.iterdir()} == {
        "accuracy.csv",
        "comparisons.csv",
        "auroc.csv",
        "thresholds.csv",
        "two_call.csv",
        "determinism.csv",
        "summary.json",
    }


def test_cli_bad_input_names_file_line_and_field(tmp_path, capsys):
    path = _write_jsonl(tmp_path / "runs.jsonl", [GOOD, {**GOOD, "item": "q2", "probs": {"a": 0.5, "b": 0.2}}])
    assert main(["probe", str(path), "--out", str(tmp_path / "o")]) == 2
    message = capsys.readouterr().err
    assert f"{path}:2" in message and "field 'probs'" in message


def test_cli_runs_file_it_cannot_read_is_one_error_line(tmp_path, capsys):
    for path, problem in ((tmp_path / "missing.jsonl", "No such file or directory"), (tmp_path, "Is a directory")):
        assert main(["probe", str(path), "--out", str(tmp_path / "o")]) == 2
        assert capsys.readouterr().err == f"lyss: error: {path}: cannot read file ({problem})\n"
    assert not (tmp_path / "o").exists()

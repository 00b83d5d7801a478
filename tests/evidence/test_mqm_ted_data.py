"""The shipped MQM TED data: derived files are what derive.py makes from raw/, and the human scores are
the MQM scores recomputed from the raw error rows with Google's published weights (Freitag et al.
2021: major 5, minor 1, minor punctuation 0.1, no error 0), negated so that higher is better."""

import csv
import json
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "data/corpora/mqm_ted_ende"
DERIVED = ["corpus.jsonl", "human_scores.csv", *(f"systems/{p.name}" for p in sorted((DATA / "systems").glob("*")))]


def _penalty(severity: str, category: str) -> float:
    if severity == "No-error":
        return 0.0
    if severity == "Major":
        return 25.0 if category == "Non-translation!" else 5.0
    return 0.1 if category == "Fluency/Punctuation" else 1.0


def test_derive_reproduces_the_committed_files(tmp_path):
    copy = tmp_path / "mqm_ted_ende"
    shutil.copytree(DATA / "raw", copy / "raw")
    shutil.copy(DATA / "derive.py", copy / "derive.py")
    subprocess.run([sys.executable, str(copy / "derive.py")], check=True, capture_output=True)
    for name in DERIVED:
        assert (copy / name).read_bytes() == (DATA / name).read_bytes(), name


def test_human_scores_are_negated_mqm_from_the_error_rows():
    penalties, raters = defaultdict(float), defaultdict(set)
    with (DATA / "raw/mqm_ted_ende.tsv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            key = ("wmt21_" + row["system"].lower().replace("-", "_"), f"ted-{int(row['seg_id']):03d}")
            penalties[key] += _penalty(row["severity"], row["category"])
            raters[key].add(row["rater"])
    with (DATA / "human_scores.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 13 * 529
    for row in rows:
        key = (row["method"], row["id"])
        assert float(row["human"]) == pytest.approx(-penalties[key], abs=1e-9)
        assert int(row["annotators"]) == len(raters[key]) == 1
    assert "wmt21_ref" not in {r["method"] for r in rows}  # the reference is not a rated method


def test_texts_carry_no_error_marks_and_the_reference_is_the_ref_system():
    corpus = [json.loads(line) for line in (DATA / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(corpus) == 529
    ref_targets = {}
    with (DATA / "raw/mqm_ted_ende.tsv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            if row["system"] == "ref":
                text = row["target"].replace("<v>", "").replace("</v>", "")
                ref_targets[f"ted-{int(row['seg_id']):03d}"] = text
    for entry in corpus:
        assert entry["reference"] == ref_targets[entry["id"]]
        assert "<v>" not in entry["source"] + entry["reference"]
    for path in (DATA / "systems").glob("*.jsonl"):
        assert "<v>" not in path.read_text(encoding="utf-8") and "</v>" not in path.read_text(encoding="utf-8")

"""Property-based tests (hypothesis) of the loaders of user-written files: whatever the bytes, the corpus
loader and the ratings/grades loaders either return well-formed data or raise the documented
InputError (naming the file) -- never another exception."""

import json
import math
import tempfile
import unicodedata
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lyss.errors import InputError
from lyss.prep.corpus import load_corpus
from lyss.studies.jury import GradeColumns, read_grades
from lyss.studies.labels import read_ratings
from lyss.tables import read_csv

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20)
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
FIELDS = ["id", "source", "reference", "variants", "difficulty", "provenance", "glossary", "notes", "human_score"]
field_values = (json_values | st.text(max_size=30) | st.integers(-3, 8)
                | st.lists(st.text(max_size=10) | st.dictionaries(st.sampled_from(["source", "target", "x"]),
                                                                  st.text(max_size=6) | st.integers(), max_size=3),
                           max_size=3))
entries = st.fixed_dictionaries({"id": st.text(max_size=6) | st.integers(-2, 5), "source": st.text(max_size=20),
                                 "reference": st.text(max_size=20)},
                                optional={f: field_values for f in FIELDS[3:]})
entry_like = entries | st.dictionaries(st.sampled_from(FIELDS), field_values, max_size=6)


def corpus_line(value) -> str:
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value


corpus_lines = st.lists(entry_like.map(corpus_line) | json_values.map(corpus_line)
                        | st.text(max_size=30).filter(lambda t: "\n" not in t and "\r" not in t), max_size=8)


_FOLDER = tempfile.TemporaryDirectory(prefix="lyss-properties-")  # one file, rewritten for every example


def write(data: bytes) -> Path:
    path = Path(_FOLDER.name) / "input"
    path.write_bytes(data)
    return path


def check_corpus(data: bytes) -> None:
    path = write(data)
    try:
        loaded = load_corpus(path)
    except InputError as err:
        assert err.path == str(path)
        return
    ids = [e["id"] for e in loaded]
    assert loaded and len(ids) == len(set(ids))
    for entry in loaded:
        for field in ("id", "source", "reference"):
            assert isinstance(entry[field], str) and unicodedata.is_normalized("NFC", entry[field])
        assert entry["source"].strip()
        assert entry["difficulty"] is None or entry["difficulty"] in range(1, 6)
        assert all(isinstance(v, str) and v.strip() for v in entry["variants"])
        assert all(set(term) == {"source", "target"} for term in entry["glossary"])


@SETTINGS
@given(corpus_lines)
def test_corpus_loader_on_json_lines(lines):
    check_corpus(("\n".join(lines) + "\n").encode())


@SETTINGS
@given(st.binary(max_size=300))
def test_corpus_loader_on_arbitrary_bytes(data):
    check_corpus(data)


@SETTINGS
@given(st.lists(entries, min_size=1, max_size=6))
def test_valid_entries_load_or_name_their_line(rows):
    """Well-shaped rows: a failure names a real line and a field."""
    path = write(("\n".join(json.dumps(r) for r in rows) + "\n").encode())
    try:
        load_corpus(path)
    except InputError as err:
        assert err.line is not None and 1 <= err.line <= len(rows) and err.field in FIELDS


cells = (st.integers(-5, 5).map(str) | st.floats(allow_nan=True, allow_infinity=True).map(repr)
         | st.text(max_size=8) | st.sampled_from(["", " ", "nan", "-inf", "1e400", "0x10", '"', "a,b", "x\ny"]))
HEADERS = st.lists(st.sampled_from(["item", "annotator", "score", "human", "judge_a", "judge_b", "extra", ""]),
                   min_size=0, max_size=5)


def csv_text(header: list[str], rows: list[list[str]]) -> str:
    def cell(value: str) -> str:
        return '"' + value.replace('"', '""') + '"' if any(c in value for c in ',"\n\r') else value
    return "\n".join(",".join(cell(v) for v in row) for row in [header, *rows]) + "\n"


tables = st.tuples(HEADERS, st.lists(st.lists(cells, min_size=0, max_size=6), max_size=6))


def check_ratings(data: bytes) -> None:
    path = write(data)
    try:
        ratings = read_ratings(read_csv(path), "item", "annotator", "score", (-3, 3))
    except InputError as err:
        assert err.path == str(path)
        return
    assert ratings.matrix.shape == (len(ratings.annotators), len(ratings.items))
    values = ratings.matrix[~np.isnan(ratings.matrix)]
    assert values.size and ((values >= -3) & (values <= 3)).all()
    assert all(item for item in ratings.items)


@SETTINGS
@given(tables)
def test_ratings_loader_on_generated_tables(table):
    header, rows = table
    check_ratings(csv_text(header, rows).encode())


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(["i1", "i2", "i3", ""]), st.sampled_from(["a1", "a2", "a3"]), cells),
                min_size=1, max_size=10))
def test_ratings_loader_on_well_shaped_rows(rows):
    check_ratings(csv_text(["item", "annotator", "score"], [list(r) for r in rows]).encode())


@SETTINGS
@given(st.binary(max_size=300))
def test_ratings_loader_on_arbitrary_bytes(data):
    check_ratings(data)


@SETTINGS
@given(tables)
def test_grades_loader_on_generated_tables(table):
    header, rows = table
    path = write(csv_text(header, rows).encode())
    levels = np.arange(1, 6, dtype=float)
    try:
        grades = read_grades(read_csv(path), GradeColumns("human", ["judge_a", "judge_b"], "item"), levels)
    except InputError as err:
        assert err.path == str(path)
        return
    assert np.isin(grades.human, levels).all()
    assert all(math.isfinite(v) for column in grades.judges.values() for v in column)


@pytest.mark.parametrize("data", [
    b"\xff\xfe" + "item,annotator,score\n".encode("utf-16-le"),  # UTF-16 with BOM
    b"item,annotator,score\ncb1,a1,\x001\n",  # NUL byte
    b"item,annotator,score\r\ncb1,a1,1\r\n",  # Windows line ends: valid
    "\ufeffitem,annotator,score\ncb1,a1,1\n".encode(),  # UTF-8 BOM: valid
    b'item,annotator,score\ncb1,a1,"1\n',  # unterminated quote
])
def test_ratings_loader_on_awkward_encodings(data):
    check_ratings(data)


@settings(SETTINGS, max_examples=60)
@given(st.integers(1, 40), st.integers(2, 6), st.integers(1, 50), st.integers(0, 2**32 - 1), st.data())
def test_blockwise_retrieval_equals_the_full_similarity_matrix(n, dim, block_cells, seed, data):
    """`retrieval_misses` works through blocks of outputs (memory linear in the corpus); any block size
    gives the flags of the full n × n cosine matrix."""
    from lyss.aggregate import caveats
    from lyss.embed import embedders

    rng = np.random.default_rng(seed)
    sources = rng.normal(size=(n, dim))
    sources[rng.random(n) < 0.1] = 0.0  # zero vectors: cosine 0 with everything
    rows = sorted(data.draw(st.sets(st.integers(0, n - 1), max_size=n)))
    outputs = np.where(rng.random((len(rows), 1)) < 0.3, sources[rows], rng.normal(size=(len(rows), dim)))
    expected = np.zeros(n, dtype=bool)
    if rows:
        full = embedders.cosine_matrix(outputs, sources)
        own = full[np.arange(len(rows)), rows].copy()
        full[np.arange(len(rows)), rows] = -np.inf
        expected[rows] = full.max(axis=1) > own
    original = caveats.RETRIEVAL_BLOCK_CELLS
    try:
        caveats.RETRIEVAL_BLOCK_CELLS = block_cells
        assert (caveats.retrieval_misses(outputs, sources, rows) == expected[rows]).all()
    finally:
        caveats.RETRIEVAL_BLOCK_CELLS = original

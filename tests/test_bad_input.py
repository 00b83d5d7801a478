"""Bad input, table-driven, over every file a user writes: corpus JSONL, dataset.yaml, params.yaml (with
method options), language cards, ratings CSV, judge grades CSV, precomputed outputs. Each case must raise
InputError naming the file, the line (formats with lines) or the key, and the problem; then a few cases
go through the real workflow to show the error arrives before any expensive step (no translation, no
score) with the same one-line message.

Secrets and names: a canary API key in the environment never reaches results/, logs or the database,
and dataset/method names with quotes, slashes, `..` or SQL metacharacters are refused before they can
become paths or queries.
"""

import copy
import hashlib
import json
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import yaml
from scratch_project import DATASET, ROOT, make_project, read_params, run_card, sh, write_params

from lyss.config import check_params
from lyss.errors import InputError
from lyss.languages import load_card, load_cards
from lyss.prep.corpus import load_corpus, load_dataset_card
from lyss.studies.jury import GradeColumns, read_grades
from lyss.studies.labels import read_ratings
from lyss.tables import read_csv
from lyss.translate import MethodContext, build_translator

LANGUAGES = ROOT / "data/languages"
GOOD_ENTRY = {"id": "a", "source": "Hello", "reference": "Hola"}


@dataclass
class Case:
    name: str
    content: object  # text or bytes written to the file; a function of the valid params for params.yaml
    line: int | None
    field: str | None
    problem: str  # regular expression the message must match


def jsonl(*rows) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows)


CORPUS = [
    Case("malformed JSON", jsonl(GOOD_ENTRY, '{"id": "b", "source": "x",'), 2, None, "malformed JSON"),
    Case("not an object", jsonl('["a", "Hello", "Hola"]'), 1, None, "expected a JSON object"),
    Case("missing id", jsonl({"source": "x", "reference": "y"}), 1, "id", "missing required field"),
    Case("missing source", jsonl({"id": "a", "reference": "y"}), 1, "source", "missing required field"),
    Case("missing reference", jsonl({"id": "a", "source": "x"}), 1, "reference", "missing required field"),
    Case("empty source", jsonl(GOOD_ENTRY, {**GOOD_ENTRY, "id": "b", "source": "  "}), 2, "source",
         "must not be empty"),
    Case("source not text", jsonl({**GOOD_ENTRY, "source": 42}), 1, "source", "expected a string, got int"),
    Case("null id", jsonl({**GOOD_ENTRY, "id": None}), 1, "id", "non-empty string or integer"),
    Case("boolean id", jsonl({**GOOD_ENTRY, "id": True}), 1, "id", "non-empty string or integer"),
    Case("empty id", jsonl({**GOOD_ENTRY, "id": " "}), 1, "id", "non-empty string or integer"),
    Case("duplicate id", jsonl(GOOD_ENTRY, {**GOOD_ENTRY, "id": "b"}, GOOD_ENTRY), 3, "id",
         r"duplicate id 'a' \(first on line 1\)"),
    Case("duplicate id after NFC", jsonl({**GOOD_ENTRY, "id": "caf\u00e9"}, {**GOOD_ENTRY, "id": "cafe\u0301"}), 2,
         "id", "duplicate id"),
    Case("difficulty out of range", jsonl({**GOOD_ENTRY, "difficulty": 7}), 1, "difficulty", "integer from 1 to 5"),
    Case("difficulty as text", jsonl({**GOOD_ENTRY, "difficulty": "3"}), 1, "difficulty", "integer from 1 to 5"),
    Case("difficulty NaN", jsonl('{"id": "a", "source": "x", "reference": "y", "difficulty": NaN}'), 1, "difficulty",
         "integer from 1 to 5"),
    Case("variants not a list", jsonl({**GOOD_ENTRY, "variants": "Hola"}), 1, "variants", "list of strings"),
    Case("empty variant", jsonl({**GOOD_ENTRY, "variants": [""]}), 1, "variants", "must not be empty"),
    Case("glossary term incomplete", jsonl({**GOOD_ENTRY, "glossary": [{"source": "x"}]}), 1, "glossary",
         "'source' and 'target'"),
    Case("no entries", "\n\n", None, None, "no entries"),
    Case("invalid UTF-8", b'{"id": "a", "source": "caf\xe9", "reference": "y"}\n', 1, None, "UTF-8"),
    Case("number too long", jsonl('{"id": ' + "9" * 5000 + ', "source": "x", "reference": "y"}'), 1, None,
         "malformed JSON"),
    Case("reference over the length limit", jsonl(GOOD_ENTRY, {**GOOD_ENTRY, "id": "b", "reference": "x" * 10_001}), 2,
         "reference", r"10,001 characters, over the limit of 10,000 \(params.yaml limits.max_entry_chars"),
    Case("variant over the length limit", jsonl({**GOOD_ENTRY, "variants": ["ok", "y" * 10_001]}), 1, "variants",
         "over the limit of 10,000"),
    Case("nesting too deep", jsonl('{"id": "a", "source": "x", "reference": "y", "notes": ' + "[" * 100_000
                                   + "]" * 100_000 + "}"), 1, None, "malformed JSON"),
]

CARD = {"id": "demo", "language_pair": "eng-spa", "licence": "CC0-1.0", "citation": "test"}
DATASET_CARDS = [
    Case("malformed YAML", "id: demo\nlanguage_pair: [eng-spa\n", 3, None, "malformed YAML"),
    Case("not a mapping", "- eng-spa\n", None, None, "expected a mapping"),
    Case("missing licence", yaml.safe_dump({k: v for k, v in CARD.items() if k != "licence"}), None, "licence",
         "missing required field"),
    Case("pair with three codes", yaml.safe_dump({**CARD, "language_pair": "eng-spa-fra"}), None, "language_pair",
         "expected 'src-tgt'"),
    Case("unknown language", yaml.safe_dump({**CARD, "language_pair": "eng-xqz"}), None, "language_pair",
         "unknown language code 'xqz'"),
]


def _set(path: str, value):
    def change(params):
        node = params
        *parents, last = path.split(".")
        for key in parents:
            node = node[key]
        if value is _DELETE:
            del node[last]
        else:
            node[last] = value
        return params
    return change


_DELETE = object()
PARAMS = [
    Case("missing section", _set("tiers", _DELETE), None, "tiers", "missing required section"),
    Case("unknown metric", _set("metrics", ["chrf_plus_plus", "chrf_plus"]), None, "metrics[1]",
         "unknown metric 'chrf_plus'"),
    Case("unknown method kind", _set("methods", {"m": {"kind": "gpt"}}), None, "methods.m.kind",
         "unknown method kind 'gpt'"),
    Case("dataset folder that does not exist", _set("datasets", {"d": {"path": "data/corpora/nowhere"}}), None,
         "datasets.d.path", r"data/corpora/nowhere does not exist$"),  # nothing like it beside: no guess
    Case("dataset folder without corpus", _set("datasets", {"d": {"path": "data/corpora"}}), None,
         "datasets.d.path", "has neither corpus.jsonl nor source.txt"),
    Case("dataset name with a slash", _set("datasets", {"../up": {"path": f"data/corpora/{DATASET}"}}), None,
         "datasets.../up", "names may hold only"),
    Case("dataset name ending in a newline", _set("datasets", {"demo\n": {"path": f"data/corpora/{DATASET}"}}), None,
         "datasets.demo\n", "names may hold only"),
    Case("method name with a quote", _set("methods", {"x'; DROP TABLE runs; --": {"kind": "copy_source"}}), None,
         "methods.x'; DROP TABLE runs; --", "names may hold only"),
    Case("negative weight", _set("composite.profiles.A.chrf_plus_plus", -1), None,
         "composite.profiles.A.chrf_plus_plus", "must be ≥ 0, got -1"),
    Case("weight for an unknown metric", _set("composite.profiles.B.chrf", 0.2), None, "composite.profiles.B.chrf",
         "unknown metric 'chrf'"),
    Case("unknown normalisation", _set("composite.normalisation", {"chrf_plus_plus": "log"}), None,
         "composite.normalisation.chrf_plus_plus", "unknown normalisation"),
    Case("tiers out of order", _set("tiers", [{"name": "low", "min": 0.0}, {"name": "high", "min": 0.9}]), None,
         "tiers", "highest to lowest"),
]

CARD_YAML = (LANGUAGES / "spa.yaml").read_text(encoding="utf-8")
LANGUAGE_CARDS = [
    Case("malformed YAML", "code: spa\nname: [Spanish\n", 3, None, "malformed YAML"),
    Case("missing name", "code: spa\nscripts: [Latn]\n", None, None, "'name' is a required property"),
    Case("wrong type", CARD_YAML.replace("caseless: false", "caseless: maybe"), None, "caseless", "not of type"),
    Case("code differs from file name", CARD_YAML.replace("code: spa", "code: eng"), None, "code",
         "does not match the file name"),
]

RATINGS = [
    Case("missing column", "item,annotator,rating\ncb1,a1,1\n", 1, "score", "missing column 'score'"),
    Case("not a number", "item,annotator,score\ncb1,a1,1\ncb1,a2,high\n", 3, "score", "not a number: 'high'"),
    Case("infinite", "item,annotator,score\ncb1,a1,inf\n", 2, "score", "not a finite number"),
    Case("off the scale", "item,annotator,score\ncb1,a1,1\ncb1,a2,7\n", 3, "score", r"off the scale -3\.\.3"),
    Case("rated twice", "item,annotator,score\ncb1,a1,1\ncb2,a1,0\ncb1,a1,2\n", 4, "annotator",
         r"rated item 'cb1' twice \(first on line 2\)"),
    Case("ragged row", "item,annotator,score\ncb1,a1,1,extra\n", 2, None, "expected 3 fields, found 4"),
    Case("empty item", "item,annotator,score\n,a1,1\n", 2, "item", "empty item id"),
    Case("header only", "item,annotator,score\n", 1, None, "no data rows"),
    Case("empty file", "", 1, None, "empty file"),
    Case("invalid UTF-8", b"item,annotator,score\ncb1,a1,1\ncb\xe9,a2,1\n", 3, None, "not valid UTF-8"),
    Case("repeated header", "item,item,score\ncb1,a1,1\n", 1, "item", "appears twice"),
]

GRADES = [
    Case("human grade off scale", "item,human,judge_a,judge_b\nx1,5,5,4\nx2,6,5,4\n", 3, "human",
         r"grade 6 is not on the scale 1\.\.5"),
    Case("missing judge column", "item,human,judge_a\nx1,5,5\n", 1, "judge_b", "missing column 'judge_b'"),
    Case("judge not a number", "item,human,judge_a,judge_b\nx1,5,5,four\n", 2, "judge_b", "not a number"),
    Case("item twice", "item,human,judge_a,judge_b\nx1,5,5,4\nx1,4,4,4\n", 3, "item",
         r"item 'x1' appears twice \(first on line 2\)"),
]

PRECOMPUTED = [
    Case("JSONL line without prediction", jsonl({"id": "a", "prediction": "Hola"}, {"id": "b"}), 2, "prediction",
         "missing required field"),
    Case("JSONL duplicate id", jsonl({"id": "a", "prediction": "x"}, {"id": "a", "prediction": "y"}), 2, "id",
         "duplicate id"),
    Case("JSONL malformed", jsonl({"id": "a", "prediction": "x"}, '{"id": "b", "prediction": '), 2, None,
         "malformed JSON"),
    Case("text with too few lines", "Hola\n", None, None, "has 1 lines but the corpus has 2 entries"),
]


def write(path: Path, content) -> Path:
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def load_corpus_case(tmp_path, case):
    return load_corpus(write(tmp_path / "corpus.jsonl", case.content))


def load_dataset_case(tmp_path, case):
    return load_dataset_card(write(tmp_path / "dataset.yaml", case.content), load_cards(LANGUAGES))


def load_params_case(tmp_path, case):
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    params["datasets"] = {DATASET: {"path": str(ROOT / "data/corpora/demo_eng_spa")}}
    return check_params(case.content(copy.deepcopy(params)), source=str(tmp_path / "params.yaml"))


def load_language_case(tmp_path, case):
    return load_card(write(tmp_path / "spa.yaml", case.content))


def load_ratings_case(tmp_path, case):
    return read_ratings(read_csv(write(tmp_path / "ratings.csv", case.content)), "item", "annotator", "score",
                        (-3, 3))


def load_grades_case(tmp_path, case):
    table = read_csv(write(tmp_path / "grades.csv", case.content))
    return read_grades(table, GradeColumns("human", ["judge_a", "judge_b"], "item"), np.arange(1, 6, dtype=float))


def load_precomputed_case(tmp_path, case):
    suffix = ".txt" if isinstance(case.content, str) and not case.content.startswith("{") else ".jsonl"
    path = write(tmp_path / f"outputs{suffix}", case.content)
    context = MethodContext("ext", {"paths": {"d": str(path)}}, "eng", "spa", corpus_ids=["a", "b"], dataset="d")
    return list(build_translator("precomputed", context).translate([{"id": "a"}, {"id": "b"}]))


TABLE = {"corpus": (CORPUS, load_corpus_case, "corpus.jsonl"),
         "dataset.yaml": (DATASET_CARDS, load_dataset_case, "dataset.yaml"),
         "params.yaml": (PARAMS, load_params_case, "params.yaml"),
         "language card": (LANGUAGE_CARDS, load_language_case, "spa.yaml"),
         "ratings": (RATINGS, load_ratings_case, "ratings.csv"),
         "grades": (GRADES, load_grades_case, "grades.csv"),
         "precomputed": (PRECOMPUTED, load_precomputed_case, "outputs")}
CASES = [pytest.param(kind, case, id=f"{kind}: {case.name}") for kind, (cases, _, _) in TABLE.items() for case in cases]


@pytest.mark.parametrize(("kind", "case"), CASES)
def test_bad_input_names_file_line_or_key_and_problem(tmp_path, kind, case):
    _, load, file_name = TABLE[kind]
    with pytest.raises(InputError) as caught:
        load(tmp_path, case)
    err = caught.value
    assert Path(err.path).name.startswith(file_name), err
    assert (err.line, err.field) == (case.line, case.field), err
    assert re.search(case.problem, err.problem), err
    assert str(err).startswith(f"{err.path}:{case.line}: " if case.line else f"{err.path}: ")


# ---------------------------------------------------------------------------------------- in the workflow


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return make_project(tmp_path_factory.mktemp("bad_input"), 6, metrics=["exact_match_rate", "chrf_plus_plus"])


def run_with(project: Path, path: str, content):
    """Run `snakemake all` with one file replaced; restore it afterwards. Returns the finished process."""
    target = project / path
    original = target.read_bytes()
    try:
        write(target, content)
        return sh(project, "snakemake", "--cores", "1", "all", check=False, timeout=300)
    finally:
        target.write_bytes(original)


WORKFLOW_CASES = {
    "corpus": (f"data/corpora/{DATASET}/corpus.jsonl",
               lambda text: text.replace('"reference"', '"referenc"', 1),
               rf"data/corpora/{DATASET}/corpus.jsonl:1: field 'reference': missing required field"),
    "entry of 1 MB": (f"data/corpora/{DATASET}/corpus.jsonl",
                      lambda text: text.replace('"source": "', '"source": "' + "a" * 1_000_000, 1),
                      rf"data/corpora/{DATASET}/corpus.jsonl:1: field 'source': 1,000,\d+ characters, over the "
                      r"limit of 10,000"),
    "dataset.yaml": (f"data/corpora/{DATASET}/dataset.yaml",
                     lambda text: text.replace("language_pair: eng-spa", "language_pair: eng-spa-x"),
                     rf"data/corpora/{DATASET}/dataset.yaml: field 'language_pair': expected 'src-tgt'"),
    "dataset.yaml syntax": (f"data/corpora/{DATASET}/dataset.yaml",
                            lambda text: text.replace("language_pair: eng-spa", "language_pair: [eng-spa"),
                            rf"data/corpora/{DATASET}/dataset.yaml:\d+: malformed YAML"),
    "language card": ("data/languages/spa.yaml", lambda text: text.replace("caseless: false", "caseless: maybe"),
                      r"data/languages/spa.yaml: field 'caseless': 'maybe' is not of type 'boolean'"),
    "params.yaml": ("params.yaml", lambda text: text.replace("- chrf_plus_plus", "- chrf_plus"),
                    r"params.yaml: field 'metrics\[1\]': unknown metric 'chrf_plus'"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", PARAMS, ids=lambda c: c.name)
def test_every_bad_setting_stops_snakemake_as_its_one_line(project, case):
    """The params.yaml table above, while Snakemake loads the workflow: exit 1, nothing on stdout, and on
    stderr the one line naming the key (no stack frame, no plan)."""
    original = read_params(project)
    write_params(project, case.content(copy.deepcopy(original)))
    try:
        done = sh(project, "snakemake", "-n", "--cores", "1", "all", check=False, timeout=300,
                  env_extra={"PYTHONPATH": str(project / "src")})
    finally:
        write_params(project, original)
    field = case.field.encode("unicode_escape").decode("ascii")
    assert (done.returncode, done.stdout, done.stderr.count("\n")) == (1, "", 1), done.stderr[-3000:]
    assert done.stderr.startswith(f"params.yaml: field '{field}': "), done.stderr
    assert re.search(case.problem, done.stderr), done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(WORKFLOW_CASES))
def test_workflow_stops_before_any_expensive_step(project, kind):
    path, change, message = WORKFLOW_CASES[kind]
    done = run_with(project, path, change((project / path).read_text(encoding="utf-8")))
    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert re.search(message, output), output[-3000:]
    assert "Traceback" not in output, output[-3000:]
    for produced in ("results/translations", "results/metrics"):
        assert not (project / produced).exists() or not any((project / produced).rglob("*.*")), produced


# ---------------------------------------------------------------------------------------- secrets and names

KEY_ENV = "LYSS_TEST_CANARY_KEY"
CANARY = "sk-canary-7d1f0b9e4a"


@pytest.mark.slow
def test_canary_api_key_never_reaches_results_logs_or_database(tmp_path):
    """An LLM method whose key is in the environment, whose endpoint echoes the key in an error (as some
    APIs do), run through `snakemake all`: the key is in no file under results/ or .snakemake/ (logs),
    in no row of the database, and not in Snakemake's output."""
    from openai_server import Script, serve

    with serve(Script(faults={"Upload failed": "400"})) as server:
        method = {"kind": "openai_compatible", "base_url": server.base_url, "model": "mt-model", "api_key_env": KEY_ENV,
                  "backoff_s": 0.01, "concurrency": 2}
        work = make_project(tmp_path, 6, methods={"llm": method, "copy_source": {"kind": "copy_source"}},
                            metrics=["exact_match_rate", "chrf_plus_plus"])
        done = sh(work, "snakemake", "--cores", "2", "all", env_extra={KEY_ENV: CANARY})
    assert any(r["headers"].get("Authorization") == f"Bearer {CANARY}" for r in server.requests)
    assert run_card(work, "llm")["scores"]["errors"] == 1
    assert CANARY not in done.stdout + done.stderr
    files = [p for folder in (work / "results", work / ".snakemake") for p in folder.rglob("*") if p.is_file()]
    assert any(p.name == "llm.json" for p in files)
    assert not [str(p) for p in files if CANARY.encode() in p.read_bytes()]
    databases = [p for p in files if p.suffix in (".sqlite", ".db", ".sqlite3")]
    assert databases, "no database under results/ (src/lyss/store.py)"
    for database in databases:
        with sqlite3.connect(database) as db:
            tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            assert tables
            for table in tables:
                for row in db.execute(f'SELECT * FROM "{table}"'):
                    assert CANARY not in repr(row), (table, row)


HOSTILE_NAMES = ["../escape", "a/b", "..", "x'; DROP TABLE runs; --", 'q"uote', "semi;colon", "spa ce", "",
                 "-leading-dash", "tab\tname", "nul\0byte", "ünï", "newline\n"]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
@pytest.mark.parametrize("section", ["datasets", "methods"])
def test_hostile_dataset_and_method_names_are_refused(name, section):
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    params["datasets"] = {DATASET: {"path": str(ROOT / "data/corpora/demo_eng_spa")}}
    entry = {"path": str(ROOT / "data/corpora/demo_eng_spa")} if section == "datasets" else {"kind": "copy_source"}
    params[section] = {name: entry}
    with pytest.raises(InputError, match="names may hold only") as caught:
        check_params(params)
    assert caught.value.field == f"{section}.{name}"


@pytest.mark.slow
def test_hostile_names_never_become_paths_in_the_workflow(project):
    """The same refusal through Snakemake: nothing is created outside results/, and no job runs."""
    params = read_params(project)
    original = copy.deepcopy(params)
    params["methods"]["../../outside"] = {"kind": "copy_source"}
    write_params(project, params)
    try:
        done = sh(project, "snakemake", "--cores", "1", "all", check=False)
    finally:
        write_params(project, original)
    assert done.returncode != 0
    assert "params.yaml: field 'methods.../../outside': names may hold only" in done.stdout + done.stderr
    assert not (project.parent / "outside").exists() and not list(project.parent.glob("outside*"))


@pytest.mark.slow
def test_hostile_names_in_run_cards_cannot_alter_database_queries(project, tmp_path):
    """Cards reach the database from files too (`lyss` commands), not only from the workflow: names with
    SQL metacharacters are stored and found as plain values, and the table survives."""
    from lyss.store import Store

    sh(project, "snakemake", "--cores", "1", f"results/runs/{DATASET}/copy_source.json")
    card = run_card(project, "copy_source")
    store = Store.open(tmp_path / "lyss.sqlite")
    try:
        hostile = ["x'; DROP TABLE run_cards; --", 'q"uote', "../../etc", "% OR 1=1", "name\\0"]
        for name in hostile:
            variant = copy.deepcopy(card)
            variant["dataset"]["id"] = name
            variant["method"]["name"] = name
            variant["fingerprint"]["hash"] = hashlib.sha256(name.encode()).hexdigest()
            store.push(variant)
        assert store.count() == len(hostile)
        assert sorted(store.datasets()) == sorted(hostile)
        for name in hostile:
            rows = store.query(dataset=name)
            assert len(rows) == 1, (name, rows)
        assert store.query(dataset="%") == [] and store.query(dataset="' OR '1'='1") == []
    finally:
        store.close()


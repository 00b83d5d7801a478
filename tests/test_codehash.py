"""Code is an input (lyss.codehash): each rule's `code` param hashes exactly the lyss files its script can run,
found from the import graph, so an edit reruns precisely the jobs whose code changed, in Snakemake and in DVC.
The unit tests read the real package; the workflow test edits one metric module in a scratch project."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from scratch_project import DATASET, make_project, read_params, sh, write_params

from lyss import codehash
from lyss.codehash import SRC, card_plugins, closure, code_hash, digest, metric_modules

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"


def names(files) -> set[str]:
    return {str(f.relative_to(SRC)) for f in files if f.is_relative_to(SRC)}


def test_metric_ids_map_to_the_modules_that_define_their_plugins():
    from lyss.metrics import REGISTRY

    assert metric_modules() == {metric: plugin.__module__ for metric, plugin in REGISTRY.items()}


def test_a_score_job_runs_the_shared_code_and_only_its_own_metric_module():
    bleu = names(closure(SCRIPTS / "score.py", ("bleu",)))
    spelling = names(closure(SCRIPTS / "score.py", ("orthographic_accuracy",)))
    assert {"lyss/metrics/surface.py", "lyss/metrics/score.py", "lyss/metrics/files.py", "lyss/metrics/__init__.py",
            "lyss/metrics/base.py", "lyss/__init__.py"} <= bleu
    assert "lyss/metrics/orthography.py" not in bleu and "lyss/metrics/terminology.py" not in bleu
    assert "lyss/metrics/orthography.py" in spelling and "lyss/metrics/surface.py" not in spelling
    # the corpus and text helpers import no plugin, so a bleu job runs none of the others
    assert not {"lyss/metrics/fst.py", "lyss/metrics/semantic.py", "lyss/metrics/behavioural.py"} & bleu
    assert (SCRIPTS / "score.py").resolve() in closure(SCRIPTS / "score.py", ("bleu",))


def test_translation_never_depends_on_metric_plugins_it_does_not_import():
    translate = names(closure(SCRIPTS / "translate.py", ()))
    assert {"lyss/translate/hooks.py", "lyss/translate/runner.py", "lyss/translate/jobs.py"} <= translate
    # METHOD_KINDS names its classes as strings for importlib: they are reached all the same
    assert {"lyss/translate/command.py", "lyss/translate/openai_compatible.py", "lyss/translate/simple.py"} <= translate
    assert not {"lyss/metrics/orthography.py", "lyss/metrics/surface.py", "lyss/metrics/comet.py"} & translate


def test_computed_imports_and_package_data_are_reached():
    validate = names(closure(SCRIPTS / "validate.py", ()))
    # steps/__init__.py imports f"lyss.studies.steps.{part}": every step module
    assert {"lyss/studies/steps/labels.py", "lyss/studies/steps/jury.py", "lyss/studies/labels.py"} <= validate
    assert "lyss/cli.py" not in validate  # the workflow never runs the command line
    assert "lyss/metrics/orthography.py" not in validate  # `lyss labels` etc. score nothing
    aggregate_free = names(closure(SCRIPTS / "significance.py", "all"))
    # languages.py reads resources.files("lyss.schemas").joinpath("language_card.schema.json")
    assert "lyss/schemas/language_card.schema.json" in aggregate_free
    # the typed settings every stage takes fill in their defaults from the schema (lyss.settings.schema_file)
    assert "lyss/schemas/params.schema.json" in aggregate_free


def test_a_language_card_plugin_joins_the_score_job_of_its_metric():
    cards = [ROOT / "data/languages/crk.yaml", ROOT / "data/languages/spa.yaml"]
    assert card_plugins(cards, "equivalent_match_rate") == ("lyss.eval_standards.crk.metrics",)
    assert card_plugins(cards, "bleu") == ()
    files = names(closure(SCRIPTS / "score.py", ("equivalent_match_rate",), ("lyss.eval_standards.crk.metrics",)))
    assert {"lyss/eval_standards/crk/metrics.py", "lyss/eval_standards/crk/rules.yaml",
            "lyss/eval_standards/__init__.py"} <= files


def test_a_card_edited_between_two_questions_is_read_again(tmp_path):
    """Cards are parsed once per content, not per path: an edit in a long-lived process is seen."""
    card = tmp_path / "xyz.yaml"
    card.write_text("code: xyz\nevalMetrics:\n  - {metric: bleu, module: lyss.a}\n", encoding="utf-8")
    assert card_plugins([card], "bleu") == ("lyss.a",)
    card.write_text("code: xyz\nevalMetrics:\n  - {metric: bleu, module: lyss.b}\n  - {metric: ter, module: lyss.c}\n",
                    encoding="utf-8")
    assert card_plugins([card], "bleu") == ("lyss.b",)
    assert card_plugins([card, card], "ter") == ("lyss.c", "lyss.c")


def test_the_run_card_writer_depends_on_the_whole_package():
    """aggregate.py writes lyss.aggregate.fingerprint.code_version (every module's hash) into the card."""
    files = names(closure(SCRIPTS / "aggregate.py", "all"))
    assert {"lyss/studies/steps/jury.py", "lyss/studies/probe.py", "lyss/metrics/comet.py"} <= files


def test_the_hash_changes_with_the_content_of_any_file_in_the_closure(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    before = digest([a, b])
    assert digest([b, a]) == before
    b.write_text("y = 3\n")
    assert digest([a, b]) != before
    assert re.fullmatch(r"[0-9a-f]{16}", code_hash(SCRIPTS / "score.py", ("bleu",)))


def test_the_hash_does_not_depend_on_where_the_scripts_and_the_package_sit(tmp_path):
    """The same code in two layouts, checkout and package swapped in alphabetical order (scripts in `a/` and
    the package in `z/`, then the other way round), hashes the same, and as this checkout does: a project
    copied with its venv plans no job again."""
    hashes = []
    for scripts_at, package_at in (("a_checkout", "z_site"), ("z_checkout", "a_site")):
        shutil.copytree(SCRIPTS, tmp_path / scripts_at / "scripts")
        shutil.copytree(SRC / "lyss", tmp_path / package_at / "lyss", ignore=shutil.ignore_patterns("__pycache__"))
        program = ("import sys; from lyss.codehash import SRC, code_hash; assert SRC == __import__('pathlib')"
                   f".Path({str(tmp_path / package_at)!r}), SRC; "
                   f"print(code_hash({str(tmp_path / scripts_at / 'scripts/score.py')!r}, ('bleu',)), "
                   f"code_hash({str(tmp_path / scripts_at / 'scripts/translate.py')!r}, ()))")
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True,
                              env={"PYTHONPATH": str(tmp_path / package_at), "PATH": "/usr/bin:/bin"})
        hashes.append(done.stdout.split())
    here = [code_hash(SCRIPTS / "score.py", ("bleu",)), code_hash(SCRIPTS / "translate.py", ())]
    assert hashes == [here, here]


# ---------------------------------------------------------------------------------------- in the workflow

METRICS = ["exact_match_rate", "chrf_plus_plus", "orthographic_accuracy", "terminology_adherence"]


def planned_jobs(work: Path) -> list[tuple[str, str]]:
    """(rule, first output) of every job `snakemake -n all` would run."""
    done = sh(work, "snakemake", "-n", "--cores", "1", "all", env_extra={"PYTHONPATH": str(work / "src")})
    return re.findall(r"^rule (\w+):\n(?:[ \t]+.*\n)*?[ \t]+output: ([^,\s]+)", done.stdout, flags=re.M)


@pytest.mark.slow
def fresh_closure(script, metrics):
    """closure() as a new process computes it: nothing remembered in memory, only what is on disk."""
    codehash._edges.cache_clear()
    return closure(script, metrics)


def test_import_facts_kept_on_disk_give_the_closure_a_parse_gives(tmp_path, monkeypatch):
    monkeypatch.setenv("LYSS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("LYSS_CODEHASH_CACHE", "0")
    parsed = fresh_closure(SCRIPTS / "score.py", ("bleu",))
    assert not (tmp_path / "cache").exists()  # off: nothing written
    monkeypatch.delenv("LYSS_CODEHASH_CACHE")
    assert fresh_closure(SCRIPTS / "score.py", ("bleu",)) == parsed  # cold: parsed, then stored
    stored = sorted((tmp_path / "cache" / "codehash").glob("*.json"))
    assert len(stored) == len([p for p in parsed if p.suffix == ".py"])  # one entry per module read
    assert fresh_closure(SCRIPTS / "score.py", ("bleu",)) == parsed  # warm: read back
    for path in stored:  # torn or foreign files are parsed again, never trusted
        path.write_text('{"modules": 3', encoding="utf-8")
    assert fresh_closure(SCRIPTS / "score.py", ("bleu",)) == parsed
    codehash._edges.cache_clear()


def test_an_edited_file_is_read_again_not_taken_from_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("LYSS_CACHE_DIR", str(tmp_path / "cache"))
    script = tmp_path / "job.py"
    script.write_text("from lyss.io import read_json\n", encoding="utf-8")
    codehash._edges.cache_clear()
    assert "lyss.io" in codehash._edges(script)[0]
    script.write_text("import lyss.text\n", encoding="utf-8")
    codehash._edges.cache_clear()
    modules = codehash._edges(script)[0]
    assert "lyss.text" in modules and "lyss.io" not in modules
    codehash._edges.cache_clear()


def test_editing_one_metric_module_reruns_only_its_jobs_and_dvc_agrees(tmp_path):
    work = make_project(tmp_path, 6, methods={"copy_source": {"kind": "copy_source"}}, metrics=METRICS,
                        validation=True)
    params = read_params(work)
    params["validation"]["labels"]["args"]["resamples"] = 1000  # quicker; the same code path
    write_params(work, params)
    own = {"PYTHONPATH": str(work / "src")}  # the project's copy of lyss, the one this test edits
    sh(work, "dvc", "repro", env_extra=own)
    assert "Data and pipelines are up to date" in sh(work, "dvc", "status", env_extra=own).stdout
    assert planned_jobs(work) == []
    metric_files = {m: work / f"results/metrics/{DATASET}/copy_source/{m}.parquet" for m in METRICS}
    written = {m: p.read_bytes() for m, p in metric_files.items()}

    module = work / "src/lyss/metrics/orthography.py"
    module.write_text(module.read_text(encoding="utf-8") + "\n# an edit that changes no number\n", encoding="utf-8")
    jobs = planned_jobs(work)
    # one job scores the four metrics of a dataset × method (rules/score.smk); it recomputes only the edited one
    assert sorted(jobs) == sorted([
        ("score_cpu", f"results/metrics/{DATASET}/copy_source/exact_match_rate.parquet"),
        ("score_cpu", f"results/metrics/{DATASET}/reference/exact_match_rate.parquet"),  # the oracle's too
        ("aggregate", f"results/runs/{DATASET}/copy_source.json"),
        ("aggregate", f"results/runs/{DATASET}/reference.json"),
        ("significance", f"results/significance/{DATASET}.json"),
        ("plots", f"results/plots/composite/{DATASET}.csv"),
        ("report", "results/metrics.json"),
    ]), jobs

    sh(work, "dvc", "repro", env_extra=own)
    assert "Data and pipelines are up to date" in sh(work, "dvc", "status", env_extra=own).stdout
    # Snakemake touches every output of the job; the bytes say what was computed (each file holds the stamp
    # of its metric's code, and only the edited metric's changed)
    rewritten = {m for m, p in metric_files.items() if p.read_bytes() != written[m]}
    assert rewritten == {"orthographic_accuracy"}
    log = (work / f"results/logs/score/{DATASET}/copy_source.log").read_text(encoding="utf-8")
    assert "recomputing orthographic_accuracy; current: chrf_plus_plus, exact_match_rate, terminology_adherence" in log
    assert planned_jobs(work) == []


def test_the_settings_and_cards_lyss_score_ships_are_not_code():
    """lyss.defaults links to params.yaml and data/languages (for `lyss score` outside the repository):
    as code, a weight change would rerun every job, translations included."""
    from lyss.codehash import DEFAULTS

    for script in sorted(SCRIPTS.glob("*.py")):
        linked = [p for p in closure(script, "all") if p.is_relative_to(DEFAULTS) and p.suffix != ".py"]
        assert linked == [], script.name

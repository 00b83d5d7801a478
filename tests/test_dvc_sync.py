"""dvc.yaml stays in step with the Snakefile and params.yaml: every stage calls a real Snakemake
target, every params.yaml section belongs to a stage, and each stage lists the scripts of its rules."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
DVC = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
PARAMS = yaml.safe_load((ROOT / "params.yaml").read_text())


def smk_rules() -> dict[str, str]:
    """rule name → the script it runs (or '' for target-only rules), from the workflow sources."""
    rules = {}
    for path in [ROOT / "Snakefile", *sorted((ROOT / "rules").glob("*.smk"))]:
        for name, body in re.findall(r"^rule (\w+):\n((?:[ \t]+.*\n|\n)*)", path.read_text(), flags=re.M):
            script = (re.search(r'script:\s*\n\s*"\.\./(scripts/[\w.]+)"', body)
                      or re.search(r'run_job\("([\w.]+)"', body))
            rules[name] = f"scripts/{Path(script.group(1)).name}" if script else ""
    return rules


def test_each_stage_calls_an_existing_snakemake_target():
    rules = smk_rules()
    for name, stage in DVC.items():
        target = stage["cmd"].split()[-1]
        assert stage["cmd"].startswith("bin/snakemake "), name
        assert target in rules, f"stage {name} calls unknown Snakemake target {target}"


def test_every_params_section_is_owned_by_a_stage():
    declared = {p for stage in DVC.values() for p in stage.get("params", [])}
    assert declared == set(PARAMS), f"not in dvc.yaml: {set(PARAMS) - declared}; unknown: {declared - set(PARAMS)}"


def test_stage_deps_exist_and_cover_the_scripts_they_run():
    scripts_in_deps = {d for stage in DVC.values() for d in stage.get("deps", []) if d.startswith("scripts/")}
    used_scripts = {s for s in smk_rules().values() if s}
    assert used_scripts <= scripts_in_deps, f"scripts missing from dvc.yaml deps: {used_scripts - scripts_in_deps}"
    for stage in DVC.values():
        for dep in stage.get("deps", []):
            assert dep.startswith("results/") or (ROOT / dep).exists(), dep


def test_stage_deps_cover_the_code_their_scripts_import():
    """Generated from the import graph (lyss.codehash): `python -m lyss.devtools dvc-deps --write` fixes it."""
    from lyss.devtools import missing_deps

    assert missing_deps(ROOT / "dvc.yaml", ROOT / "data/languages") == {}


def test_every_rule_that_runs_a_script_has_a_code_param():
    for path in sorted((ROOT / "rules").glob("*.smk")):
        for name, body in re.findall(r"^rule (\w+):\n((?:[ \t]+.*\n|\n)*)", path.read_text(), flags=re.M):
            if "script:" in body or "run_job(" in body:
                assert re.search(r"^\s+code=", body, flags=re.M), f"rule {name} ({path.name}) has no code= param"


def test_every_stage_depends_on_the_workflow_and_the_code_it_imports():
    """Snakemake reads every rules/*.smk for any target, and rules/common.smk imports lyss.codehash (the code
    params) and lyss.config (the settings check): editing either changes what any stage's Snakemake does."""
    from lyss.devtools import workflow_code

    src = ROOT / "src/lyss"
    assert {src / "codehash.py", src / "config.py", src / "errors.py"} <= workflow_code()
    for name, stage in DVC.items():
        assert {"Snakefile", "rules"} <= set(stage["deps"]), name


def test_the_committed_lock_matches_the_code_data_and_params():
    """`make run` on a fresh clone leaves git clean only if dvc.lock already holds the hashes of the code,
    data and params it is committed with (the outputs are the same bytes on any machine). A commit that edits
    code without refreshing the lock fails here: run `make run` and commit dvc.lock."""
    env = {**os.environ, "DVC_NO_ANALYTICS": "1", "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    done = subprocess.run(["dvc", "status", "--json"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300, check=True)
    stale = {}
    for stage, changes in json.loads(done.stdout or "{}").items():
        for change in changes if isinstance(changes, list) else []:
            if not isinstance(change, dict):
                continue
            deps = {p: s for p, s in change.get("changed deps", {}).items() if not p.startswith("results/")}
            if deps or change.get("changed params"):
                stale[stage] = {**deps, **change.get("changed params", {})}
    assert stale == {}, f"dvc.lock is stale for {stale}: run `make run` and commit dvc.lock"

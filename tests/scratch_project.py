"""A scratch copy of the project for tests that run the real workflow (Snakemake, DVC, SLURM, SSH):
the project files, a slice of the demo corpus as dataset `demo_small`, a trimmed params.yaml, and
`git init`. Commands run with the venv's bin first on PATH, under `timeout` (a hung Snakemake
ignores SIGTERM, so `timeout -k` follows up with SIGKILL)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
PROJECT_FILES = ["Snakefile", "rules", "scripts", "bin", "src", "pyproject.toml", "params.yaml", "dvc.yaml",
                 "data/languages", "data/validation",
                 ".dvc/config", ".dvcignore", ".gitignore"]
DATASET = "demo_small"


def env(**extra) -> dict:
    merged = {**os.environ, "DVC_NO_ANALYTICS": "1", **extra}
    merged["PATH"] = f"{VENV_BIN}:{merged['PATH']}"
    return merged


def sh(cwd, *cmd, check=True, timeout=600, env_extra=None):
    """Run `cmd` in `cwd` under coreutils `timeout` (SIGTERM, then SIGKILL 10 s later)."""
    argv = ["timeout", "-k", "10", str(timeout), *map(str, cmd)]
    done = subprocess.run(argv, cwd=cwd, env=env(**(env_extra or {})), capture_output=True, text=True,
                          timeout=timeout + 30)
    if check and done.returncode:
        raise AssertionError(f"{' '.join(map(str, cmd))} failed ({done.returncode}):\n"
                             f"{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
    return done


def make_project(work: Path, n_entries: int = 20, methods: dict | None = None, metrics: list | None = None,
                 validation: bool = False, git: bool = True, **params_overrides) -> Path:
    """Copy the project into `work` with the first `n_entries` demo entries as dataset `demo_small`.
    `methods`/`metrics` replace those of params.yaml; `validation` keeps the human-judgment parts."""
    work.mkdir(parents=True, exist_ok=True)
    for name in PROJECT_FILES:
        source, target = ROOT / name, work / name
        if not source.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(source, target)
    demo = ROOT / "data/corpora/demo_eng_spa"
    small = work / "data/corpora" / DATASET
    small.mkdir(parents=True)
    lines = (demo / "corpus.jsonl").read_text(encoding="utf-8").splitlines()[:n_entries]
    (small / "corpus.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    card = (demo / "dataset.yaml").read_text(encoding="utf-8").replace("id: demo_eng_spa", f"id: {DATASET}")
    (small / "dataset.yaml").write_text(card, encoding="utf-8")
    params = yaml.safe_load((work / "params.yaml").read_text(encoding="utf-8"))
    params["datasets"] = {DATASET: {"path": f"data/corpora/{DATASET}"}}
    if methods is not None:
        params["methods"] = methods
    if metrics is not None:
        params["metrics"] = metrics
    if not validation:
        params.pop("validation", None)
    params.update(params_overrides)
    write_params(work, params)
    if git:
        sh(work, "git", "init", "-q")
    return work


def read_params(work: Path) -> dict:
    return yaml.safe_load((work / "params.yaml").read_text(encoding="utf-8"))


def write_params(work: Path, params: dict) -> None:
    (work / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False, allow_unicode=True), encoding="utf-8")


def run_card(work: Path, method: str, dataset: str = DATASET) -> dict:
    return json.loads((work / f"results/runs/{dataset}/{method}.json").read_text(encoding="utf-8"))


# Run-card fields that measure wall time, so two runs of the same inputs legitimately differ in them.
TIMING_FIELDS = {"elapsed_seconds", "latency_s", "mean_latency_s", "p50_latency_s", "p95_latency_s",
                 "entries_per_second", "throughput", "speed", "seconds", "wall_seconds"}


def without_timing(value):
    """A run card with every timing-derived field removed (recursively), for run-to-run comparison."""
    if isinstance(value, dict):
        return {k: without_timing(v) for k, v in value.items() if not _is_timing(k)}
    if isinstance(value, list):
        return [without_timing(v) for v in value]
    return value


def _is_timing(key: str) -> bool:
    key = key.lower()
    return key in TIMING_FIELDS or "latency" in key or key.endswith(("_seconds", "_per_second", "_per_minute"))

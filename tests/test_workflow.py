"""The workflow end to end on a small slice of the demo corpus, in a scratch copy of the project:
Snakemake builds run cards; after a weight change `dvc repro` re-aggregates only; `dvc metrics diff`
shows the composite moving; Snakemake and DVC agree that nothing is left to do."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from lyss.aggregate.runcard import validate_run_card

ROOT = Path(__file__).resolve().parents[1]
PROJECT_FILES = ["Snakefile", "rules", "scripts", "bin", "src", "params.yaml", "dvc.yaml", "data/languages",
                 "data/validation", ".dvc/config", ".dvcignore", ".gitignore"]
N_ENTRIES = 40

pytestmark = pytest.mark.slow


def sh(cwd, *cmd, check=True):
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}", DVC_NO_ANALYTICS="1")
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    if check and done.returncode:
        raise AssertionError(f"{' '.join(cmd)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def digest(folder: Path) -> dict:
    return {str(p.relative_to(folder)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def build_project(work: Path) -> Path:
    """A scratch copy of the project with the first N_ENTRIES demo entries as dataset demo_small."""
    work.mkdir(parents=True, exist_ok=True)
    for name in PROJECT_FILES:
        source = ROOT / name
        target = work / name
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if source.is_dir() else shutil.copy2)(source, target)
    demo = ROOT / "data/corpora/demo_eng_spa"
    small = work / "data/corpora/demo_small"
    small.mkdir(parents=True)
    lines = (demo / "corpus.jsonl").read_text(encoding="utf-8").splitlines()[:N_ENTRIES]
    (small / "corpus.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    card = (demo / "dataset.yaml").read_text(encoding="utf-8").replace("id: demo_eng_spa", "id: demo_small")
    (small / "dataset.yaml").write_text(card, encoding="utf-8")
    params = yaml.safe_load((work / "params.yaml").read_text())
    params["datasets"] = {"demo_small": {"path": "data/corpora/demo_small"}}
    params["validation"]["labels"]["args"]["resamples"] = 1000  # keeps the test quick; same code path
    (work / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False, allow_unicode=True))
    sh(work, "git", "init", "-q")
    return work


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    work = build_project(tmp_path_factory.mktemp("project"))
    sh(work, "snakemake", "--cores", "2", "all")
    return work


def card(project, method):
    return json.loads((project / f"results/runs/demo_small/{method}.json").read_text())


def test_run_cards_are_valid_and_rank_apertium_first(project):
    apertium, copy = card(project, "apertium"), card(project, "copy_source")
    for c in (apertium, copy):
        validate_run_card(c)
        assert c["scores"]["total"] == N_ENTRIES and c["scores"]["errors"] == 0
    assert apertium["scores"]["composite"] > copy["scores"]["composite"]
    board = (project / "results/leaderboard.md").read_text()
    assert board.index("apertium") < board.index("copy_source")
    # both demo languages have card files; the card and the board say which card each language used
    assert {code: where["card"] for code, where in apertium["language_cards"].items()} == {"eng": "file", "spa": "file"}
    assert "Language cards: eng (file), spa (file)" in board
    summary = json.loads((project / "results/metrics.json").read_text())
    assert summary["demo_small"]["apertium"]["composite"] == apertium["scores"]["composite"]


def test_identical_inputs_give_identical_cards(project):
    before = card(project, "apertium")
    (project / "results/runs/demo_small/apertium.json").unlink()
    sh(project, "snakemake", "--cores", "2", "all")
    assert card(project, "apertium") == before


def test_a_fresh_clone_gets_the_same_versioned_bytes(project, tmp_path):
    """`make run` on a fresh clone of a commit: Snakemake from scratch, then `dvc commit`. Everything DVC
    versions comes out byte for byte as on the first machine, so dvc.lock is unchanged (git is clean) and
    `dvc status` is clean. Without the timing files (never versioned), a card's speed is null with why."""
    first = tmp_path / "first"
    shutil.copytree(project, first, symlinks=True)
    sh(first, "dvc", "commit", "--force", "--quiet")
    lock = (first / "dvc.lock").read_text()
    second = build_project(tmp_path / "second")
    (second / "dvc.lock").write_text(lock)
    sh(second, "snakemake", "--cores", "2", "all")
    sh(second, "dvc", "commit", "--force", "--quiet")
    assert (second / "dvc.lock").read_text() == lock
    assert "Data and pipelines are up to date" in sh(second, "dvc", "status").stdout
    assert card(second, "apertium")["scores"]["entries_per_minute"] > 0  # measured where it was translated

    shutil.rmtree(second / "results/timings")  # as after `dvc pull` on another machine
    sh(second, "snakemake", "--cores", "2", "--forcerun", "aggregate", "all")
    restored = card(second, "apertium")
    assert restored["scores"]["entries_per_minute"] is None and restored["elapsed_seconds"] is None
    assert restored["null_reasons"]["entries_per_minute"].startswith("the translations were made on another "
                                                                     "machine or restored from a cache")
    assert restored["scores"]["composite"] == card(project, "apertium")["scores"]["composite"]


def test_weight_change_reaggregates_only(project):
    sh(project, "dvc", "repro")
    sh(project, "git", "add", "-A")
    sh(project, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "baseline")
    assert "Nothing to be done" in sh(project, "snakemake", "-n", "--cores", "2", "all").stdout
    upstream = {d: digest(project / "results" / d) for d in ("corpora", "translations", "metrics")}
    composite_before = card(project, "apertium")["scores"]["composite"]

    params = yaml.safe_load((project / "params.yaml").read_text())
    for profile in params["composite"]["profiles"].values():
        if "chrf_plus_plus" in profile:  # the spec's A and B (not a fitted profile without it)
            profile["chrf_plus_plus"] *= 3
    (project / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False, allow_unicode=True))
    out = sh(project, "dvc", "repro").stdout
    assert "Stage 'translate' didn't change, skipping" in out
    assert "Stage 'score' didn't change, skipping" in out
    assert "Running stage 'aggregate'" in out
    assert {d: digest(project / "results" / d) for d in upstream} == upstream
    assert card(project, "apertium")["scores"]["composite"] != composite_before
    assert "composite" in sh(project, "dvc", "metrics", "diff").stdout
    assert "Nothing to be done" in sh(project, "snakemake", "-n", "--cores", "2", "all").stdout
    assert "Data and pipelines are up to date" in sh(project, "dvc", "status").stdout

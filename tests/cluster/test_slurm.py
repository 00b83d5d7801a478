"""The demo pipeline as SLURM jobs on a real single-node cluster (slurm_cluster.py) through
snakemake-executor-plugin-slurm and profiles/slurm, against the same slice run locally with
profiles/local: the run cards must agree (fingerprints and every score) except the timing-derived speed
fields (elapsed seconds, latencies, throughput), which measure wall time and legitimately differ.

A slice (N entries, 2 methods, 3 metrics with COMET on a tiny checkpoint trained offline, up to the run cards
and significance: 15 Snakemake jobs, 8 SLURM jobs with the profile's job groups) keeps this near two minutes
on 2 cores: each SLURM job starts Snakemake twice (batch step and job step).
"""

import hashlib
import json
import math
import re
import shutil
import sys
import warnings
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from scratch_project import DATASET, ROOT, make_project, run_card, sh, without_timing  # noqa: E402
from tiny_comet import train_tiny_comet  # noqa: E402

from lyss.metrics.files import read_metric_result  # noqa: E402

pytestmark = [pytest.mark.slurm, pytest.mark.slow]

N_ENTRIES = 12
METHODS = ["apertium", "copy_source"]
METRICS = ["exact_match_rate", "chrf_plus_plus", "comet_score"]
CHAINS = len(METHODS) + 1  # each method and the reference oracle, whose metric files every card reads
# prep; translate + postprocess + two score jobs (rules/score.smk: one for the metrics needing no GPU, one for
# COMET, whose model is on disk) for each chain; aggregate for each method; significance.
N_JOBS = 1 + CHAINS * (2 + 2) + len(METHODS) + 1
# The job groups of profiles/slurm/config.yaml: corpus (prep), method (translate → postprocess → CPU metrics,
# `group-components: method=N` chains a job), cards (the aggregates, up to its N a job), summary (significance);
# COMET alone.
SHIPPED_COMPONENTS = dict(c.split("=") for c in yaml.safe_load(
    (ROOT / "profiles/slurm/config.yaml").read_text(encoding="utf-8"))["group-components"])
GROUP_JOBS = {"corpus": 1, "method": math.ceil(CHAINS / int(SHIPPED_COMPONENTS["method"])),
              "cards": math.ceil(len(METHODS) / int(SHIPPED_COMPONENTS["cards"])), "summary": 1}
N_SLURM_JOBS = sum(GROUP_JOBS.values()) + CHAINS
# The run cards and significance tests; the report (leaderboards, plots, database) only reads them.
TARGETS = [f"results/runs/{DATASET}/{m}.json" for m in METHODS] + [f"results/significance/{DATASET}.json"]


def project(path: Path, comet_model: Path | None) -> Path:
    """The slice, COMET reading `comet_model` (None: the default model, which no machine here has)."""
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    options = {"comet_score": {"model": str(comet_model)}} if comet_model else {}
    work = make_project(path, N_ENTRIES, methods={m: params["methods"][m] for m in METHODS}, metrics=METRICS,
                        metric_options=options)
    shutil.copytree(ROOT / "profiles", work / "profiles")
    return work


@pytest.fixture(scope="module")
def comet_model(tmp_path_factory) -> Path:
    """A real COMET checkpoint, so that the COMET jobs load a model and score on the cluster as they do here."""
    pytest.importorskip("comet", reason="unbabel-comet is not installed (optional extra lyss[comet])")
    return train_tiny_comet(tmp_path_factory.mktemp("tiny_comet"))


@pytest.fixture(scope="module")
def local_run(tmp_path_factory, comet_model):
    work = project(tmp_path_factory.mktemp("local"), comet_model)
    sh(work, "snakemake", "--profile", "profiles/local", "--cores", "2", *TARGETS, timeout=300)
    return work


@pytest.fixture(scope="module")
def slurm_run(tmp_path_factory, cluster, comet_model):
    work = project(tmp_path_factory.mktemp("slurm"), comet_model)
    # What a user edits for their cluster: partition and account; this cluster has no accounting, so
    # the plugin queries squeue (MinJobAge=3600 ≥ 3 × the 1 s initial wait) and submits without account.
    profile = yaml.safe_load((work / "profiles/slurm/config.yaml").read_text())
    profile["default-resources"] = {"slurm_partition": cluster.partition}
    profile.update({"lyss-slurm-no-account": True, "lyss-slurm-status-command": "squeue",
                    "lyss-slurm-init-seconds-before-status-checks": 1, "jobs": 4, "latency-wait": 10})
    (work / "profiles/slurm/config.yaml").write_text(yaml.safe_dump(profile))
    done = sh(work, "snakemake", "--profile", "profiles/slurm", *TARGETS, timeout=420, check=False,
              env_extra=cluster.env)
    jobs = cluster.client("squeue", "-h", "-t", "all", "-o", "%i|%T|%k|%b").stdout.split()
    if done.returncode:
        pytest.fail(f"snakemake on SLURM failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}\n"
                    f"jobs: {jobs}\n{cluster.logs()}")
    return work, [line.split("|") for line in jobs]


def test_the_shipped_profile_groups_jobs(tmp_path):
    """The dry run (no cluster needed) shows the groups Snakemake forms from the profile's keys. The decision
    reads files only, so an empty checkpoint file stands for a model on disk."""
    checkpoint = tmp_path / "model" / "checkpoints" / "model.ckpt"
    checkpoint.parent.mkdir(parents=True)
    checkpoint.touch()
    work = project(tmp_path / "project", checkpoint)
    out = sh(work, "snakemake", "-n", "--profile", "profiles/slurm", *TARGETS).stdout
    groups = re.findall(r"Group job (\w+) \(jobs", out)
    assert {g: groups.count(g) for g in set(groups)} == GROUP_JOBS, out[-3000:]
    assert re.search(rf"^score\s+{CHAINS}$", out, re.M) and re.search(rf"^total\s+{N_JOBS}$", out, re.M), out[-3000:]


def test_comet_without_a_model_reserves_no_gpu_job(tmp_path):
    """Where COMET's model is on no disk, its files (which only say why) come from the CPU job of each chain:
    no job of rule score, so no GPU is reserved and no SLURM job submitted for it."""
    work = project(tmp_path, None)
    out = sh(work, "snakemake", "-n", "--profile", "profiles/slurm", *TARGETS).stdout
    assert not re.search(r"^score\s", out, re.M), out[-3000:]
    assert re.search(rf"^score_cpu\s+{CHAINS}$", out, re.M), out[-3000:]
    assert re.search(rf"^total\s+{N_JOBS - CHAINS}$", out, re.M), out[-3000:]
    plain_outputs = re.findall(r"rule score_cpu:\n\s+input: [^\n]*\n\s+output: ([^\n]*)", out)
    assert len(plain_outputs) == CHAINS and all("/comet_score.parquet" in o for o in plain_outputs), out[-3000:]


def test_every_job_ran_on_slurm_with_its_declared_resources(slurm_run, cluster):
    _, jobs = slurm_run
    assert len(jobs) == N_SLURM_JOBS, jobs
    assert all(state == "COMPLETED" for _, state, _, _ in jobs), jobs
    gpu_jobs = [job for job in jobs if "comet_score" in job[2]]
    assert len(gpu_jobs) == len(METHODS) + 1  # the oracle's COMET job too
    for job_id, *_ in gpu_jobs:  # the COMET jobs asked for (and got) the node's GPU
        detail = cluster.client("scontrol", "show", "job", job_id).stdout
        assert "gpu" in detail, detail


def check_fingerprints(on_slurm: dict, here: dict) -> None:
    """Equal fingerprints. If the library's source was edited between the two runs (a shared working
    tree; never in CI) only `code_version` may differ, and each hash must still be that of its parts."""
    for fingerprint in (on_slurm, here):
        parts = f"{fingerprint['corpus']}|{fingerprint['params']}|{fingerprint['code_version']}"
        assert fingerprint["hash"] == hashlib.sha256(parts.encode()).hexdigest()
    if on_slurm["code_version"] != here["code_version"]:
        warnings.warn(f"lyss source changed between the runs: {on_slurm['code_version']} → {here['code_version']}",
                      stacklevel=2)
        on_slurm, here = ({k: v for k, v in fp.items() if k not in ("hash", "code_version")} for fp in (on_slurm, here))
    assert on_slurm == here


def test_slurm_run_cards_equal_local_ones(slurm_run, local_run):
    slurm, _ = slurm_run
    for method in METHODS:
        on_slurm, here = run_card(slurm, method), run_card(local_run, method)
        check_fingerprints(on_slurm.pop("fingerprint"), here.pop("fingerprint"))
        assert without_timing(on_slurm) == without_timing(here)
        assert on_slurm["scores"]["total"] == N_ENTRIES and on_slurm["scores"]["errors"] == 0
    significance = f"results/significance/{DATASET}.json"
    assert json.loads((slurm / significance).read_text()) == json.loads((local_run / significance).read_text())


def test_per_entry_metric_values_are_identical(slurm_run, local_run):
    slurm, _ = slurm_run
    for path in sorted((local_run / "results/metrics").rglob("*.parquet")):
        relative = path.relative_to(local_run)
        (here, ids), (there, slurm_ids) = read_metric_result(path), read_metric_result(slurm / relative)
        assert ids == slurm_ids and here.corpus_value == there.corpus_value, relative
        assert here.values.tobytes() == there.values.tobytes(), relative


def test_nothing_left_to_do_after_the_cluster_run(slurm_run):
    slurm, _ = slurm_run
    assert "Nothing to be done" in sh(slurm, "snakemake", "-n", "--cores", "1", *TARGETS).stdout

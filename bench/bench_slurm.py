"""Issue 20's SLURM line: the whole default pipeline (params.yaml: the demo and the TED MQM data) through
profiles/slurm on a one-node SLURM cluster on this machine, against the same pipeline run locally, each in
a fresh clone of HEAD with an empty embedding cache (target: SLURM finishes in ≤ 2× the local time).

The cluster is the tests' (tests/cluster/slurm_cluster.py: munged, slurmctld, slurmd from Debian, no
accounting, so the plugin reads job states from squeue). Each SLURM job starts Snakemake twice (batch and
job step), which is the overhead this line measures; the profile's job groups, core cap and status wait are
the shipped ones (only what a user edits is changed). The two run cards of each dataset × method must agree
but for timing fields; the bench checks that every card exists in both runs and prints the ratio, with the
1-minute load average sampled every 10 s during each run (mean and peak).

    .venv/bin/python bench/bench_slurm.py [--jobs 4] [--set 'cores: 1' ...] [--timeline]
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "cluster"))
sys.path.insert(0, str(Path(__file__).parent))
from _common import ROOT  # noqa: E402
from slurm_cluster import start_cluster  # noqa: E402


def clone(base: Path, name: str) -> Path:
    work = base / name
    subprocess.run(["git", "clone", "-q", str(ROOT), str(work)], check=True)
    (work / ".venv").symlink_to(ROOT / ".venv")
    return work


def run(work: Path, argv: list[str], env: dict) -> tuple[float, str]:
    """Wall seconds of the command, and the load it ran under (mean and peak of the 1-minute average)."""
    samples, stop = [], threading.Event()

    def sample() -> None:
        while not stop.wait(10):
            samples.append(os.getloadavg()[0])

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    stop.set()
    sampler.join()
    if done.returncode:
        sys.exit(f"{' '.join(argv)} failed in {work}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    samples = samples or [os.getloadavg()[0]]
    return seconds, f"load mean {sum(samples) / len(samples):.1f}, peak {max(samples):.1f}"


def slurm_profile(work: Path, partition: str, jobs: int, overrides: dict) -> None:
    """What a user edits for a cluster without accounting (docs/cluster.md); the groups stay the shipped ones
    unless `overrides` (profile keys, from --set) replace them, to measure a variant of the profile."""
    path = work / "profiles/slurm/config.yaml"
    profile = yaml.safe_load(path.read_text())
    profile["default-resources"] = {"slurm_partition": partition}
    profile.update({"lyss-slurm-no-account": True, "lyss-slurm-status-command": "squeue", "jobs": jobs,
                    "latency-wait": 10})
    profile.update(overrides)
    path.write_text(yaml.safe_dump(profile))


def cards(work: Path) -> set[str]:
    return {str(p.relative_to(work)) for p in (work / "results/runs").glob("*/*.json")}


def load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=4, help="SLURM jobs queued or running at once")
    parser.add_argument("--set", action="append", default=[], metavar="YAML",
                        help="a profile key to replace, as YAML (e.g. 'cores: 1'); repeatable")
    parser.add_argument("--timeline", action="store_true", help="also list each SLURM job's CPUs, start and end")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="lyss-bench-slurm-"))
    base.chmod(0o755)  # munged runs as user munge and must traverse every folder above its socket
    cluster = start_cluster(base)
    try:
        local, slurm = clone(base, "local"), clone(base, "slurm")
        slurm_profile(slurm, cluster.partition, args.jobs,
                      {k: v for text in args.set for k, v in yaml.safe_load(text).items()})
        env = {**os.environ, "DVC_NO_ANALYTICS": "1"}
        print(f"load before: {load()}", flush=True)
        # each clone imports its own lyss (the shared venv's editable install points at another checkout)
        local_s, local_load = run(local, ["bin/snakemake", "all", "--cores", "2", "--quiet"],
                                  {**env, "PYTHONPATH": str(local / "src"),
                                   "LYSS_CACHE_DIR": str(base / "cache-local")})
        print(f"local: {local_s:.0f} s ({local_load}; at the end {load()})", flush=True)
        slurm_s, slurm_load = run(slurm, ["bin/snakemake", "--profile", "profiles/slurm", "all", "--quiet"],
                                  {**env, **cluster.env, "PYTHONPATH": str(slurm / "src"),
                                   "LYSS_CACHE_DIR": str(base / "cache-slurm")})
        timeline = cluster.client("squeue", "-h", "-t", "all", "-o", "%i %j %C %S %e").stdout.splitlines()
        jobs = len(timeline)
        print(f"slurm: {slurm_s:.0f} s, {jobs} SLURM jobs ({slurm_load}; at the end {load()})", flush=True)
        missing = cards(local) ^ cards(slurm)
        if missing:
            sys.exit(f"run cards in one run only: {sorted(missing)}")
        print(f"SLURM / local: {slurm_s / local_s:.2f}× (target ≤ 2×); {len(cards(local))} run cards in both")
        if args.timeline:
            print("SLURM jobs (id, name, CPUs, start, end):", *sorted(timeline, key=lambda line: line.split()[3]),
                  sep="\n  ")
    finally:
        cluster.stop()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()

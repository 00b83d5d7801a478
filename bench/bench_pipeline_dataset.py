"""Issue 20's line "a 3-system WMT dataset added to the pipeline ≤ 1.5× `lyss score` on the same files": the
cost of the workflow's bookkeeping (a job per step, the files between them, significance and the reports)
over scoring the same outputs in one process.

A scratch clone of this checkout gets one dataset folder, `wmt3` (the TED source, reference and three of its
systems as plain text, as WMT distributes them), and a params.yaml whose only dataset it is (no translation
method runs on it). Then, each with an empty embedding cache of its own:

- pipeline: `snakemake report --cores 2` (prep, embed, score, aggregate, significance and plots, report);
- peer: `lyss score -s SRC -r REF -i A B C -l en-de` (the same metrics, the oracle and caveats, one process).

    .venv/bin/python bench/bench_pipeline_dataset.py [--systems wmt21_nemo wmt21_uedin wmt21_online_w] [--repeats 3]

Each pair runs `lyss score`, then the pipeline, in a fresh clone; a shared machine's load moves single runs by up
to ±0.2× (docs/performance.md), so the line is the median of the pairs' ratios, with their range.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).parent))
from _common import ROOT, compiled  # noqa: E402

TED = ROOT / "data" / "corpora" / "mqm_ted_ende"


def write_dataset(folder: Path, systems: list[str]) -> None:
    """The dataset folder convention (docs/corpus.md): source.txt, reference.txt, systems/<name>.txt."""
    entries = [json.loads(line) for line in (TED / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    (folder / "systems").mkdir(parents=True)
    (folder / "source.txt").write_text("".join(e["source"] + "\n" for e in entries), encoding="utf-8")
    (folder / "reference.txt").write_text("".join(e["reference"] + "\n" for e in entries), encoding="utf-8")
    for system in systems:
        rows = {r["id"]: r.get("prediction") or "" for r in map(json.loads, (TED / "systems" / f"{system}.jsonl")
                                                                 .read_text(encoding="utf-8").splitlines())}
        (folder / "systems" / f"{system}.txt").write_text("".join(rows[e["id"]] + "\n" for e in entries),
                                                         encoding="utf-8")
    (folder / "dataset.yaml").write_text(yaml.safe_dump({"id": "wmt3", "name": "TED en→de, three systems",
                                                         "language_pair": "eng-deu", "licence": "Apache-2.0",
                                                         "citation": "WMT21 TED (mqm_ted_ende)"}),
                                         encoding="utf-8")


def scratch_project(tmp: Path, systems: list[str]) -> Path:
    project = tmp / "project"
    subprocess.run(["git", "clone", "-q", "--local", str(ROOT), str(project)], check=True)
    (project / ".venv").symlink_to(ROOT / ".venv")
    write_dataset(project / "data" / "corpora" / "wmt3", systems)
    params = yaml.safe_load((project / "params.yaml").read_text(encoding="utf-8"))
    params["datasets"] = {"wmt3": {"path": "data/corpora/wmt3", "methods": []}}
    (project / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False, allow_unicode=True), encoding="utf-8")
    # the pipeline starts more processes than `lyss score`, each of which would compile the package again
    compiled({**os.environ, "PYTHONPATH": str(project / "src")})
    return project


def timed(argv, cwd: Path, cache: Path) -> float:
    env = {**os.environ, "LYSS_CACHE_DIR": str(cache), "DVC_NO_ANALYTICS": "1", "PYTHONPATH": str(cwd / "src")}
    start = time.perf_counter()
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, cwd=cwd, env=env)
    if done.returncode:
        sys.exit(f"{' '.join(map(str, argv))} failed:\n{done.stderr[-3000:]}")
    return time.perf_counter() - start


def one_pair(systems: list[str]) -> tuple[float, float, str]:
    """(pipeline s, `lyss score` s, the pipeline's job count) in a fresh scratch clone, each with an empty
    embedding cache of its own."""
    with tempfile.TemporaryDirectory() as tmp:
        project = scratch_project(Path(tmp), systems)
        folder = project / "data" / "corpora" / "wmt3"
        score = timed([ROOT / ".venv" / "bin" / "lyss", "score", "-s", folder / "source.txt", "-r",
                       folder / "reference.txt", "-i", *sorted((folder / "systems").glob("*.txt")), "-l", "en-de"],
                      project, Path(tmp, "cache-score"))
        plan = subprocess.run([project / "bin" / "snakemake", "-n", "report", "--cores", "2", "--quiet", "rules"],
                              cwd=project, capture_output=True, text=True, env={**os.environ,
                                                                                "PYTHONPATH": str(project / "src")})
        jobs = [line for line in plan.stdout.splitlines() if line.strip().startswith("total")]
        pipeline = timed([project / "bin" / "snakemake", "report", "--cores", "2", "--quiet"], project,
                         Path(tmp, "cache-pipeline"))
    return pipeline, score, jobs[0].split()[-1] if jobs else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", nargs=3, default=["wmt21_nemo", "wmt21_uedin", "wmt21_online_w"])
    parser.add_argument("--repeats", type=int, default=3,
                        help="pairs run one after the other; the line is their median ratio (default 3)")
    args = parser.parse_args()
    ratios = []
    for repeat in range(1, args.repeats + 1):
        pipeline, score, jobs = one_pair(args.systems)
        ratios.append(pipeline / score)
        print(f"pair {repeat}: pipeline, 3 systems × 529 TED segments ({jobs} jobs) {pipeline:.1f} s; "
              f"lyss score on the same files {score:.1f} s; {pipeline / score:.2f}× "
              f"(load {os.getloadavg()[0]:.1f})", flush=True)
    print(f"ratio: median {statistics.median(ratios):.2f}× of {len(ratios)} pairs "
          f"({min(ratios):.2f}–{max(ratios):.2f}×; target ≤ 1.5×)")


if __name__ == "__main__":
    main()

"""Issue 20's lines this work touched, each as a ratio from one run:

1. `lyss score` defaults (every model-free metric: embeddings included) on 1,002 real WMT21 TED segments, with
   an empty embedding cache (cold; best of --repeats runs, each with its own empty cache) and again with the
   caches it filled (warm: the embeddings and the word-list and language-identifier answers,
   lyss.metrics.lookups), against the sacrebleu CLI computing chrF++, BLEU
   and TER on the same files (target ≤ 5× cold, ≤ 1.5× warm); before each cold run, how many times faster the
   embedder runs 300 of the outputs on both cores than on one (_common.VectorScaling), since the host sometimes
   gives the two vCPUs one core's vector units, which slows the model and not sacrebleu;
2. the demo pipeline's jobs: how many score jobs `snakemake -n all` plans against the one-metric jobs they
   replace (datasets × methods × metrics), and the dry run's wall time;
3. with --pipeline, the demo pipeline on a fresh clone (`snakemake all --cores 2`, empty caches): its wall
   time and each rule's share of the job time, read from Snakemake's log;
4. with --mafand DIR, line 1 on MAFAND-MT's English→Yoruba dev set (not shipped: CC BY-NC; read from DIR);
5. with --compare, `lyss compare` defaults on three TED systems (the raters' best, second and last) with empty
   caches, against sacrebleu's `--paired-bs` on chrF++, BLEU and TER (surface only; the issue gives no target).

    .venv/bin/python bench/bench_issue20.py [--tsv data/corpora/mqm_ted_ende/raw/mqm_ted_ende.tsv] [--skip-score]
        [--skip-jobs] [--repeats 3] [--warm-only, with BENCH_CACHE=<a LYSS_CACHE_DIR filled before>] [--compare]
        [--mafand DIR] [--pipeline]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import ROOT, VectorScaling, compiled  # noqa: E402
from bench_score_sacrebleu import BIN, segments, tsv_rows  # noqa: E402


def timed(argv, env=None) -> float:
    start = time.perf_counter()
    subprocess.run([str(a) for a in argv], check=True, capture_output=True, env=env)
    return time.perf_counter() - start


def score_line(tsv: Path, warm_only: bool, repeats: int) -> None:
    """Line 1 on the TED segments of `tsv` (English→German)."""
    src, ref, hyp = segments(tsv)
    files_line("", src, ref, hyp, "eng-deu", warm_only, repeats)


def mafand_line(folder: Path, repeats: int) -> None:
    """Line 1 on MAFAND-MT's English→Yoruba dev set (the issue's "1,558 Yoruba segments, no output"; the
    shared dev folder holds 200 of them), the output being the reference with every fifth word dropped: a
    Yoruba text the word metrics, the language identifier and the embedder all have to read."""
    src = (folder / "dev.eng-yor.eng").read_text(encoding="utf-8").splitlines()
    ref = (folder / "dev.eng-yor.yor").read_text(encoding="utf-8").splitlines()
    hyp = [" ".join(w for i, w in enumerate(line.split()) if i % 5 != 4) for line in ref]
    files_line(" (MAFAND eng→yor dev)", src, ref, hyp, "eng-yor", False, repeats)


def files_line(label: str, src: list[str], ref: list[str], hyp: list[str], pair: str, warm_only: bool,
               repeats: int) -> None:
    """Cold (empty caches, each run its own) then warm (the caches the last cold run filled: embeddings and
    word lookups), each best of `repeats` and alternated with sacrebleu, as timeit takes the best of its runs: on
    a shared machine the slower runs measure the neighbours. With `warm_only`, the caches of an earlier run
    (--cache)."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for name, lines in (("src", src), ("ref", ref), ("hyp", hyp)):
            paths[name] = Path(tmp, name)
            paths[name].write_text("\n".join(line.replace("\n", " ") for line in lines) + "\n", encoding="utf-8")
        env = {**os.environ, "LYSS_CACHE_DIR": os.environ.get("BENCH_CACHE") or str(Path(tmp, "cache"))}
        compiled(env)
        lyss = [BIN / "lyss", "score", "-s", paths["src"], "-r", paths["ref"], "-i", paths["hyp"], "-l", pair]
        sacre = [BIN / "sacrebleu", paths["ref"], "-i", paths["hyp"], "-m", "chrf", "bleu", "ter",
                 "--chrf-word-order", "2"]
        sacrebleu = timed(sacre)
        colds, scalings = [], []
        probe = None if warm_only else VectorScaling(hyp[:300])
        for run in range(0 if warm_only else repeats):
            env["LYSS_CACHE_DIR"] = str(Path(tmp, f"cache-{run}"))
            scalings.append(probe.measure())
            colds.append(timed(lyss, env))
            sacrebleu = min(sacrebleu, timed(sacre))
        warm = float("inf")
        for _ in range(repeats):
            sacrebleu = min(sacrebleu, timed(sacre))
            warm = min(warm, timed(lyss, env))
    runs = 1 + repeats * (1 if warm_only else 2)
    cold_text = "" if not colds else (
        f"cold {min(colds):.1f} s ({min(colds) / sacrebleu:.1f}×, target ≤ 5×; best of {repeats}, slowest "
        f"{max(colds):.1f} s; each run {', '.join(f'{c:.1f}' for c in colds)} s after the embedder's 2-core "
        f"scaling {', '.join(f'{x:.2f}' for x in scalings)}: 2 = two cores' vector units, lower = shared), ")
    print(f"lyss score defaults, {len(src)} segments{label}: {cold_text}warm {warm:.2f} s (best of {repeats}); "
          f"sacrebleu {sacrebleu:.2f} s (best of {runs}); warm {warm / sacrebleu:.2f}× (target ≤ 1.5×)")


COMPARED = ("Facebook-AI", "Online-W", "Nemo")  # the raters' best, second and last of the 13 TED systems


def three_systems(tsv: Path) -> tuple[list[str], list[str], dict[str, list[str]]]:
    """(sources, references, {system: outputs}) of the TED segments that COMPARED all translated."""
    rows = tsv_rows(tsv)
    segments = sorted({seg for (system, seg) in rows if system == "ref"
                       and all((name, seg) in rows for name in COMPARED)}, key=int)
    return ([rows["ref", seg][0] for seg in segments], [rows["ref", seg][1] for seg in segments],
            {name: [rows[name, seg][1] for seg in segments] for name in COMPARED})


def compare_line(tsv: Path) -> None:
    """`lyss compare` defaults (every metric of the significance step and the composite, embeddings included)
    with empty caches, against sacrebleu's paired bootstrap on chrF++, BLEU and TER (surface only) on the same
    files: the issue's line without a target."""
    sources, references, outputs = three_systems(tsv)
    with tempfile.TemporaryDirectory() as tmp:
        paths = {name: Path(tmp, name) for name in ("src", "ref", *COMPARED)}
        for name, lines in (("src", sources), ("ref", references), *outputs.items()):
            paths[name].write_text("\n".join(line.replace("\n", " ") for line in lines) + "\n", encoding="utf-8")
        env = {**os.environ, "LYSS_CACHE_DIR": str(Path(tmp, "cache"))}
        systems = [paths[name] for name in COMPARED]
        lyss = timed([BIN / "lyss", "compare", "-s", paths["src"], "-r", paths["ref"], "-i", *systems, "-l",
                      "eng-deu"], env)
        # `-f text`: sacrebleu 2.6.0's JSON writer fails on the paired test's NumPy float32 values under NumPy 2
        sacrebleu = timed([BIN / "sacrebleu", paths["ref"], "-i", *systems, "-m", "chrf", "bleu", "ter",
                           "--chrf-word-order", "2", "--paired-bs", "-f", "text"])
    print(f"lyss compare defaults, {len(COMPARED)} systems × {len(sources)} segments, empty caches: {lyss:.1f} s; "
          f"sacrebleu --paired-bs (chrF++, BLEU, TER) {sacrebleu:.1f} s: {lyss / sacrebleu:.1f}× (no target)")


def jobs_line() -> None:
    start = time.perf_counter()
    done = subprocess.run([BIN / "snakemake", "-n", "--cores", "2", "all"], cwd=tmp_project(), check=True,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    seconds = time.perf_counter() - start
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", done.stdout, flags=re.M))
    score_jobs = sum(int(n) for rule, n in counts.items() if rule.startswith("score"))
    outputs = "\n".join(line for line in done.stdout.splitlines() if line.strip().startswith("output:"))
    files = len(set(re.findall(r"results/metrics/\S+?\.parquet", outputs)))
    print(f"demo pipeline: {score_jobs} score jobs for {files} metric files ({files / score_jobs:.1f} metrics a "
          f"job); {counts.get('total')} jobs in all; snakemake -n {seconds:.1f} s")


def rule_seconds(log: str) -> dict[str, float]:
    """Per rule, the seconds its jobs ran (from the timestamp before a job's `jobid:` to its "Finished jobid:"
    line in Snakemake's log; jobs running side by side both count)."""
    started, seconds, now = {}, {}, None
    for line in log.splitlines():
        if stamp := re.match(r"\[(\w{3} \w{3} +\d+ [\d:]+ \d{4})\]", line):
            now = time.mktime(time.strptime(re.sub(" +", " ", stamp.group(1)), "%a %b %d %H:%M:%S %Y"))
        elif job := re.match(r"\s+jobid: (\d+)", line):
            started[job.group(1)] = now
        elif done := re.match(r"Finished jobid: (\d+) \(Rule: (\w+)\)", line):
            seconds[done.group(2)] = seconds.get(done.group(2), 0.0) + now - started[done.group(1)]
    return seconds


def pipeline_line() -> None:
    """`snakemake all --cores 2` on a fresh clone of this checkout (its own src, empty caches, the installed
    .venv linked): wall time and each rule's share of the job time."""
    clone = Path(tempfile.mkdtemp(prefix="lyss-clone-"))
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    (clone / ".venv").symlink_to((ROOT / ".venv").resolve())
    env = {**os.environ, "PYTHONPATH": str(clone / "src"), "LYSS_CACHE_DIR": str(clone / "cache"),
           "DVC_NO_ANALYTICS": "1"}
    start = time.perf_counter()
    subprocess.run([str(clone / "bin/snakemake"), "all", "--cores", "2"], cwd=clone, check=True, env=env,
                   capture_output=True)
    wall = time.perf_counter() - start
    seconds = rule_seconds(max((clone / ".snakemake/log").glob("*.log")).read_text())
    total = sum(seconds.values())
    shares = ", ".join(f"{rule} {100 * s / total:.0f}%" for rule, s in sorted(seconds.items(), key=lambda x: -x[1])
                       if s / total >= 0.02)
    print(f"demo pipeline on a fresh clone (installs present): {wall / 60:.1f} min (target ≤ 4 with installs); "
          f"job time by rule: {shares}")


def tmp_project() -> Path:
    """A copy of the workflow without results/, so that the dry run plans every job."""
    target = Path(tempfile.mkdtemp(prefix="lyss-bench-"))
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for name in files:
        if name.startswith("results/") or not (ROOT / name).is_file():
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        (target / name).write_bytes((ROOT / name).read_bytes())
    return target


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tsv", type=Path, default=ROOT / "data/corpora/mqm_ted_ende/raw/mqm_ted_ende.tsv")
    parser.add_argument("--skip-score", action="store_true", help="only the job counts (a few seconds)")
    parser.add_argument("--skip-jobs", action="store_true", help="only the score line")
    parser.add_argument("--warm-only", action="store_true",
                        help="no cold run: the caches under $BENCH_CACHE (a LYSS_CACHE_DIR an earlier run filled)")
    parser.add_argument("--repeats", type=int, default=1, help="warm runs (and sacrebleu runs), best of")
    parser.add_argument("--compare", action="store_true",
                        help="also `lyss compare` defaults on 3 TED systems, cold, against sacrebleu --paired-bs")
    parser.add_argument("--mafand", type=Path, metavar="DIR",
                        help="also line 1 on MAFAND-MT's eng→yor dev files in DIR (dev.eng-yor.eng, .yor)")
    parser.add_argument("--pipeline", action="store_true",
                        help="also `snakemake all --cores 2` on a fresh clone (10-20 minutes on 2 shared cores)")
    args = parser.parse_args()
    subprocess.run(["uptime"])
    if not args.skip_jobs:
        jobs_line()
    if not args.skip_score:
        score_line(args.tsv, args.warm_only, args.repeats)
    if args.mafand:
        mafand_line(args.mafand, args.repeats)
    if args.compare:
        compare_line(args.tsv)
    if args.pipeline:
        pipeline_line()
    subprocess.run(["uptime"])  # the load at both ends: absolute seconds grow with it, ratios much less


if __name__ == "__main__":
    main()

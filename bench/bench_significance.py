"""Bootstrap CIs and paired significance tests: lyss (count matrices × per-entry statistics) against
sacrebleu's `PairedTest` and against naive re-scoring of resampled strings, on the same data in one run.

Two systems of equal expected quality (the demo corpus's Spanish references, cycled and perturbed with
two seeded RNGs) are compared on chrF++ and BLEU at 2,000 and 20,000 segments: 1,000 bootstrap resamples,
10,000 AR trials, seed 12345 (sacrebleu's default), so both libraries draw the very same resamples.
Target: our paired bootstrap ≥ 3× faster than sacrebleu's on 20,000 segments, identical point scores,
p-values agreeing within Monte-Carlo error.

sacrebleu extracts sufficient statistics inside `PairedTest`; lyss reads them from the metric files
that scoring already wrote, so the table shows sacrebleu both in total and without that extraction.
Naive re-scoring is timed on a few resamples and extrapolated (a full run would take hours).

The first line is issue 20's: the two command lines end to end on 20,040 real segments (the WMT21 TED
references and outputs the project ships, data/corpora/mqm_ted_ende, cycled through its 13 systems so that
system 1 and system 2 differ on every line), `lyss compare -m chrf_plus_plus,bleu --n 1000` against
`sacrebleu REF -i SYS1 SYS2 -m chrf bleu --chrf-word-order 2 --paired-bs`, best of `--repeats`, with the
load (`uptime`) printed before and after. Target: lyss ≥ 3× faster.

    .venv/bin/python bench/bench_significance.py [--cli-segments 20040] [--repeats 1] [--sizes 2000 20000] [--naive 3]
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.significance import PairedTest, _bootstrap_resample, estimate_ci

sys.path.insert(0, str(Path(__file__).parent))
from _common import ROOT, scaled  # noqa: E402

from lyss.aggregate.confidence import corpus_statistic  # noqa: E402
from lyss.argtypes import positive_int  # noqa: E402
from lyss.metrics import ScoringInput, get_metric  # noqa: E402
from lyss.significance import compare_pairs  # noqa: E402
from lyss.stats import approximate_randomization, bootstrap_scores, percentile_ci  # noqa: E402

SEED = 12345  # sacrebleu's default SACREBLEU_SEED; PairedTest cannot take another without the env var
RESAMPLES, TRIALS = 1000, 10_000
METRICS = {"chrf_plus_plus": lambda: CHRF(word_order=2), "bleu": BLEU}
SACRE_NAMES = {"chrf_plus_plus": "chrF2++", "bleu": "BLEU"}


def timed(fn, repeat: int = 1):
    """(least wall time of `repeat` calls, the last value); lyss's sub-second steps take the best of 3."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return min(times), value


def data(n: int):
    entries, hyp_a = scaled(n, seed=1)
    _, hyp_b = scaled(n, seed=2)
    return entries, [e["reference"] for e in entries], hyp_a, hyp_b


def our_statistics(entries, hyps):
    scoring = ScoringInput(entries, hyps, hyps, "eng", "spa")
    return {m: corpus_statistic(get_metric(m).score(scoring)) for m in METRICS}


def sacrebleu_paired(test: str, refs, hyp_a, hyp_b):
    metrics = {m: make() for m, make in METRICS.items()}
    _, results = PairedTest([("a", hyp_a), ("b", hyp_b)], metrics, [refs], test_type=test,
                            n_samples=RESAMPLES if test == "bs" else TRIALS)()
    return {m: (results[SACRE_NAMES[m]][0].score, results[SACRE_NAMES[m]][1]) for m in METRICS}


def sacrebleu_extraction(refs, hyp_a, hyp_b):
    for make in METRICS.values():
        metric = make()
        for hyps in (hyp_a, hyp_b):
            metric._extract_corpus_statistics(hyps, [refs])


def naive_paired(refs, hyp_a, hyp_b, n_resamples):
    """What resampling looks like without sufficient statistics: re-score the resampled strings."""
    rng = np.random.default_rng(SEED)
    idx = rng.choice(len(refs), size=(RESAMPLES, len(refs)), replace=True)[:n_resamples]
    scores = {m: [] for m in METRICS}
    for row in idx:
        sub_refs = [[refs[i] for i in row]]
        for m, make in METRICS.items():
            scores[m].append([make().corpus_score([h[i] for i in row], sub_refs).score
                              for h in (hyp_a, hyp_b)])
    return {m: np.array(v) for m, v in scores.items()}


def run_size(n: int, n_naive: int) -> None:
    entries, refs, hyp_a, hyp_b = data(n)
    t_extract_ours, stats = timed(lambda: {"a": our_statistics(entries, hyp_a),
                                           "b": our_statistics(entries, hyp_b)})
    t_extract_sacre, _ = timed(lambda: sacrebleu_extraction(refs, hyp_a, hyp_b))

    # Single-system bootstrap CI (both metrics) — ours vs sacrebleu's own CI routine on the same draws.
    t_ci, ci_samples = timed(lambda: bootstrap_scores(list(stats["a"].values()), RESAMPLES, SEED), 3)
    sacre_ci = {}

    def sacre_cis():
        for m, make in METRICS.items():
            metric = make()
            extracted = metric._extract_corpus_statistics(hyp_a, [refs])
            _, scores = _bootstrap_resample(extracted, metric, RESAMPLES)
            sacre_ci[m] = estimate_ci(np.array([s.score for s in scores]))

    t_ci_sacre, _ = timed(sacre_cis)

    t_bs, rows = timed(lambda: compare_pairs(stats, [("a", "b")], n_bootstrap=RESAMPLES, seed=SEED,
                                             with_ar=False), 3)
    pairs = [(stats["a"][m], stats["b"][m]) for m in METRICS]
    t_ar, p_ar = timed(lambda: approximate_randomization(pairs, TRIALS, SEED), 3)
    t_bs_sacre, sacre_bs = timed(lambda: sacrebleu_paired("bs", refs, hyp_a, hyp_b))
    t_ar_sacre, sacre_ar = timed(lambda: sacrebleu_paired("ar", refs, hyp_a, hyp_b))
    t_naive, naive = timed(lambda: naive_paired(refs, hyp_a, hyp_b, n_naive))
    t_naive_full = t_naive / n_naive * RESAMPLES

    print(f"\n=== {n:,} segments (chrF++ and BLEU, {RESAMPLES} resamples, {TRIALS} AR trials, "
          f"seed {SEED}) ===")
    print(f"statistics extraction (once per system, reused by every test): lyss {t_extract_ours:.2f} s, "
          f"sacrebleu {t_extract_sacre:.2f} s")
    header = f"{'task':<34}{'lyss s':>9}{'sacrebleu s':>13}{'ratio':>8}{'sb w/o extract':>16}{'ratio':>8}"
    print(header)
    print("-" * len(header))
    table = [("bootstrap CI, one system", t_ci, t_ci_sacre, t_extract_sacre / 2),
             ("paired bootstrap", t_bs, t_bs_sacre, t_extract_sacre),
             ("approximate randomization", t_ar, t_ar_sacre, t_extract_sacre)]
    for name, ours, sacre, extraction in table:
        bare = max(sacre - extraction, 1e-9)
        print(f"{name:<34}{ours:>9.3f}{sacre:>13.2f}{sacre / ours:>7.1f}×{bare:>16.2f}{bare / ours:>7.1f}×")
    print(f"{'naive re-scoring, paired bs':<34}{t_bs:>9.3f}{t_naive_full:>13.1f}{t_naive_full / t_bs:>7.0f}×"
          f"   (extrapolated from {n_naive} resamples)")

    print("agreement:")
    for i, m in enumerate(METRICS):
        row = next(r for r in rows if r["metric"] == m)
        sb_base, sb_sys = sacre_bs[m]
        sb_ar = sacre_ar[m][1]
        score_diff = max(abs(row["baseline_score"] - sb_base), abs(row["score"] - sb_sys.score))
        print(f"  {m}: scores lyss {row['baseline_score']:.6f} / {row['score']:.6f}, "
              f"sacrebleu {sb_base:.6f} / {sb_sys.score:.6f} (max |diff| {score_diff:.1e})")
        sd_bs = np.sqrt(row["p_bs"] * (1 - row["p_bs"]) / RESAMPLES)
        sd_ar = np.sqrt(p_ar[i] * (1 - p_ar[i]) / TRIALS)
        print(f"    p (bs) lyss {row['p_bs']:.4f}, sacrebleu {sb_sys.p_value:.4f} (MC sd {sd_bs:.4f}); "
              f"p (ar) lyss {p_ar[i]:.4f}, sacrebleu {sb_ar.p_value:.4f} (MC sd {sd_ar:.4f})")
        lo, hi = percentile_ci(ci_samples[i])
        naive_diff = np.abs(naive[m][:, 0] - ci_samples[i][:n_naive]).max()
        print(f"    95% CI of system a: lyss mean {np.mean(ci_samples[i]):.4f} ± {0.5 * (hi - lo):.4f}, "
              f"sacrebleu {sacre_ci[m][0]:.4f} ± {sacre_ci[m][1]:.4f}; naive re-scoring of the same "
              f"resamples vs lyss: max |diff| {naive_diff:.1e}")


def ted_lines(data: Path, n: int) -> dict[str, list[str]]:
    """ref, sys1, sys2 of n lines: segment i % S of the dataset, system 1 = the (i // S)-th system (mod 13),
    system 2 the next one (the reference where a system lacks the segment)."""
    references = {}
    for line in (data / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        references[entry["id"]] = entry["reference"]
    systems = [{row["id"]: row["prediction"] for row in map(json.loads, path.read_text(encoding="utf-8").splitlines())}
               for path in sorted((data / "systems").glob("*.jsonl"))]
    ids = sorted(references)
    lines = {"ref": [], "sys1": [], "sys2": []}
    for i in range(n):
        segment, cycle = ids[i % len(ids)], i // len(ids)
        lines["ref"].append(references[segment])
        for name, offset in (("sys1", 0), ("sys2", 1)):
            lines[name].append(systems[(cycle + offset) % len(systems)].get(segment, references[segment]))
    return {name: [text.replace("\n", " ") for text in texts] for name, texts in lines.items()}


def cli_line(data: Path, n: int, repeats: int) -> None:
    """Issue 20's line: both command lines, end to end, alternated."""
    bin_dir = Path(sys.executable).parent
    subprocess.run(["uptime"], check=False)
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for name, texts in ted_lines(data, n).items():
            paths[name] = Path(tmp, name)
            paths[name].write_text("\n".join(texts) + "\n", encoding="utf-8")
        lyss = [bin_dir / "lyss", "compare", "-r", paths["ref"], "-i", paths["sys1"], paths["sys2"], "-l", "eng-deu",
                "-m", "chrf_plus_plus,bleu", "--n", str(RESAMPLES), "--seed", str(SEED)]
        # `-f text`: sacrebleu 2.6.0's JSON writer fails on the paired test's NumPy float32 values under NumPy 2
        sacre = [bin_dir / "sacrebleu", paths["ref"], "-i", paths["sys1"], paths["sys2"], "-m", "chrf", "bleu",
                 "--chrf-word-order", "2", "--paired-bs", "--paired-bs-n", str(RESAMPLES), "-f", "text"]
        best = {"lyss": float("inf"), "sacrebleu": float("inf")}
        for _ in range(repeats):
            for name, argv in (("lyss", lyss), ("sacrebleu", sacre)):
                start = time.perf_counter()
                subprocess.run([str(a) for a in argv], check=True, capture_output=True)
                best[name] = min(best[name], time.perf_counter() - start)
    print(f"lyss compare chrF++ + BLEU, {n:,} segments, paired bs {RESAMPLES}: lyss {best['lyss']:.1f} s, "
          f"sacrebleu --paired-bs {best['sacrebleu']:.1f} s: {best['sacrebleu'] / best['lyss']:.2f}x faster "
          "(target >= 3x)")
    subprocess.run(["uptime"], check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[2000, 20_000],
                        help="in-process comparisons (none: only the command-line line)")
    parser.add_argument("--naive", type=positive_int, default=3,
                        help="resamples re-scored naively (then extrapolated; at least 1)")
    parser.add_argument("--cli-segments", type=int, default=20_040, help="segments of the command-line line (0: skip)")
    parser.add_argument("--repeats", type=int, default=1, help="command-line runs of each tool (the best counts)")
    parser.add_argument("--data", type=Path, default=ROOT / "data/corpora/mqm_ted_ende",
                        help="dataset folder of the command-line line (corpus.jsonl, systems/)")
    args = parser.parse_args()
    if args.cli_segments:
        cli_line(args.data, args.cli_segments, args.repeats)
    for n in args.sizes:
        run_size(n, args.naive)


if __name__ == "__main__":
    main()

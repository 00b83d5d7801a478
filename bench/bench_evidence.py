"""The evidence stage's permutation test at segment level: per-item Kendall τ and Pearson r of two metrics'
z-scores with the swap masks applied, as the stage did it before (every swapped grid built and evaluated:
`kendall_tau_b(human, np.where(swap, b, a))`, `weighted_pearson(...)`) and as it does now
(`SegmentLevel.evaluate_swapped`: the exact bilinear shortcut for τ, the closed form for r), side by side in one
process on the shipped TED MQM data (13 systems × 529 items) and two of its metric columns from
`results/metrics/` (run `make run` first). Prints both times, the ratios, whether τ gives the same bytes and how
far r moves (its sums run in another order).

    .venv/bin/python bench/bench_evidence.py [--permutations 1000] [--repeats 3]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import ROOT  # noqa: E402

from lyss.evidence.correlate import CorrelationOptions, SegmentLevel  # noqa: E402
from lyss.evidence.dataset import join_human_scores  # noqa: E402
from lyss.stats import swap_mask_matrix  # noqa: E402
from lyss.stats.correlation import kendall_tau_b, nan_weighted_mean, weighted_pearson  # noqa: E402

TED = ROOT / "data/corpora/mqm_ted_ende"
PAIR = ("chrf_plus_plus", "semantic_score")


def zscore(values: np.ndarray) -> np.ndarray:
    return (values - values.mean()) / values.std()


def best_of(repeats: int, work) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    methods = sorted(p.stem for p in (TED / "systems").glob("*.jsonl"))
    paths = [ROOT / f"results/metrics/mqm_ted_ende/{m}/{metric}.parquet" for m in methods for metric in PAIR]
    data, columns, _ = join_human_scores(TED / "human_scores.csv", paths)
    data.metrics = {m: columns[m] for m in PAIR}
    level = SegmentLevel(data, CorrelationOptions(group_by_item=True, statistics=("kendall", "pearson")))
    a, b = (zscore(columns[m]) for m in PAIR)
    swap = swap_mask_matrix(len(a), args.permutations, [12345, 0])

    def before_work() -> dict:
        swapped = np.where(swap, b, a)[:, level.grid]
        return {"kendall": nan_weighted_mean(kendall_tau_b(level.human, swapped)),
                "pearson": nan_weighted_mean(weighted_pearson(level.human, swapped))}

    before_s, before = best_of(args.repeats, before_work)
    after_s, after = best_of(args.repeats, lambda: level.evaluate_swapped(a, b, swap))
    print(f"{level.grid.shape[0]} items × {level.grid.shape[1]} systems × {args.permutations} masks, "
          f"Kendall and Pearson, best of {args.repeats}:")
    print(f"  every swapped grid (before): {before_s:.2f} s")
    print(f"  shortcuts (now):             {after_s:.2f} s")
    print(f"  ratio: {before_s / after_s:.1f}× faster; Kendall same bytes: "
          f"{before['kendall'].tobytes() == after['kendall'].tobytes()}; Pearson largest difference: "
          f"{np.nanmax(np.abs(before['pearson'] - after['pearson'])):.1e}")

if __name__ == "__main__":
    main()

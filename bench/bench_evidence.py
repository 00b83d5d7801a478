"""The evidence stage's permutation test at segment level: per-item Kendall τ of two metrics' z-scores with the
swap masks applied, as the stage did it before (the signs of every pair of every swapped grid,
`kendall_tau_b(human, np.where(swap, b, a))`) and as it does now (`SegmentLevel.evaluate_swapped`, the exact
bilinear shortcut), side by side in one process on the shipped TED MQM data (13 systems × 529 items) and two of
its metric columns from `results/metrics/` (run `make run` first). Prints both times, the ratio, and whether
the two give the same bytes.

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
from lyss.stats.correlation import kendall_tau_b, nan_weighted_mean  # noqa: E402

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
    level = SegmentLevel(data, CorrelationOptions(group_by_item=True, statistics=("kendall",)))
    a, b = (zscore(columns[m]) for m in PAIR)
    swap = swap_mask_matrix(len(a), args.permutations, [12345, 0])
    before_s, before = best_of(args.repeats, lambda: nan_weighted_mean(
        kendall_tau_b(level.human, np.where(swap, b, a)[:, level.grid])))
    after_s, after = best_of(args.repeats, lambda: level.evaluate_swapped(a, b, swap)["kendall"])
    print(f"{level.grid.shape[0]} items × {level.grid.shape[1]} systems × {args.permutations} masks, "
          f"best of {args.repeats}:")
    print(f"  all pair signs (before): {before_s:.2f} s")
    print(f"  bilinear shortcut (now): {after_s:.2f} s")
    print(f"  ratio: {before_s / after_s:.1f}× faster; same bytes: {before.tobytes() == after.tobytes()}")


if __name__ == "__main__":
    main()

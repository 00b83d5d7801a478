"""`lyss correlate` at WMT scale: real MQM judgments, side by side with a plain numpy/scipy loop.

Rows: the 13 WMT21 systems × 529 TED segments of data/corpora/mqm_ted_ende (6,877 rows), human = the
published MQM score, two metrics = sentence chrF++ and sentence BLEU (sacrebleu) against the reference.
Both contenders compute, for each metric, Pearson, Spearman, Kendall τ-b and pairwise accuracy at the
segment level (one flat list, rows resampled by segment) and the system level, over the same 1,000
bootstrap resamples (lyss.stats.count_matrix, seed 1), plus the paired permutation test between the two
metrics (1,000 swap masks at both levels). The baseline loops over resamples and permutations calling
scipy (pearsonr, spearmanr, kendalltau) and numpy; `lyss correlate` runs in-process and also writes its
CSVs. Target (issue 20): lyss ≤ 2× the baseline. Timings are printed, never asserted; `uptime` is printed
before and after, since both sides slow down alike on a shared machine but the absolute seconds do not.

    .venv/bin/python bench/bench_correlate.py [--data DATASET_DIR] [--resamples 1000] [--permutations 1000]

`--data` takes another dataset folder of the same convention (corpus.jsonl, systems/, human_scores.csv).
"""

import argparse
import csv
import json
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from sacrebleu.metrics import BLEU, CHRF
from scipy.stats import kendalltau, pearsonr, spearmanr

from lyss.cli import main
from lyss.stats import count_matrix, swap_mask_matrix

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data/corpora/mqm_ted_ende"
SEED = 1


def build_rows(data: Path = DATA) -> dict[str, np.ndarray]:
    """system, item, human, chrf, bleu per (system, segment) from the dataset's derived files."""
    references = {}
    with (data / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            entry = json.loads(line)
            references[entry["id"]] = entry["reference"]
    outputs = {}
    for path in sorted((data / "systems").glob("*.jsonl")):
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                obj = json.loads(line)
                outputs[(path.stem, obj["id"])] = obj["prediction"]
    chrf, bleu = CHRF(word_order=2), BLEU(effective_order=True)
    rows = {"system": [], "item": [], "human": [], "chrf": [], "bleu": []}
    with (data / "human_scores.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            hypothesis, reference = outputs[(row["method"], row["id"])], [references[row["id"]]]
            rows["system"].append(row["method"])
            rows["item"].append(row["id"])
            rows["human"].append(float(row["human"]))
            rows["chrf"].append(chrf.sentence_score(hypothesis, reference).score)
            rows["bleu"].append(bleu.sentence_score(hypothesis, reference).score)
    return {k: np.asarray(v) for k, v in rows.items()}


def _tied_pairs(*columns) -> int:
    _, counts = np.unique(np.column_stack(columns), axis=0, return_counts=True)
    return int((counts * (counts - 1) // 2).sum())


def plain_statistics(human, metric) -> tuple[float, float, float, float]:
    """Pearson, Spearman, Kendall τ-b (scipy) and pairwise accuracy (concordant + tied-in-both pairs
    over all pairs, from scipy's τ and numpy tie counts)."""
    n0 = len(human) * (len(human) - 1) // 2
    n1, n2, n3 = _tied_pairs(human), _tied_pairs(metric), _tied_pairs(human, metric)
    tau = kendalltau(human, metric).statistic
    concordant = ((n0 - n1 - n2 + n3) + tau * np.sqrt(float(n0 - n1) * float(n0 - n2))) / 2
    return pearsonr(human, metric)[0], spearmanr(human, metric)[0], tau, (concordant + n3) / n0


def system_means(values, systems_index, n_systems, index):
    counts = np.bincount(systems_index[index], minlength=n_systems)
    return np.bincount(systems_index[index], weights=values[index], minlength=n_systems) / counts


def baseline(rows, resamples: int, permutations: int) -> None:
    _, item_index = np.unique(rows["item"], return_inverse=True)
    _, system_index = np.unique(rows["system"], return_inverse=True)
    n_items, n_systems = item_index.max() + 1, system_index.max() + 1
    rows_of_item = [np.flatnonzero(item_index == k) for k in range(n_items)]
    counts = count_matrix(n_items, resamples, SEED)
    human = rows["human"]
    for b in range(resamples):
        index = np.concatenate([np.repeat(rows_of_item[k], c) for k, c in enumerate(counts[b]) if c])
        for name in ("chrf", "bleu"):
            plain_statistics(human[index], rows[name][index])
            plain_statistics(system_means(human, system_index, n_systems, index),
                             system_means(rows[name], system_index, n_systems, index))
    za = (rows["chrf"] - rows["chrf"].mean()) / rows["chrf"].std()
    zb = (rows["bleu"] - rows["bleu"].mean()) / rows["bleu"].std()
    everything = np.arange(len(human))
    for swap in swap_mask_matrix(len(human), permutations, [SEED, 0]):
        for values in (np.where(swap, zb, za), np.where(swap, za, zb)):
            plain_statistics(human, values)
            plain_statistics(system_means(human, system_index, n_systems, everything),
                             system_means(values, system_index, n_systems, everything))


def run_lyss(rows, resamples: int, permutations: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        scores = Path(tmp) / "scores.csv"
        with scores.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["system", "item", "human", "chrf", "bleu"])
            # repr of a Python float: the shortest text that reads back to the same number (NumPy 2's own repr
            # writes "np.float64(-1.0)", which is no number)
            exact = {k: [repr(float(v)) for v in rows[k]] for k in ("human", "chrf", "bleu")}
            writer.writerows(zip(rows["system"], rows["item"], exact["human"], exact["chrf"], exact["bleu"],
                                 strict=True))
        status = main(["correlate", str(scores), "--human", "human", "--metrics", "chrf,bleu", "--system", "system",
                       "--item", "item", "--resamples", str(resamples), "--permutations", str(permutations),
                       "--seed", str(SEED), "--out", str(Path(tmp) / "out")])
        assert status == 0


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--data", type=Path, default=DATA, help="dataset folder (default: the shipped TED MQM)")
    args = parser.parse_args()
    rows = build_rows(args.data)
    subprocess.run(["uptime"], check=False)
    print(f"{len(rows['human'])} rows, {len(set(rows['system']))} systems, {len(set(rows['item']))} segments")
    started = time.perf_counter()
    run_lyss(rows, args.resamples, args.permutations)
    lyss_seconds = time.perf_counter() - started
    started = time.perf_counter()
    baseline(rows, args.resamples, args.permutations)
    plain_seconds = time.perf_counter() - started
    print(f"lyss correlate: {lyss_seconds:.1f} s   plain numpy/scipy loop: {plain_seconds:.1f} s   "
          f"ratio {lyss_seconds / plain_seconds:.2f}x (target <= 2x)")
    subprocess.run(["uptime"], check=False)


if __name__ == "__main__":
    main_bench()

"""Aggregation's caveats at 10,000 and 100,000 entries, side by side: `score_caveats` with every caveat,
misaligned_output included (its vectors cached in an `Embeddings` table, as rule aggregate reads them from
rule embed's files), on synthetic entries and seeded random 384-dimensional vectors. Prints seconds and
the 100k/10k ratio; target ≤ 12× (the all-pairs check it replaces grows 100×). Memory is bounded by design:
the sampled outputs × one block of sources (caveats.RETRIEVAL_BLOCK_CELLS), plus the vectors themselves.

    .venv/bin/python bench/bench_caveat_scale.py [--sizes 10000 100000]
"""

import argparse
import time

import numpy as np
import yaml
from _common import ROOT

from lyss.aggregate.caveats import score_caveats
from lyss.embed.embedders import Embeddings

DIM = 384


def corpus(n: int, rng: np.random.Generator):
    entries = [{"id": str(i), "source": f"source sentence {i}", "reference": f"frase de referencia {i}"}
               for i in range(n)]
    outputs = [f"frase traducida {i}" for i in range(n)]
    sources = rng.normal(size=(n, DIM)).astype(np.float32)
    table = Embeddings("cached", known={})
    table.add([e["source"] for e in entries], sources)
    table.add([e["reference"] for e in entries], sources + 0.3 * rng.normal(size=(n, DIM)).astype(np.float32))
    table.add(outputs, sources + 0.5 * rng.normal(size=(n, DIM)).astype(np.float32))
    return entries, outputs, table


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs=2, default=[10_000, 100_000])
    args = parser.parse_args()
    settings = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))["caveats"]
    seconds = {}
    for n in args.sizes:
        entries, outputs, table = corpus(n, np.random.default_rng(n))
        start = time.perf_counter()
        score_caveats(entries, outputs, settings, table)
        seconds[n] = time.perf_counter() - start
        print(f"{n:>7} entries: {seconds[n]:7.2f} s")
    small, large = args.sizes
    print(f"ratio {large // small}× entries: time {seconds[large] / seconds[small]:.1f}× (target ≤ 12)")


if __name__ == "__main__":
    main()

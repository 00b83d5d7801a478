"""The int8 embedder's smoothing exponents: which input channels of each product to scale down, and by how much.

A few channels of a LayerNorm's output carry most of its magnitude; quantised per token as they are, they
would leave the other channels a handful of int8 levels. SmoothQuant (Xiao et al., ICML 2023) divides input
channel j by s_j and multiplies the weights' row j by it, with s_j = max|x_j|^α / max|w_j|^(1−α), α = 0.5;
here s_j is rounded to a power of two, 2^e_j, so the rescaling is exact and a machine whose float sums differ
in the last bits computes the same exponents.

The exponents are measured once, on the float32 graph of the same weights, over the demo corpus's sources and
references (written for the project, English and Spanish; `python -m lyss.embed.e5_smoothing`), and shipped
beside this module: the outlier channels belong to the model, not to a language, and the int8 vectors agree
with the float32 ones to cosine ≥ 0.999 on German, Amharic, Hausa, Swahili, Yoruba, Zulu, Gujarati and Marathi
too (docs/performance.md). tests/test_embedders.py recomputes them and compares.
"""

import json
import sys
from importlib import resources
from pathlib import Path

import numpy as np

FILE = resources.files("lyss.embed").joinpath("e5-small-smoothing.npz")
ALPHA = 0.5  # SmoothQuant's migration strength: half of the activations' range moves into the weights
CALIBRATION_CORPUS = "data/corpora/demo_eng_spa/corpus.jsonl"


def load_exponents() -> dict[str, np.ndarray]:
    """Group (`l<i>.qkv`, `l<i>.fi`: the products of a LayerNorm's output) → int8 exponent per input
    channel, as shipped."""
    with FILE.open("rb") as handle, np.load(handle) as stored:
        return {name: stored[name] for name in stored.files}


def calibrate(texts: list[str]) -> dict[str, np.ndarray]:
    """The exponents measured on `texts`: each product's largest |input| per channel over their tokens."""
    from lyss.embed.e5_onnx import SMOOTHED, OnnxE5, dense, tap

    model = OnnxE5(precision="float32")
    groups = [f"l{i}.{kind}" for i in range(model.weights.layers) for kind in SMOOTHED]
    peaks: dict[str, np.ndarray] = {}
    for text in texts:
        for window in model.windows(text):
            values = model.session.run([tap(group) for group in groups], model.inputs([window]))
            for group, value in zip(groups, values, strict=True):
                peak = np.abs(value.reshape(-1, value.shape[-1])[: len(window)]).max(axis=0)
                peaks[group] = np.maximum(peaks.get(group, peak), peak)
    exponents = {}
    for group in groups:  # log2 s_j in float64: the same exponents whichever NumPy rounds float32 logs
        rows = np.abs(dense(model.weights, group)[0]).max(axis=1).astype(np.float64)
        peak = peaks[group].astype(np.float64)
        log2_smoothing = ALPHA * np.log2(np.maximum(peak, 1e-5)) - (1 - ALPHA) * np.log2(np.maximum(rows, 1e-5))
        exponents[group] = np.clip(np.rint(log2_smoothing), -30, 30).astype(np.int8)
    return exponents


def calibration_texts(corpus: Path) -> list[str]:
    """Every source and reference of a corpus.jsonl, in file order."""
    texts = []
    with corpus.open(encoding="utf-8") as handle:
        for line in handle:
            entry = json.loads(line)
            texts += [entry["source"], entry["reference"]]
    return texts


def main(argv: list[str] | None = None) -> int:
    """Measure the exponents on the demo corpus (or the corpus.jsonl given) and write them beside this module."""
    args = sys.argv[1:] if argv is None else argv
    corpus = Path(args[0] if args else CALIBRATION_CORPUS)
    exponents = calibrate(calibration_texts(corpus))
    with FILE.open("wb") as handle:
        np.savez_compressed(handle, **exponents)
    moved = sum(int((e != 0).sum()) for e in exponents.values())
    print(f"{FILE}: {len(exponents)} products, {moved} of {sum(e.size for e in exponents.values())} channels "
          f"rescaled, from {corpus}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

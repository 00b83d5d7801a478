"""Measuring the int8 embedder's smoothing exponents (`lyss.embed.e5_smoothing` says what they are and reads
them): each product's largest |input| per channel on the float32 graph of the same weights, over the demo
corpus's sources and references, rounded to powers of two, and written beside `lyss.embed.e5_smoothing`.

    python -m lyss.embed.e5_calibration [corpus.jsonl]
"""

import json
import sys
from pathlib import Path

import numpy as np

from lyss.embed.e5_onnx import SMOOTHED, OnnxE5, dense, tap
from lyss.embed.e5_smoothing import FILE

ALPHA = 0.5  # SmoothQuant's migration strength: half of the activations' range moves into the weights
CALIBRATION_CORPUS = "data/corpora/demo_eng_spa/corpus.jsonl"


def calibrate(texts: list[str]) -> dict[str, np.ndarray]:
    """The exponents measured on `texts`: each product's largest |input| per channel over their tokens."""
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

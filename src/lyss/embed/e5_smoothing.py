"""The int8 embedder's smoothing exponents: which input channels of each product to scale down, and by how much.

A few channels of a LayerNorm's output carry most of its magnitude; quantised per token as they are, they
would leave the other channels a handful of int8 levels. SmoothQuant (Xiao et al., ICML 2023) divides input
channel j by s_j and multiplies the weights' row j by it, with s_j = max|x_j|^α / max|w_j|^(1−α), α = 0.5;
here s_j is rounded to a power of two, 2^e_j, so the rescaling is exact and a machine whose float sums differ
in the last bits computes the same exponents.

The exponents are measured once, on the float32 graph of the same weights, over the demo corpus's sources and
references (written for the project, English and Spanish; `python -m lyss.embed.e5_calibration`), and shipped
beside this module: the outlier channels belong to the model, not to a language, and the int8 vectors agree
with the float32 ones to cosine ≥ 0.999 on German, Amharic, Hausa, Swahili, Yoruba, Zulu, Gujarati and Marathi
too (docs/performance.md). tests/test_embedders.py recomputes them and compares. This module only reads them:
the measuring needs the embedder's float32 graph (`lyss.embed.e5_onnx`), which reads them, so it lives apart
(`lyss.embed.e5_calibration`) and imports run one way.
"""

from importlib import resources

import numpy as np

FILE = resources.files("lyss.embed").joinpath("e5-small-smoothing.npz")


def load_exponents() -> dict[str, np.ndarray]:
    """Group (`l<i>.qkv`, `l<i>.fi`: the products of a LayerNorm's output) → int8 exponent per input
    channel, as shipped."""
    with FILE.open("rb") as handle, np.load(handle) as stored:
        return {name: stored[name] for name in stored.files}

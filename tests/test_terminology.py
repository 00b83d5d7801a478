"""terminology_adherence and consistency_score, with lemma matching through Apertium's Spanish analyzer
and without an analyzer. Golden values are counted by hand in the comments."""

import numpy as np
import pytest

from lyss.languages import load_card
from lyss.metrics import ScoringInput
from lyss.metrics.terminology import ConsistencyScore, TerminologyAdherence

FILE = {"source": "file", "target": "archivo"}
ACCOUNT = {"source": "account", "target": "cuenta"}


@pytest.fixture(scope="module")
def spa():
    return load_card("data/languages/spa.yaml")


def scoring(rows, card):
    """rows: (prediction, glossary)."""
    entries = [{"id": f"e{i}", "source": "s", "reference": "r", "glossary": g}
               for i, (_, g) in enumerate(rows)]
    predictions = [p for p, _ in rows]
    return ScoringInput(entries, predictions, predictions, "eng", "spa", target_card=card)


ADHERENCE_ROWS = [
    ("Abre el archivo.", [FILE]),                                                     # surface → 1/1
    ("Los archivos y la Contraseña.", [FILE, {"source": "password", "target": "contraseña"}]),
    ("nuestras políticas de privacidad", [{"source": "privacy policy", "target": "política de privacidad"}]),
    ("Abre el fichero.", [FILE]),                                                     # other word → 0/1
    ("Hola.", []),                                                                    # no glossary → NaN
    (None, [ACCOUNT]),                                                                # no output → 0/1
]


def test_adherence_with_lemmas_golden(spa):
    result = TerminologyAdherence().score(scoring(ADHERENCE_ROWS, spa))
    # e0 1/1 (archivo).  e1 2/2: "archivos" has the lemma archivo, "Contraseña" is contraseña case-folded.
    # e2 1/1: políticas·de·privacidad share lemmas with política·de·privacidad.  e3 0/1.  e4 NaN.  e5 0/1.
    # corpus = (1 + 2 + 1 + 0 + 0) / (1 + 2 + 1 + 1 + 1) = 4 / 6
    assert result.corpus_value == pytest.approx(4 / 6)
    assert result.values[[0, 1, 2, 3, 5]] == pytest.approx([1, 1, 1, 0, 0])
    assert np.isnan(result.values[4])
    assert result.details["terms_by_match"] == {"surface": 2, "lemma": 2, "missing": 2}
    assert result.stats.tolist() == [[1, 1], [2, 2], [1, 1], [0, 1], [0, 0], [0, 1]]


def test_adherence_without_analyzer_matches_surface_forms_only():
    card = {"code": "spa", "name": "Spanish", "scripts": ["Latn"]}
    result = TerminologyAdherence().score(scoring(ADHERENCE_ROWS, card))
    # only e0 "archivo" and e1 "Contraseña" match as written: 2 / 6
    assert result.corpus_value == pytest.approx(2 / 6)
    assert result.details["matching"].startswith("surface forms only")


def test_no_glossary_is_unavailable(spa):
    for metric in (TerminologyAdherence(), ConsistencyScore()):
        result = metric.score(scoring([("Hola", []), ("Adiós", [])], spa))
        assert result.corpus_value is None and result.reason == "no corpus entry has glossary terms"


CONSISTENCY_ROWS = [
    ("Abre el archivo.", [FILE]),
    ("Borra el archivo.", [FILE]),
    ("Guarda el fichero.", [FILE]),
    ("Tu cuenta.", [ACCOUNT]),
    ("Su perfil.", [ACCOUNT]),
    ("El perro come.", []),
    ("El gato duerme.", []),
    ("El niño lee.", []),
]


def test_consistency_golden(spa):
    result = ConsistencyScore().score(scoring(CONSISTENCY_ROWS, spa))
    # "file" occurs in e0–e2: archivo (glossary) is in e0 and e1 → 2.  Lemmas in ≥ 2 of those predictions:
    # el (3, but also in 3 predictions without the term: not more → not a rendering), archivo/archivar (2,
    # in none outside). The most frequent rendering is archivo: 2 of 3.
    # "account" occurs in e3, e4: cuenta in e3 only; no lemma is in both → 1 of 2.
    # corpus = (2 + 1) / (3 + 2) = 0.6
    assert result.corpus_value == pytest.approx(0.6)
    assert np.isnan(result.values).all()
    terms = result.details["terms"]
    assert terms["file"]["most_frequent_rendering"] == "archivo" and terms["file"]["rendered_so"] == 2
    assert "el" not in terms["file"]["renderings"]
    assert terms["account"]["rendered_so"] == 1


def test_consistent_non_glossary_rendering_counts_as_consistent(spa):
    rows = [("Abre el fichero.", [FILE]), ("Borra el fichero.", [FILE]), ("El perro come.", []),
            ("El gato duerme.", [])]
    result = ConsistencyScore().score(scoring(rows, spa))
    # fichero is in both predictions of "file" and in none of the others → rendered the same way: 2 / 2
    assert result.corpus_value == 1.0
    assert result.details["terms"]["file"]["most_frequent_rendering"] == "fichero"


def test_consistency_needs_a_recurring_term(spa):
    result = ConsistencyScore().score(scoring([("Abre el archivo.", [FILE]), ("Tu cuenta.", [ACCOUNT])], spa))
    assert result.corpus_value is None and "two or more entries" in result.reason

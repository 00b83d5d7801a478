"""Generic equivalent_match_rate: exact, listed variants, light normalisation; verdict columns."""

import pytest

from lyss.metrics import ScoringInput
from lyss.metrics.equivalence import EquivalentMatch, light_normalise

SPA = {"code": "spa", "name": "Spanish", "scripts": ["Latn"]}


def scoring(rows, card=SPA):
    """rows: (prediction, reference, variants)."""
    entries = [{"id": f"e{i}", "source": "s", "reference": r, "variants": v}
               for i, (_, r, v) in enumerate(rows)]
    predictions = [p for p, _, _ in rows]
    return ScoringInput(entries, predictions, predictions, "eng", card["code"], target_card=card)


def test_verdicts_and_classes_golden():
    ref, variants = "Me duele la cabeza.", ["Tengo dolor de cabeza."]
    result = EquivalentMatch().score(scoring([
        ("Me  duele la cabeza.", ref, variants),         # EXACT (whitespace collapsed)
        ("Tengo dolor de cabeza.", ref, variants),       # EQUIVALENT via listed_variant
        ("me duele la cabeza .", ref, variants),         # EQUIVALENT via normalisation (case, space before .)
        ("«Hola», dijo.", '"Hola", dijo.', []),          # EQUIVALENT via normalisation (quotes)
        ("tengo DOLOR de cabeza.", ref, variants),       # EQUIVALENT via normalisation against a variant
        ("Me duele la espalda.", ref, variants),         # MISS
        (None, ref, variants),                           # NO_OUTPUT
        ("   ", ref, variants),                          # NO_OUTPUT (blank)
    ]))
    assert result.columns["verdict"] == ["EXACT", "EQUIVALENT", "EQUIVALENT", "EQUIVALENT", "EQUIVALENT",
                                         "MISS", "NO_OUTPUT", "NO_OUTPUT"]
    assert result.columns["variant_class"] == ["exact", "listed_variant", "normalisation", "normalisation",
                                               "normalisation", "", "", ""]
    # 5 of 8 entries match → 0.625
    assert result.corpus_value == pytest.approx(0.625)
    assert result.values.tolist() == [1, 1, 1, 1, 1, 0, 0, 0]
    assert result.counts == {"equivalent_matches": 5}
    assert result.details["verdicts"] == {"EXACT": 1, "EQUIVALENT": 4, "MISS": 1, "NO_OUTPUT": 2}


def test_generic_metric_needs_variants_somewhere():
    result = EquivalentMatch().score(scoring([("Hola", "Hola", []), ("Adiós", "Hasta luego", [])]))
    assert result.corpus_value is None and "variants[]" in result.reason


def test_light_normalisation_keeps_words_and_punctuation():
    assert light_normalise("  ¡Hola ,  “Mundo” !") == light_normalise('¡hola, "mundo"!') == '¡hola,"mundo"!'
    assert light_normalise("Hola.") != light_normalise("Hola")


def test_caseless_script_prediction_is_compared_as_written():
    card = {"code": "amh", "name": "Amharic", "scripts": ["Ethi"], "caseless": True}
    result = EquivalentMatch().score(scoring([("ሰላም ነው።", "ሰላም ነው ።", ["ሰላም"]), ("ሰላም", "ደህና", [])], card))
    # e0: equal once the space before the Ethiopic full stop is gone → normalisation; e1 MISS → 1/2
    assert result.columns["verdict"] == ["EQUIVALENT", "MISS"]
    assert result.corpus_value == 0.5

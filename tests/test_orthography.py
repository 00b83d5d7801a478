"""orthographic_accuracy: the SRO rule set of Plains Cree (packaged data) and inline card rules.
Golden values are counted by hand in the comments."""

import numpy as np
import pytest

from lyss.languages import card_for, load_card
from lyss.metrics import ScoringInput
from lyss.metrics.orthography import OrthographicAccuracy, load_ruleset


def scoring(predictions, card):
    entries = [{"id": f"e{i}", "source": "s", "reference": "r"} for i in range(len(predictions))]
    return ScoringInput(entries, predictions, predictions, "eng", card["code"], target_card=card)


@pytest.fixture(scope="module")
def crk():
    return load_card("data/languages/crk.yaml")


def test_sro_golden(crk):
    result = OrthographicAccuracy().score(scoring([
        "ê-nipât Atim.",          # 2/2: SRO letters only (case folded), hyphenated preverb
        "nipaaw atim",            # 1/2: doubled vowel is not SRO
        "nipâw mīcisow",          # 1/2: circumflex 1 word, macron 1 → tie, circumflex (listed first) wins
        "nipāw mīcisow ôma",      # 2/3: macron 2 words, circumflex 1 → ôma is the odd one out
        "nipew",                  # 0/1: plain e is not an SRO letter
        "atim 42 !",              # 1/1: the number and the punctuation are not words
        None,                     # no words → NaN
    ], crk))
    # corpus = (2 + 1 + 1 + 2 + 0 + 1) / (2 + 2 + 2 + 3 + 1 + 1) = 7 / 11
    assert result.values[:6] == pytest.approx([1.0, 0.5, 0.5, 2 / 3, 0.0, 1.0])
    assert np.isnan(result.values[6])
    assert result.corpus_value == pytest.approx(7 / 11)
    assert result.details["ruleset"] == "Plains Cree Standard Roman Orthography (SRO)"
    # kinds of problems: doubled vowel 1, mixed conventions 2 (mīcisow, ôma), letters outside (nipew) 1
    assert result.details["problems"] == {
        "doubled vowel": 1, "letters outside the alphabet": 1,
        "mixed long_vowels conventions in one entry (entry mostly uses circumflex)": 1,
        "mixed long_vowels conventions in one entry (entry mostly uses macron)": 1}


def test_inline_rules_of_the_spanish_card():
    spa = load_card("data/languages/spa.yaml")
    result = OrthographicAccuracy().score(scoring(["El niño y el pingüino", "contraseÃ±a ça"], spa))
    # e0: 5 words, all Spanish letters → 5/5.  e1: "±" is a symbol, so the mojibake splits into the words
    # "contraseÃ" and "a", then "ça": "Ã" and "ç" are not Spanish letters, "a" is → 1/3.
    # corpus = (5 + 1) / (5 + 3) = 0.75
    assert result.values == pytest.approx([1.0, 1 / 3])
    assert result.corpus_value == pytest.approx(0.75)


def test_card_file_without_rule_set_says_so_naming_the_file():
    eng = load_card("data/languages/eng.yaml")
    result = OrthographicAccuracy().score(scoring(["hello"], eng))
    assert result.corpus_value is None
    assert result.reason == "language card data/languages/eng.yaml declares no orthography rule set"


def test_language_without_card_file_says_the_card_is_derived_not_that_it_lacks_rules(tmp_path):
    deu = card_for("deu", tmp_path)
    result = OrthographicAccuracy().score(scoring(["Hallo Welt"], deu))
    assert result.reason == (f"language 'deu' has no card file ({tmp_path / 'deu.yaml'}); its card is derived "
                             "from CLDR, which has no orthography rule set")


def test_language_unknown_to_cldr_says_so(tmp_path):
    result = OrthographicAccuracy().score(scoring(["abc"], card_for("qaa", tmp_path)))
    assert result.reason == (f"language 'qaa' has no card file ({tmp_path / 'qaa.yaml'}) and CLDR does not "
                             "know it; no orthography rule set")


def test_punctuation_only_and_empty_predictions_are_unavailable(crk):
    result = OrthographicAccuracy().score(scoring(["...", "", None], crk))
    assert result.corpus_value is None and "no prediction contains a word" in result.reason


def test_caseless_script_words_are_checked_as_written():
    card = {"code": "xsy", "name": "Syllabics test", "scripts": ["Cans"], "caseless": True,
            "orthography": {"letters": "ᓂᐹᐤᐊᑎᒼ"}}
    result = OrthographicAccuracy().score(scoring(["ᓂᐹᐤ ᐊᑎᒼ ᓀ"], card))
    assert result.corpus_value == pytest.approx(2 / 3)  # ᓀ is not in this (toy) inventory


def test_packaged_rule_set_is_loaded_by_name(crk):
    rules = load_ruleset(crk)
    assert set(rules["conventions"]["long_vowels"]) == {"circumflex", "macron"}

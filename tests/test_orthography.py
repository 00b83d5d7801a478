"""orthographic_accuracy: the SRO rule set of Plains Cree (packaged data), inline card rules, the corpus
spelling check and CLDR exemplars. Golden values are counted by hand in the comments."""

import unicodedata
from pathlib import Path

import numpy as np
import pytest

from lyss.languages import card_for, load_card
from lyss.metrics import ScoringInput
from lyss.metrics.orthography import OrthographicAccuracy, load_ruleset
from lyss.text import words


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


def test_every_language_is_checked_and_the_details_say_how(tmp_path):
    eng = OrthographicAccuracy().score(scoring(["hello"], load_card("data/languages/eng.yaml")))
    assert eng.corpus_value == 1.0
    assert eng.details["checks"] == {"corpus_spelling": "1 reference word forms",
                                     "cldr_exemplars": "CLDR en: standard + auxiliary exemplar characters",
                                     "word_boundaries": "missing space, space inside a word"}
    # a language CLDR does not know: the corpus spelling check alone
    unknown = OrthographicAccuracy().score(scoring(["abc"], card_for("qaa", tmp_path)))
    assert unknown.corpus_value == 1.0 and unknown.details["checks"]["cldr_exemplars"] is None


def checked(predictions, references, sources=None, card=None):
    """Scores predictions against their own references (the corpus spelling); Yoruba unless a card is given."""
    sources = sources or ["s"] * len(predictions)
    entries = [{"id": f"e{i}", "source": s, "reference": r}
               for i, (s, r) in enumerate(zip(sources, references, strict=True))]
    card = card or card_for("yor")
    return OrthographicAccuracy().score(ScoringInput(entries, predictions, predictions, "eng", card["code"],
                                                     source_card=card_for("eng"), target_card=card))


def test_words_matching_a_corpus_word_only_without_diacritics_are_misspelt(tmp_path):
    references = ["Ọ̀yọ́ ni ilú", "ṣùgbọ́n ó dára", "ti tí"]
    result = checked(["Oyo ni ilu", "sugbon o dára", "ti ọkọ̀"], references, card=card_for("qaa", tmp_path))
    # e0: "Oyo" folds to Ọ̀yọ́, "ilu" to ilú; "ni" is a reference word → 1/3
    # e1: "sugbon" folds to ṣùgbọ́n, "o" to ó; "dára" as written → 1/3
    # e2: "ti" is itself a reference word (beside tí) → right; "ọkọ̀" matches nothing, so it is not judged → 2/2
    # corpus = (1 + 1 + 2) / (3 + 3 + 2) = 1/2
    assert result.values == pytest.approx([1 / 3, 1 / 3, 1.0])
    assert result.corpus_value == pytest.approx(0.5)
    assert result.details["problems"] == {"diacritics differ from the corpus spelling": 4}
    assert ["Oyo", 1] in result.details["most_frequent_misspelt"]


def test_letters_outside_the_cldr_exemplars_unless_a_source_name_or_in_the_references():
    # CLDR yo: standard letters with their tone marks and underdots, auxiliary c q v x z; no tilde, cedilla, ø
    sources = ["Mr Müller went to Zürich", "He came back", "Bjørk sang"]
    references = ["Ọ̀gbẹ́ni Müller lọ sí Zürich", "Ó padà wá", "Bjørk kọrin"]
    result = checked(["Ọ̀gbẹ́ni Müller lọ sí Zürich",   # the reference itself: 5/5
                     "Ó padà wá ãbá çe Müller",        # ãbá (tilde) and çe (cedilla) outside; Müller is a
                                                       # reference word (of e0) → 4/6
                     "Bjørk kọrin Grøn"],              # Bjørk in the source; Grøn nowhere → 2/3
                    references, sources)
    # corpus = (5 + 4 + 2) / (5 + 6 + 3) = 11/14
    assert result.values == pytest.approx([1.0, 4 / 6, 2 / 3])
    assert result.corpus_value == pytest.approx(11 / 14)
    assert result.details["problems"] == {"letters outside the CLDR exemplar characters": 3}


def test_a_copied_source_sentence_is_not_amharic_but_its_names_may_stay_as_written():
    # CLDR am: Ethiopic letters only, so every Latin word is outside unless it is a name, acronym or code of
    # the source (capitalised mid-sentence in English); "12" has no letter and is no word
    sources = ["The minister met Obama in Nairobi today", "Prices rose by 12% in March"]
    references = ["ሚኒስትሩ ዛሬ ናይሮቢ ውስጥ ኦባማን አገኙ", "ዋጋዎች በመጋቢት 12% ጨምረዋል"]
    amharic = card_for("amh")
    assert checked(references, references, sources, amharic).corpus_value == 1.0
    copy = checked(sources, references, sources, amharic)
    # e0: Obama and Nairobi are source names → 2/7; e1: March → 1/5 (Prices is sentence-initial, no name)
    assert copy.values == pytest.approx([2 / 7, 1 / 5])
    assert copy.corpus_value == pytest.approx(3 / 12)
    names_kept = checked(["ሚኒስትሩ ዛሬ Nairobi ውስጥ Obama አገኙ", "ዋጋዎች በመጋቢት 12% rose"], references, sources, amharic)
    # e0: both Latin words are source names → 6/6; e1: "rose" is a plain English word → 2/3
    assert names_kept.values == pytest.approx([1.0, 2 / 3])


def test_rule_set_alternatives_are_not_wrong_diacritics(crk):
    # SRO writes long vowels with circumflex or macron: "nipāw" is the reference's "nipâw" in the other
    # convention (right); "nipaw" has lost the length mark (wrong)
    result = checked(["nipāw atim", "nipaw atim"], ["nipâw atim", "nipâw atim"], card=crk)
    assert result.values == pytest.approx([1.0, 0.5])
    assert result.details["problems"] == {"diacritics differ from the corpus spelling": 1}


MAFAND = Path(__file__).parent / "data" / "mafand_yor"


def test_mafand_yoruba_reference_is_ideal_and_stripped_tone_marks_are_misspelt():
    references = (MAFAND / "dev.yor").read_text(encoding="utf-8").splitlines()
    sources = (MAFAND / "dev.eng").read_text(encoding="utf-8").splitlines()
    assert checked(references, references, sources).corpus_value == 1.0
    stripped = ["".join(c for c in unicodedata.normalize("NFD", r) if not unicodedata.combining(c))
                for r in references]
    # every stripped word that changed folds back to its reference word, so it is right only where it is
    # itself a word of the references (unchanged words, and the few like "ti" that exist bare too)
    card = card_for("yor")
    vocabulary = {w.casefold() for r in references for w in words(r, card)}
    stripped_words = [w.casefold() for s in stripped for w in words(s, card)]
    expected = sum(w in vocabulary for w in stripped_words) / len(stripped_words)
    result = checked(stripped, references, sources)
    assert result.corpus_value == pytest.approx(expected)
    assert result.corpus_value < 0.6


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


def test_two_spellings_that_are_both_words_are_not_an_error_an_unaccented_misspelling_is():
    """German konnten/könnten and schon/schön are words in their own right (wordfreq: as common as the
    reference's form); "uber" for "über" is web text's misspelling (Zipf 4.1 against 6.4): 1 error in 4 words."""
    from lyss.metrics.base import ScoringInput
    from lyss.metrics.orthography import OrthographicAccuracy

    entries = [{"id": "1", "source": "s", "reference": "Sie könnten schön über"}]
    data = ScoringInput(entries=entries, predictions=["Sie konnten schon uber"], raw_predictions=[None],
                        source_lang="eng", target_lang="deu", target_card={"script": "Latn"})
    result = OrthographicAccuracy().score(data)
    assert result.corpus_value == pytest.approx(3 / 4)
    assert result.details["most_frequent_misspelt"] == {"uber": 1} or "uber" in str(result.details)


# ---- word boundaries (no wordfreq list for Marathi: the references alone say what a word is)

def test_a_word_glued_to_the_next_is_a_missing_space():
    references = ["खेळाडूंसाठी मैदानावर सुविधा आहेत", "उपलब्ध माहिती"]
    result = checked(["मैदानावरउपलब्ध सुविधा", "उपलब्ध माहिती"], references, card=card_for("mar"))
    # e0: "मैदानावरउपलब्ध" is no reference word but मैदानावर + उपलब्ध, both reference words → 1 of 2 words
    # correct; e1: 2/2. corpus = (1 + 2) / (2 + 2)
    assert result.values == pytest.approx([0.5, 1.0])
    assert result.corpus_value == pytest.approx(3 / 4)
    assert result.details["problems"] == {"missing space": 1}
    assert result.details["most_frequent_misspelt"] == [["मैदानावरउपलब्ध", 1]]


def test_a_suffix_the_references_attach_and_one_letter_halves_are_not_missing_spaces():
    # "मध्ये" ends the reference word "युरोपमध्ये": the corpus spells it closed, so घर + मध्ये is a word;
    # "व" (and) is one grapheme cluster, too short to be a half.
    references = ["युरोपमध्ये घर आहे", "मध्ये व घर"]
    result = checked(["घरमध्ये आहे", "वघर"], references, card=card_for("mar"))
    assert result.values == pytest.approx([1.0, 1.0])


def test_a_space_inside_a_reference_word_makes_both_parts_wrong():
    # "रुग्णाल" + "यात" = the reference word "रुग्णालयात"; neither part is a word → 1 of 3 correct
    result = checked(["रुग्णाल यात गेले"], ["ते रुग्णालयात गेले"], card=card_for("mar"))
    assert result.values == pytest.approx([1 / 3])
    assert result.details["problems"] == {"space inside a word": 2}


def test_references_with_closed_compounds_score_the_ideal():
    references = ["प्रत्येकजण प्रत्येक जण", "सहकार्य सह कार्य", "મહત્વપૂર્ણ મહત્વ પૂર્ણ"]
    result = checked(references, references, card=card_for("mar"))
    assert result.corpus_value == 1.0


def test_closed_compounds_card_flag_turns_the_missing_space_check_off():
    deu = card_for("deu")
    assert deu["closed_compounds"] is True
    references = ["Die Sonnenbrillen und der Halter."]
    # "Sonnenbrillenhalter" is neither a reference word nor in wordfreq (Zipf 0), its halves are reference
    # words: German writes the compound closed, so it is correct (2/2) …
    flagged = checked(["Die Sonnenbrillenhalter"], references, card=deu)
    assert flagged.values == pytest.approx([1.0])
    assert flagged.details["checks"]["word_boundaries"] == "space inside a word"
    # … and without the flag it would be a missing space (1/2)
    open_card = {k: v for k, v in deu.items() if k != "closed_compounds"}
    assert checked(["Die Sonnenbrillenhalter"], references, card=open_card).values == pytest.approx([0.5])

"""code_switching_rate and hallucination_rate: golden values on hand-built cases.

Word-list decisions (the fallback where lingua knows a language not, forced here with
`language_identifier: none`) quote wordfreq 3.1 Zipf frequencies (English / Spanish); a word is a switch at
Zipf_en ≥ 3 and Zipf_en − Zipf_es ≥ 1 (unless the target analyzer knows it).
"""

from pathlib import Path

import numpy as np
import pytest
import yaml

from lyss.embed.embedders import cosine_matrix, get_embedder
from lyss.languages import card_for
from lyss.metrics import ScoringInput
from lyss.metrics.analyzers import AnalyzerUnavailable, load_analyzer
from lyss.metrics.behavioural import CodeSwitchingRate, HallucinationRate
from lyss.metrics.langid import pair_detector

ENGLISH = {"code": "eng", "scripts": ["Latn"]}
SPANISH = {"code": "spa", "scripts": ["Latn"]}  # no analyzer: word lists only
RUSSIAN = {"code": "rus", "scripts": ["Cyrl"]}
# Every sentence aligns, and every sentence counts as weakly aligned for names: only the token rules act.
NO_EMBEDDING = {"min_alignment_cosine": -1.0, "name_alignment_cosine": 1.0}
WORD_LISTS = {"language_identifier": "none"}  # code_switching_rate's fallback rules


def run(metric, rows, source_card=ENGLISH, target_card=SPANISH, options=None, pair=("eng", "spa")):
    """rows: (source, reference, prediction). code_switching_rate runs its word-list rules unless `options`
    says otherwise."""
    entries = [{"id": str(i), "source": s, "reference": r} for i, (s, r, _) in enumerate(rows)]
    predictions = [p for *_, p in rows]
    if options is None:
        options = WORD_LISTS if metric is CodeSwitchingRate else {}
    return metric().score(ScoringInput(entries, predictions, predictions, *pair, source_card, target_card, options))


def test_code_switching_golden_rate_over_words():
    rows = [
        # Ana (3.89/4.59) no, dijo no, the (7.73/5.42) switch, password (4.06/2.82) switch → 2 of 4
        ("Ana said: the password.", "Ana dijo: la contraseña.", "Ana dijo: the password."),
        # numbers are not words: Tengo, gatos → 0 of 2
        ("I have 3 cats.", "Tengo 3 gatos.", "Tengo 3 gatos."),
    ]
    result = run(CodeSwitchingRate, rows)
    assert result.values == pytest.approx([0.5, 0.0])
    assert result.corpus_value == pytest.approx(2 / 6)  # Σ switches / Σ words, not the mean of rates
    assert result.columns["switched_words"] == ["the password", ""]


def test_names_acronyms_and_source_names_are_not_switches():
    rows = [
        ("I work there.", "Trabajo allí.", "Trabajo en Home."),    # capitalised inside a sentence: a name
        ("I work there.", "Trabajo allí.", "Trabajo en home."),    # home (5.81/4.05) switch → 1 of 3
        ("I work at Home.", "Trabajo en Home.", "Trabajo en home."),  # the source uses Home as a name
        ("Read it.", "Léelo.", "Lee el WORLD."),                    # acronym-like capitals: not a switch
    ]
    assert run(CodeSwitchingRate, rows).values == pytest.approx([0, 1 / 3, 0, 0])


def test_unknown_words_empty_and_punctuation_only_outputs():
    rows = [("x", "y", "xqzv blorf"), ("x", "y", ""), ("x", "y", None), ("x", "y", "¡…!")]
    result = run(CodeSwitchingRate, rows)
    assert result.values[0] == 0.0 and np.isnan(result.values[1:]).all()
    assert result.corpus_value == 0.0
    assert run(CodeSwitchingRate, rows[1:]).corpus_value is None


def test_script_analysis_for_a_target_in_another_script():
    # "world" is Latin only, a script of the source card and not of the target card → 1 of 2
    result = run(CodeSwitchingRate, [("Hello world", "Привет, мир", "Привет world")], target_card=RUSSIAN,
                 pair=("eng", "rus"))
    assert result.values == pytest.approx([0.5])


def test_source_language_without_word_list_is_measured_by_words_copied_from_the_source():
    # no wordfreq list for Cree: "tânisi" counts because the entry's source has it and neither the
    # references nor the Spanish list (Zipf 0) know it → 1 of 2
    result = run(CodeSwitchingRate, [("tânisi", "hola", "hola tânisi")],
                 source_card={"code": "crk", "scripts": ["Latn"]}, pair=("crk", "spa"))
    assert result.values == pytest.approx([0.5]) and result.details["source_wordlist"] is None
    # a card can name the wordfreq list to use (here: pretend the source is English)
    named = {"code": "xxx", "scripts": ["Latn"], "code_switching": {"wordfreq": "en"}}
    result = run(CodeSwitchingRate, [("x", "y", "hola the")], source_card=named, pair=("xxx", "spa"))
    assert result.values == pytest.approx([0.5]) and result.details["source_wordlist"] == "wordfreq:en"


def test_words_the_references_use_are_not_switches_unless_far_rarer_than_in_the_sources():
    # "password" (4.06/2.82) is a switch in entry 0 unless the references use it
    rows = [("the password", "la contraseña", "la password")]
    assert run(CodeSwitchingRate, rows).values == pytest.approx([0.5])
    # a reference uses it: 1 of 4 reference words, 2 of 4 source words (less than 10× as often) → a word
    # of the target language here
    rows.append(("my password", "mi password", "mi password"))
    assert run(CodeSwitchingRate, rows).values == pytest.approx([0.0, 0.0])


def test_english_that_slipped_into_one_reference_stays_english():
    # "the" is 21 of 53 source words but 1 of 52 reference words (20× rarer): not a target word, so the
    # copied "the" of entry 0 is a switch (1 of 5); the last entry's own reference has it → 0 there
    rows = [("the dog and the cat", "el perro y el gato", "el perro y the gato")]
    rows += [("the dog and the cat", "el perro y el gato", "el perro y el gato")] * 9
    rows += [("I say the", "digo the", "digo the")]
    result = run(CodeSwitchingRate, rows)
    assert result.values[0] == pytest.approx(0.2) and result.values[-1] == 0.0


def test_target_analyzer_keeps_shared_words_from_counting():
    card = yaml.safe_load(Path("data/languages/spa.yaml").read_text())
    try:
        load_analyzer(card)
    except AnalyzerUnavailable as err:
        pytest.skip(f"Spanish analyzer not installed: {err}")
    row = [("You have won.", "Ganaste.", "Tú has ganado.")]
    # has (6.37/5.17) passes the word-list test, so without an analyzer it is a switch (1 of 3) …
    assert run(CodeSwitchingRate, row).values == pytest.approx([1 / 3])
    # … but the Spanish analyzer knows it (haber), so it is a Spanish word
    assert run(CodeSwitchingRate, row, target_card=card).values == pytest.approx([0.0])


def test_hallucination_token_rules_golden():
    source = "Call {name} at 555 1234 or visit https://lyss.example/help."
    reference = "Llama a {name} al 555 1234 o visita https://lyss.example/help."
    prediction = "Llama a {nombre} al 555 9999 o visita https://lyss.example/ayuda, dice Pedro."
    result = run(HallucinationRate, [(source, reference, prediction)], options=NO_EMBEDDING)
    # units: {nombre}; the URL; the number 555 9999; words Llama a al o visita dice Pedro → 10
    # flagged: {nombre} (not in source), …/ayuda (not in source), 5559999 (neither source nor
    # reference), Pedro (a name in neither) → 4 of 10
    assert result.values == pytest.approx([0.4])
    assert result.columns["flagged_units"] == ["{nombre} https://lyss.example/ayuda 5559999 Pedro"]


def test_numbers_match_across_formats_and_through_the_reference():
    rows = [
        ("Madrid has about 3,300,000 inhabitants.", "Madrid tiene unos 3 300 000 habitantes.",
         "Madrid tiene unos 3.300.000 habitantes."),  # same digits: 0 of 5 units
        ("Fast for eight hours.", "Ayune 8 horas.", "Ayune 8 horas."),   # 8 is in the reference: 0 of 3
        ("Fast for eight hours.", "Ayune 8 horas.", "Ayune 9 horas."),   # 9 is nowhere: 1 of 3
        ("Hi.", "Hola.", "…"), ("Hi.", "Hola.", None),                    # nothing to count: NaN
    ]
    result = run(HallucinationRate, rows, options=NO_EMBEDDING)
    assert result.values[:3] == pytest.approx([0.0, 0.0, 1 / 3]) and np.isnan(result.values[3:]).all()
    assert result.corpus_value == pytest.approx(1 / 11)


def test_unaligned_sentence_is_flagged_by_embedding_overlap():
    source, reference = "The cat sleeps on the sofa.", "El gato duerme en el sofá."
    translated, invented = "El gato duerme en el sofá.", "Mañana lloverá en Bilbao."
    embedder = get_embedder()
    # best cosine of each sentence with the anchors: source and reference
    cosines = cosine_matrix(embedder.embed([translated, invented]), embedder.embed([source, reference])).max(1)
    assert cosines[0] > cosines[1]
    threshold = float(cosines.mean())  # between the two, from the embedder's own vectors
    row = [(source, reference, f"{translated} {invented}")]
    # 10 words; the invented sentence's 4 words are unaligned → 4 of 10
    aligned = run(HallucinationRate, row, options={"min_alignment_cosine": threshold})
    assert aligned.values == pytest.approx([0.4]) and aligned.details["unaligned_sentences"] == 1
    # with the embedding check off only the unknown name Bilbao is left → 1 of 10
    assert run(HallucinationRate, row, options=NO_EMBEDDING).values == pytest.approx([0.1])


SOURCE = "The children are playing in the garden with their friends."
# A correct translation into each language (written for this test). None of them is a reference: the
# decision comes from the CLDR-derived cards' scripts and the word lists alone.
TRANSLATIONS = {
    "deu": "Die Kinder spielen mit ihren Freunden im Garten.",
    "fra": "Les enfants jouent dans le jardin avec leurs amis.",
    "tur": "Çocuklar arkadaşlarıyla bahçede oynuyor.",
    "vie": "Những đứa trẻ đang chơi trong vườn với bạn bè của chúng.",
    "rus": "Дети играют в саду со своими друзьями.",
    "ell": "Τα παιδιά παίζουν στον κήπο με τους φίλους τους.",
    "ara": "الأطفال يلعبون في الحديقة مع أصدقائهم.",
    "heb": "הילדים משחקים בגינה עם החברים שלהם.",
    "hin": "बच्चे अपने दोस्तों के साथ बगीचे में खेल रहे हैं।",
    "tha": "เด็กๆ กำลังเล่นอยู่ในสวนกับเพื่อนๆ ของพวกเขา",
    "jpn": "子供たちは友達と庭で遊んでいます。",
    "kor": "아이들이 친구들과 정원에서 놀고 있습니다.",
}
# The English source copied as the output, 10 words. Non-Latin targets: every word is Latin, a script of
# the source card only → 10/10. Latin targets, by Zipf (en/target) ≥ 3 and margin ≥ 1:
#   deu: "in" 7.27/7.24 is German too → 9/10;  vie: "garden" 4.77/4.01 is within the margin → 9/10;
#   fra: "in" 7.27/5.24, tur: "in" 7.27/5.67 are English only → 10/10.
COPY_RATE = {code: 1.0 for code in TRANSLATIONS} | {"deu": 0.9, "vie": 0.9}


@pytest.mark.parametrize("code", sorted(TRANSLATIONS))
def test_code_switching_without_card_file_correct_target_near_0_english_source_near_1(code, tmp_path):
    cards = (card_for("eng", "data/languages"), card_for(code, tmp_path))
    assert cards[1]["provenance"]["card"] == "derived from CLDR"
    # Words of the translations that English lists know (Zipf en/target): Die 5.07/7.48, Kinder 3.30/5.60,
    # mit 3.74/6.98, im 4.69/6.86, Les 4.10/7.25, dans 3.30/6.91, le 4.50/7.35, avec 3.03/6.65 → all German
    # or French words; the other translations have no word at Zipf_en ≥ 3 or are in other scripts → 0.
    for prediction, expected in ((TRANSLATIONS[code], 0.0), (SOURCE, COPY_RATE[code])):
        result = run(CodeSwitchingRate, [(SOURCE, "", prediction)], *cards, pair=("eng", code))
        assert result.corpus_value == pytest.approx(expected)


REFERENCES = {  # (source, reference) pairs in languages without a card file, written for this test
    "sme": [("I live in Tromsø.", "Mun orun Romssas."), ("The dog runs.", "Beana viehká.")],
    "deu": [("Anna reads the newspaper every morning.", "Anna liest jeden Morgen die Zeitung.")],
    "qaa": [("I like to read books.", "Mo fẹ́ràn láti ka ìwé."), ("The child is sleeping.", "Ọmọ náà ń sùn.")],
}


@pytest.mark.parametrize("code", sorted(REFERENCES))
def test_reference_as_output_scores_0_with_or_without_a_card(code, tmp_path):
    # sme and deu have CLDR cards; "qaa" (reserved for local use; Yoruba text) is unknown to CLDR
    rows = [(s, r, r) for s, r in REFERENCES[code]]
    cards = (card_for("eng", "data/languages"), card_for(code, tmp_path))
    switching = run(CodeSwitchingRate, rows, *cards, pair=("eng", code))
    assert switching.corpus_value == 0.0
    hallucination = run(HallucinationRate, rows, *cards, pair=("eng", code))
    assert hallucination.corpus_value == 0.0 and hallucination.details["unaligned_sentences"] == 0
    if code == "qaa":
        assert switching.details["script_analysis"].startswith("off: the card of 'qaa' names no script")


# -- code_switching_rate with a language identifier (lingua) ------------------------------------------------

LINGUA = {"language_identifier": "lingua"}


def lingua_run(rows, code, options=LINGUA):
    return run(CodeSwitchingRate, rows, card_for("eng", "data/languages"), card_for(code, "data/languages"),
               options=options, pair=("eng", code))


def test_yoruba_words_that_look_english_to_a_word_list_are_yoruba_to_the_identifier():
    # "I have a friend who lives in Lagos." No reference, so only the rules decide; all ten words are
    # Yoruba. English Zipf of the words (Yoruba has no wordfreq list): Mo 4.38, ore 4.1, kan 3.37, ó 3.12 ≥ 3
    # → four "switches" of 10 for the word lists (ní 1.89, tí 1.29, ń 1.4, gbé 0; Èkó is a name).
    row = [("I have a friend who lives in Lagos.", "", "Mo ní ore kan tí ó ń gbé ní Èkó.")]
    assert lingua_run(row, "yor", WORD_LISTS).values == pytest.approx([0.4])
    # lingua reads the sentence as Yoruba; alone it gives English more than half only to "ore" (English
    # "ore"), which the word list then calls English: 1 of 10, the error left where a word is both
    result = lingua_run(row, "yor")
    assert result.values == pytest.approx([0.1]) and result.columns["switched_words"] == ["ore"]


def test_english_inserted_in_yoruba_is_flagged_and_span_edges_are_trimmed():
    rows = [("I have a friend who lives in Lagos.", "", "Mo ní ore kan tí ó ń gbé ní Èkó every day."),
            ("The child is sleeping.", "", "Ọmọ náà ń sùn very peacefully lónìí.")]
    result = lingua_run(rows, "yor")
    # every, day (and "ore", as above): 3 of 12; very, peacefully: 2 of 7 (lónìí, "today", is Yoruba even
    # where lingua's English span runs on to the end of the sentence)
    assert result.values == pytest.approx([3 / 12, 2 / 7])
    assert result.columns["switched_words"] == ["ore every day", "very peacefully"]


@pytest.mark.parametrize("code", ["fra", "tur", "vie", "swa", "zul", "yor"])
def test_an_english_source_copied_is_all_english_to_the_identifier(code):
    # The 10 words of SOURCE are English; a word the target's own list has within the margin stays the
    # target's (Vietnamese "garden" 4.77/4.01, as for the word lists: COPY_RATE). German is left out: "in"
    # is a German word too.
    assert lingua_run([(SOURCE, "", SOURCE)], code).values == pytest.approx([COPY_RATE.get(code, 1.0)])


def test_identifier_and_its_version_are_recorded_and_the_word_lists_stay_the_fallback():
    from importlib import metadata

    version = f"lingua-language-detector {metadata.version('lingua-language-detector')}"
    yoruba = lingua_run([("The child is sleeping.", "Ọmọ náà ń sùn.", "Ọmọ náà ń sùn.")], "yor")
    assert yoruba.signature == f"langid:{version}|wordfreq:{metadata.version('wordfreq')}|zipf:3|margin:1"
    assert yoruba.details["language_identifier"] == f"{version} (eng or yor)"
    # lingua has no Hausa model: word lists; "the" (7.73) and "password" (4.06) are English → 2 of 3
    hausa = lingua_run([("x", "", "Sannu the password")], "hau")
    assert hausa.values == pytest.approx([2 / 3])
    assert hausa.details["language_identifier"] == "none (lingua has no model for 'hau'): word lists decide"
    assert hausa.signature.startswith("wordfreq:")


def test_detectors_are_built_once_per_pair_and_process():
    assert pair_detector("eng", "yor") is pair_detector("eng", "yor")
    assert pair_detector("eng", "hau") is None and pair_detector("eng", "eng") is None


# -- hallucination_rate: names as the target language writes them ------------------------------------------

def test_german_nouns_and_paraphrases_are_not_invented_names_but_acronyms_can_be():
    deu = card_for("deu", "data/languages")
    assert deu["capitalises_nouns"] is True
    rows = [  # correct paraphrases of the reference's nouns
        ("The building is next to the meeting room.", "Das Haus steht neben dem Sitzungssaal.",
         "Das Gebäude steht neben dem Besprechungsraum."),
        ("My mother drives the car.", "Meine Mutter fährt das Auto.", "Meine Mama fährt den Wagen."),
        # an acronym that neither the source nor the reference has: 1 of 5 units
        ("The building belongs to the agency.", "Das Gebäude gehört der Behörde.", "Das Gebäude gehört der NASA."),
    ]
    result = run(HallucinationRate, rows, ENGLISH, deu, NO_EMBEDDING, ("eng", "deu"))
    assert result.values == pytest.approx([0, 0, 1 / 5])
    assert result.details["name_evidence"] == "acronyms (deu capitalises nouns)"
    # without the card's fact every capital inside a sentence would be a name: Gebäude, Besprechungsraum
    # (2 of 6), Mama, Wagen (2 of 5)
    cldr_only = {k: v for k, v in deu.items() if k != "capitalises_nouns"}
    assert run(HallucinationRate, rows, ENGLISH, cldr_only, NO_EMBEDDING, ("eng", "deu")).values == \
        pytest.approx([2 / 6, 2 / 5, 1 / 5])


def test_a_name_has_a_counterpart_in_its_forms_and_transliterations():
    rus = card_for("rus", "data/languages")
    source, reference = "Obama came to Moscow yesterday.", "Вчера он приехал в Москву."
    rows = [(source, reference, "Вчера Обама приехал в Москву."),   # Обама ← Obama (transliterated)
            (source, reference, "Вчера Путин приехал в Москву."),   # Путин has no counterpart: 1 of 5
            (source, reference, "Вчера Trump приехал в Москву."),   # Latin in a Cyrillic target: 1 of 5
            ("He met Obama.", "Он встретил Обаму.", "Он встретился с Обамой.")]  # an inflected form: 0
    result = run(HallucinationRate, rows, ENGLISH, rus, NO_EMBEDDING, ("eng", "rus"))
    assert result.values == pytest.approx([0, 1 / 5, 1 / 5, 0])
    assert result.columns["flagged_units"] == ["", "Путин", "Trump", ""]


def test_a_caseless_target_marks_names_only_by_latin_letters():
    hin = card_for("hin", "data/languages")
    rows = [("Obama came yesterday.", "कल वह आए।", "कल ओबामा आए।"),   # Devanagari: no case, no evidence
            ("Obama came yesterday.", "कल वह आए।", "कल Trump आए।"),   # Latin, no counterpart: 1 of 3
            ("Obama came yesterday.", "कल वह आए।", "कल Obama आए।")]   # Latin, in the source: 0
    result = run(HallucinationRate, rows, ENGLISH, hin, NO_EMBEDDING, ("eng", "hin"))
    assert result.values == pytest.approx([0, 1 / 3, 0])


def test_an_unknown_name_counts_only_in_a_weakly_aligned_sentence():
    source, reference = "The cat sleeps on the sofa.", "El gato duerme en el sofá."
    prediction = "El gato de Pedro duerme en el sofá."  # 8 words; Pedro is in neither text
    embedder = get_embedder()
    cosine = float(cosine_matrix(embedder.embed([prediction]), embedder.embed([source, reference])).max())
    row = [(source, reference, prediction)]
    for name_threshold, expected in ((cosine - 0.01, 0.0), (cosine + 0.01, 1 / 8)):
        options = {"min_alignment_cosine": -1.0, "name_alignment_cosine": name_threshold}
        assert run(HallucinationRate, row, options=options).values == pytest.approx([expected])

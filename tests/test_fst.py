"""fst_acceptance_rate and morphological_accuracy on both real backends: an HFST optimized-lookup
analyzer built here from a tiny lexc lexicon (tests/data/fst/crk_tiny.lexc) and the lttoolbox analyzers of
Debian's Apertium packages that the shipped cards name (the Makefile installs them all, so none is skipped).
Golden values are counted by hand in the comments; every analysis asserted was read off `lt-proc -c`."""

import math
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from fst_build import build_hfstol

from lyss.errors import InputError
from lyss.languages import card_for, load_card, load_cards
from lyss.metrics import ScoringInput, analyzers
from lyss.metrics.analyzers import analyse_words, lemmas, load_analyzer
from lyss.metrics.fst import FstAcceptance, MorphologicalAccuracy


@pytest.fixture(scope="module")
def hfstol(tmp_path_factory):
    return build_hfstol("crk_tiny", tmp_path_factory.mktemp("fst"))


def crk_card(path, caseless=False):
    return {"code": "crk", "name": "Plains Cree", "scripts": ["Latn", "Cans"], "caseless": caseless,
            "word_tokenisation": {"joiners": ["-"]}, "fst_analyzer": {"backend": "hfstol", "path": str(path)}}


@pytest.fixture(scope="module")
def spa_card():
    return load_card("data/languages/spa.yaml")


def scoring(predictions, card, morphology=None):
    entries = [{"id": f"e{i}", "source": "s", "reference": "r", "morphology": (morphology or {}).get(i)}
               for i in range(len(predictions))]
    return ScoringInput(entries, predictions, predictions, "eng", card["code"], target_card=card)


def test_hfstol_acceptance_golden(hfstol):
    result = FstAcceptance().score(scoring(
        ["atimwak nipâw.", "Atim mîcisow xyz 3", None, "", "!!! 42"], crk_card(hfstol)))
    # e0: atimwak, nipâw both known → 2/2.  e1: Atim (known in lower case), mîcisow, xyz (unknown); "3" is
    # not a word → 2/3.  e2 (no output), e3 (empty), e4 (punctuation and a number) have no words → NaN.
    # corpus = (2 + 2) / (2 + 3) = 0.8
    assert result.corpus_value == pytest.approx(0.8)
    assert result.values[:2] == pytest.approx([1.0, 2 / 3])
    assert np.isnan(result.values[2:]).all()
    assert result.counts == {"fst_accepted": 4}
    assert result.stats.tolist() == [[2, 2], [2, 3], [0, 0], [0, 0], [0, 0]]
    assert result.details["accepted_by"] == {"exact": 3, "lowercase": 1, "titlecase": 0}
    assert result.details["most_frequent_rejected"] == [["xyz", 1]]
    assert result.details["backend"] == "hfstol"


def test_all_unknown_words_score_zero(hfstol):
    result = FstAcceptance().score(scoring(["xyz qqq", "zzz"], crk_card(hfstol)))
    assert result.corpus_value == 0.0  # 0 of 3 words
    assert result.counts == {"fst_accepted": 0}


def test_no_words_at_all_is_unavailable_with_reason(hfstol):
    result = FstAcceptance().score(scoring([None, "", "... 12 {name}"], crk_card(hfstol)))
    assert result.corpus_value is None
    assert "no prediction contains a word" in result.reason


def test_caseless_script_gets_no_case_fallback(hfstol):
    # ᓂᐹᐤ (syllabics, caseless) is known as written. "Atim" is only known as "atim": accepted through
    # the lower-case fallback on a cased card (2/2), rejected on a card that declares a caseless script (1/2).
    assert FstAcceptance().score(scoring(["ᓂᐹᐤ Atim"], crk_card(hfstol))).corpus_value == 1.0
    assert FstAcceptance().score(scoring(["ᓂᐹᐤ Atim"], crk_card(hfstol, caseless=True))).corpus_value == 0.5


def test_missing_analyzer_is_unavailable_naming_path_and_card(tmp_path):
    missing = tmp_path / "nowhere.hfstol"
    result = FstAcceptance().score(scoring(["atim"], crk_card(missing)))
    assert result.corpus_value is None and math.isnan(result.values[0])
    assert result.reason == f"FST analyzer {str(missing)!r} of language card 'crk' does not exist"


def test_card_file_without_analyzer_says_so_naming_the_file():
    result = FstAcceptance().score(scoring(["ẹ kú àárọ̀"], load_card("data/languages/yor.yaml")))
    assert result.reason == "language card data/languages/yor.yaml declares no fst_analyzer"


def test_language_without_card_file_has_a_derived_card_without_analyzer(tmp_path):
    deu = card_for("deu", tmp_path)
    for metric in (FstAcceptance(), MorphologicalAccuracy()):
        result = metric.score(scoring(["Guten Morgen"], deu, morphology={0: [{"analysis": "gut<adj>"}]}))
        assert result.reason == (f"language 'deu' has no card file ({tmp_path / 'deu.yaml'}); its card is "
                                 "derived from CLDR, which has no fst_analyzer")


def test_language_unknown_to_cldr_and_empty_card_say_so(tmp_path):
    unknown = FstAcceptance().score(scoring(["abc"], card_for("qaa", tmp_path)))
    assert unknown.reason == (f"language 'qaa' has no card file ({tmp_path / 'qaa.yaml'}) and CLDR does not "
                              "know it; no fst_analyzer")
    entries = [{"id": "e0", "source": "s", "reference": "r"}]
    empty = FstAcceptance().score(ScoringInput(entries, ["Hallo"], ["Hallo"], "eng", "deu", target_card={}))
    assert empty.reason == "no language card was given for 'deu'; no fst_analyzer"


def test_lttoolbox_acceptance_golden(spa_card):
    result = FstAcceptance().score(scoring(["Los perros duermen xyzzy.", "MADRID es grande"], spa_card))
    # e0: Los (as "los"), perros, duermen accepted, xyzzy not → 3/4.
    # e1: MADRID (as "Madrid"), es, grande → 3/3.
    # corpus = 6/7; by method: exact perros duermen es grande = 4, lowercase Los = 1, titlecase MADRID = 1
    assert result.values == pytest.approx([0.75, 1.0])
    assert result.corpus_value == pytest.approx(6 / 7)
    assert result.details["accepted_by"] == {"exact": 4, "lowercase": 1, "titlecase": 1}
    assert result.details["backend"] == "lttoolbox"


def test_lttoolbox_runs_one_process_per_batch(spa_card, monkeypatch):
    calls = []
    real_run = subprocess.run
    monkeypatch.setattr(analyzers.subprocess, "run", lambda *a, **k: calls.append(a) or real_run(*a, **k))
    analyzers._load.cache_clear()
    predictions = [" ".join(f"palabra{chr(97 + i)}{chr(97 + j)}" for j in range(10)) for i in range(10)]
    FstAcceptance().score(scoring(predictions + ["Casa"], spa_card))
    # 101 distinct words: one lt-proc for all of them as written, one for the case variants still unknown.
    assert len(calls) == 2
    analyzers._load.cache_clear()


def test_lttoolbox_missing_bin_is_unavailable(tmp_path):
    card = {"code": "spa", "name": "Spanish", "scripts": ["Latn"],
            "fst_analyzer": {"backend": "lttoolbox", "path": str(tmp_path / "spa.automorf.bin")}}
    result = FstAcceptance().score(scoring(["perros"], card))
    assert result.corpus_value is None and "spa.automorf.bin" in result.reason and "'spa'" in result.reason


def test_lemmas_of_both_tag_conventions():
    assert lemmas("perro<n><m><pl>") == {"perro"}
    assert lemmas("de<pr>+el<det><def><m><sg>") == {"de", "el"}
    assert lemmas("PV/e+nipâw+V+AI+Cnj+3Sg") == {"nipâw"}
    assert lemmas("atim+N+A+Sg") == {"atim"}


def test_morphological_accuracy_golden_hfstol(hfstol):
    morphology = {
        0: [{"analysis": "atim+N+A+Pl"}, {"analysis": "nipâw+V+AI+Ind+3Sg", "form": "nipâw"}],
        1: [{"analysis": "atim+N+A+Pl"}],
        3: [{"analysis": "mîcisow+V+AI+Ind+3Sg"}],
        4: [{"analysis": "nipâw+V+AI+Ind+3Sg", "form": "ᓂᐹᐤ"}],
    }
    result = MorphologicalAccuracy().score(scoring(["atimwak nipâw", "atim", "atim", None, "nipâw"],
                                                   crk_card(hfstol), morphology))
    # e0: atimwak = atim+N+A+Pl ✓, the word nipâw = nipâw+…+3Sg ✓ → 2/2.  e1: "atim" is Sg, Pl expected → 0/1.
    # e2: no annotation → NaN.  e3: no output → 0/1.  e4: the analysis is there but on "nipâw", not the
    # required form ᓂᐹᐤ → 0/1.  corpus = 2 / 5 = 0.4
    assert result.corpus_value == pytest.approx(0.4)
    assert result.values[[0, 1, 3, 4]] == pytest.approx([1.0, 0.0, 0.0, 0.0])
    assert np.isnan(result.values[2])
    assert result.details["annotations"] == 5


def test_morphological_accuracy_lttoolbox(spa_card):
    morphology = {0: [{"analysis": "perro<n><m><pl>"}], 1: [{"analysis": "perro<n><m><sg>"}]}
    result = MorphologicalAccuracy().score(scoring(["Los perros", "Los perros"], spa_card, morphology))
    assert result.values.tolist() == [1.0, 0.0]  # plural found; singular expected but only plural present
    assert result.corpus_value == 0.5


def test_morphological_accuracy_without_annotations_is_unavailable(hfstol):
    result = MorphologicalAccuracy().score(scoring(["atim"], crk_card(hfstol)))
    assert result.corpus_value is None and "morphology" in result.reason


def test_malformed_morphology_names_the_entry_and_field(hfstol):
    with pytest.raises(InputError, match="e0.*morphology"):
        MorphologicalAccuracy().score(scoring(["atim"], crk_card(hfstol), {0: [{"form": "atim"}]}))


@pytest.mark.parametrize("backend", ["hfstol", "lttoolbox"])
def test_file_that_is_not_an_analyzer_is_unavailable(tmp_path, backend):
    path = tmp_path / "garbage.bin"
    path.write_bytes(b"not a transducer")
    card = {"code": "xxx", "name": "X", "scripts": ["Latn"], "fst_analyzer": {"backend": backend, "path": str(path)}}
    result = FstAcceptance().score(scoring(["perros"], card))
    assert result.corpus_value is None and str(path) in result.reason


# One word per shipped analyzer card and one of its analyses, as `echo <word> | lt-proc -c <path>` prints it.
HAND_CHOSEN = {
    "afr": ("huis", "huis<n><sg>"), "arg": ("casa", "casa<n><f><sg>"), "ast": ("casa", "casa<n><f><sg>"),
    "bel": ("дом", "дом¹<n><m><nn><sg><nom>"), "bos": ("kuća", "kuća<n><f><sg><nom>"),
    "bre": ("tiez", "ti<n><m><pl>"), "bul": ("къща", "къща<n><f><sg><nom><ind>"), "cat": ("cases", "casa<n><f><pl>"),
    "dan": ("huset", "hus<n><nt><sg><def>"), "eng": ("houses", "house<n><pl>"), "epo": ("domoj", "domo<n><pl><nom>"),
    "eus": ("etxea", "etxe<n>+a<det><art><sg>"), "fra": ("maisons", "maison<n><f><pl>"),
    "glg": ("casas", "casa<n><f><pl>"), "hbs": ("kuća", "kuća<n><f><sg><nom>"), "hin": ("घर", "घर<n><m><sg><nom>"),
    "hrv": ("kuća", "kuća<n><f><sg><nom>"), "isl": ("hús", "hús<n><nt><sg><nom><ind>"),
    "ita": ("case", "casa<n><f><pl>"), "mkd": ("куќа", "куќа<n><f><sg><nom><ind>"),
    "nld": ("huis", "huis<n><nt><sg>"), "nno": ("huset", "hus<n><nt><sg><def>"),
    "nob": ("huset", "hus<n><nt><sg><def>"),
    "oci": ("ostal", "ostal<n><m><sg>"), "pol": ("dom", "dom<n><mi><sg><nom>"), "por": ("casas", "casa<n><f><pl>"),
    "ron": ("casă", "casă<n><f><sg><nom><ind>"), "rus": ("дом", "дом<n><m><nn><sg><nom>"),
    "slv": ("hiša", "hiša<n><f><sg><nom>"), "spa": ("perros", "perro<n><m><pl>"), "srd": ("domo", "domo<n><f><sg>"),
    "swe": ("huset", "hus<n><nt><sg><def>"), "szl": ("dōm", "dōm<n><mi><sg><nom>"),
    "ukr": ("дім", "дім<n><m><nn><sg><nom>"), "urd": ("گھر", "گھر<n><m><sg><nom>"),
}


def makefile_analyzer_packages() -> set[str]:
    text = Path("Makefile").read_text().replace("\\\n", " ")
    return set(re.search(r"^ANALYZER_APT :=(.*)$", text, re.MULTILINE).group(1).split())


@pytest.fixture(scope="module")
def debian_cards():
    cards = load_cards("data/languages")
    return {code: cards[code] for code in cards.keys() if (cards[code].get("fst_analyzer") or {}).get("package")}


def test_at_least_15_languages_have_a_debian_analyzer_that_the_makefile_installs(debian_cards):
    assert len(debian_cards) >= 15
    assert {c["fst_analyzer"]["package"] for c in debian_cards.values()} <= makefile_analyzer_packages()
    assert sorted(debian_cards) == sorted(HAND_CHOSEN)  # a new analyzer card comes with its hand-checked word


@pytest.mark.parametrize("code", sorted(HAND_CHOSEN))
def test_real_lookup_with_every_shipped_analyzer(debian_cards, code):
    card = debian_cards[code]
    word, analysis = HAND_CHOSEN[code]
    found = analyse_words(load_analyzer(card), [word, "qxzvk"], card.get("caseless", False))
    assert analysis in found[word].analyses and found[word].method == "exact"
    assert not found["qxzvk"].accepted


def test_english_card_accepts_the_words_the_eng_spa_analyzer_rejected():
    # Issue 18: apertium-eng-spa's eng-spa.automorf.bin rejects all four; apertium-eo-en's en-eo analyzer:
    card = load_card("data/languages/eng.yaml")
    found = analyse_words(load_analyzer(card), ["embedded", "minus", "graph", "fabulous"])
    assert {w: a.analyses for w, a in found.items()} == {
        "embedded": ("embedded<adj>",), "minus": ("minus<cnjadv>", "minus<n><sg>"),
        "graph": ("graph<n><sg>",), "fabulous": ("fabulous<adj>",)}


def test_card_whose_package_is_not_installed_names_the_package(tmp_path):
    missing = tmp_path / "cat-spa.automorf.bin"
    card = {"code": "cat", "name": "Catalan", "scripts": ["Latn"],
            "fst_analyzer": {"backend": "lttoolbox", "path": str(missing), "package": "apertium-spa-cat"}}
    for metric in (FstAcceptance(), MorphologicalAccuracy()):
        result = metric.score(scoring(["cases"], card, morphology={0: [{"analysis": "casa<n><f><pl>"}]}))
        assert result.corpus_value is None
        assert result.reason == (f"FST analyzer {str(missing)!r} of language card 'cat' does not exist: "
                                 "install Debian package apertium-spa-cat")


def parallel(rows, card):
    entries = [{"id": f"e{i}", "source": s, "reference": r} for i, (s, r, _) in enumerate(rows)]
    predictions = [p for _, _, p in rows]
    return ScoringInput(entries, predictions, predictions, "eng", "spa", target_card=card)


# Verdicts of spa-cat.automorf.bin (lt-proc -c): rejected are Ishikawa, Okonkwo, Okonkwo-Baptiste (Okonkwo and
# Baptiste both unknown), blockchain, smartfone, the, dogs, sleep; every other word below has an analysis
# (Ayer, La, El, Hoy through their lower-case forms).
ROBUSTNESS_ROWS = [
    ("Yesterday Ishikawa bought a phone.", "Ayer Ishikawa compró un teléfono.",
     "Ayer Ishikawa compró un teléfono smartfone."),
    ("The talk was given by Doctor Okonkwo-Baptiste in Lagos.", "La charla la dio el doctor Okonkwo en Lagos.",
     "La charla la dio Okonkwo-Baptiste en Lagos."),
    ("We talk about blockchain today.", "Hoy hablamos de blockchain.", "Hoy hablamos de la cadena de bloques."),
    ("The ledger is public.", "El registro es público.", "La blockchain es pública."),
    ("the dogs sleep", "los perros duermen", "the dogs sleep"),
]


def test_rejections_shared_with_the_reference_or_naming_the_source_are_excused(spa_card):
    result = FstAcceptance().score(parallel(ROBUSTNESS_ROWS, spa_card))
    # e0: Ishikawa is rejected in its own reference too → excused; smartfone counts → 4 accepted of 5.
    # e1: Okonkwo-Baptiste is capitalised inside the source sentence (a name) → excused → 6/6.
    # e2: 7/7.  e3: blockchain is rejected in e2's reference, and the references use it as often as the
    # sources (1 and 1) → excused → 3/3.  e4, a copy of the source: the, dogs, sleep are in no reference and
    # lower case in the source → 0/3.   corpus = 20 / 24; raw = 20 accepted of all 27 words.
    assert result.stats.tolist() == [[4, 5], [6, 6], [7, 7], [3, 3], [0, 3]]
    assert result.corpus_value == pytest.approx(20 / 24)
    assert result.details["raw_acceptance"] == pytest.approx(20 / 27, abs=1e-6)
    assert result.details["excused_by"] == {"reference": 1, "corpus_references": 1, "source_name": 1}
    assert result.details["most_frequent_rejected"] == [["dogs", 1], ["sleep", 1], ["smartfone", 1], ["the", 1]]


def test_reference_false_rejection_rate_in_the_details(spa_card):
    result = FstAcceptance().score(parallel(ROBUSTNESS_ROWS, spa_card))
    rejection = result.details["reference_false_rejection"]
    # 25 reference words (5 + 9 + 4 + 4 + 3); rejected: Ishikawa, Okonkwo, blockchain → raw 3/25.
    # After the rules: Ishikawa is a name of its source (capitalised, not first) → excused; Okonkwo is not a
    # source word and blockchain is in one reference only → 2/25.
    assert (rejection["words"], rejection["raw"], rejection["after_rules"]) == (25, 0.12, 0.08)
    assert rejection["most_frequent_rejected"] == [["Ishikawa", 1], ["Okonkwo", 1], ["blockchain", 1]]


def test_reference_scored_as_output_is_ideal_though_the_analyzer_rejects_some_of_its_words(spa_card):
    rows = [(s, r, r) for s, r, _ in ROBUSTNESS_ROWS]
    result = FstAcceptance().score(parallel(rows, spa_card))
    # The three rejected words are excused (rejected in the entry's own reference): 22 accepted of 22.
    assert result.corpus_value == 1.0
    assert result.details["raw_acceptance"] == pytest.approx(22 / 25, abs=1e-6)


def test_a_word_the_sources_use_more_often_than_the_references_is_not_excused(spa_card):
    rows = [("Use blockchain.", "Use blockchain.", "Use blockchain."),
            ("The blockchain grows.", "La cadena crece.", "La blockchain crece.")]
    # blockchain: rejected in e0's reference, used twice by the sources and once by the references, so in e1
    # (whose reference does not have it) it counts: e1 = La, crece of La, blockchain, crece → 2/3.
    # e0: "Use" (as "use": usar, subjunctive) accepted, blockchain excused by its own reference → 1/1.
    result = FstAcceptance().score(parallel(rows, spa_card))
    assert result.stats.tolist() == [[1, 1], [2, 3]]

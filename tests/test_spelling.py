"""Hunspell dictionaries as target evidence for code_switching_rate (lyss.metrics.spelling).

Golden values are the dictionaries' own answers as a German reader would give them ("still" is German for quiet,
"miserable" an inflection of "miserabel", "house" and "silent" are not German) and counts of words, not our output.
"""

import re
from pathlib import Path

import pytest
from spylls.hunspell import Dictionary
from test_behavioural import run
from wordfreq import top_n_list

from lyss.languages import card_for, load_cards
from lyss.metrics import spelling
from lyss.metrics.behavioural import CodeSwitchingRate

GERMAN = card_for("deu", "data/languages")
ENGLISH = card_for("eng", "data/languages")


def test_the_german_dictionary_accepts_german_homographs_of_english_words_and_rejects_english():
    dic = spelling.dictionary_path(GERMAN)
    german = {"still", "miserable", "separate", "Stummfilm", "ausgefeiltere", "Meeting", "Still", "STILL"}
    # "İstanbul": spylls 0.1.7 fails on it (IndexError), which must read as "not accepted", not stop the metric
    english = {"house", "silent", "movie", "the", "meeting", "island", "İstanbul"}
    assert spelling.accepted_words(dic, german | english) == german


@pytest.fixture
def new_process(tmp_path, monkeypatch):
    """An empty store in tmp_path; calling it forgets the process's memory, as a new process would."""
    monkeypatch.setenv("LYSS_CACHE_DIR", str(tmp_path))

    def forget():
        spelling.lookups.flush_all()
        spelling.lookups._STORES.clear()
        spelling._load.cache_clear()

    forget()
    yield forget
    forget()


def test_answers_are_kept_so_a_second_process_needs_no_dictionary(new_process):
    dic = spelling.dictionary_path(GERMAN)
    words = {"still", "house", "Gebäude"}
    first = spelling.accepted_words(dic, words)
    assert spelling._load.cache_info().misses == 1
    new_process()
    assert spelling.accepted_words(dic, words) == first == {"still", "Gebäude"}
    assert spelling._load.cache_info().misses == 0


def test_a_missing_dictionary_names_card_file_and_package(tmp_path):
    card = {"code": "deu", "spelling_dictionary": {"path": str(tmp_path / "de_XX.dic"), "package": "hunspell-de-de"}}
    with pytest.raises(spelling.SpellingUnavailable, match=r"de_XX\.dic.*'deu'.*install Debian package hunspell-de-de"):
        spelling.dictionary_path(card)
    with pytest.raises(spelling.SpellingUnavailable, match="declares no spelling_dictionary"):
        spelling.dictionary_path(card_for("yor", "data/languages"))


def test_an_unreadable_dictionary_is_a_note_naming_the_file_not_a_failed_metric(tmp_path, new_process):
    (tmp_path / "xx.aff").write_text("SET no-such-encoding\n")
    (tmp_path / "xx.dic").write_text("1\nstill\n")
    card = {**GERMAN, "spelling_dictionary": {"path": str(tmp_path / "xx.dic")}}
    with pytest.raises(spelling.SpellingUnavailable, match=r"cannot read spelling dictionary .*xx\.dic.*LookupError"):
        spelling.accepted_words(tmp_path / "xx.dic", {"still"})
    result = run(CodeSwitchingRate, ROWS[:1], ENGLISH, card, options={}, pair=("eng", "deu"))
    # without the dictionary's evidence "still" counts, as it did before dictionaries (see the test below)
    assert result.columns["switched_words"] == ["silent movie still"]
    assert result.details["target_spelling_dictionary"].startswith("none (cannot read spelling dictionary")
    assert "spelling:" not in result.signature


ROWS = [  # (source, reference, output) written for this test
    ("The universe is not a silent movie because it is not silent.",
     "Das Universum ist kein Stummfilm, weil es nicht stumm ist.",
     "Das Universum ist kein silent movie, weil es nicht still ist."),
    ("But first, see what a miserable lot we are.", "Schauen Sie mal, was für ein armseliger Haufen wir sind.",
     "Aber zuerst sehen Sie, was für eine miserable Menge wir sind."),
    ("I saw him yesterday, and he told me the truth.", "Ich sah ihn gestern, und er sagte mir die Wahrheit.",
     "Ich sah ihn gestern, and he told me the truth."),
]


def test_german_homographs_are_not_switches_but_english_left_in_german_is():
    without = run(CodeSwitchingRate, ROWS, ENGLISH, {k: v for k, v in GERMAN.items() if k != "spelling_dictionary"},
                  options={}, pair=("eng", "deu"))
    with_dictionary = run(CodeSwitchingRate, ROWS, ENGLISH, GERMAN, options={}, pair=("eng", "deu"))
    # 11, 11 and 10 words. Without the dictionary "still" (Zipf en 5.92, de 4.44) and "miserable" (4.07, 2.79)
    # count as English; with it only "silent movie" and "and he told the truth" do ("me" is German too)
    assert without.columns["switched_words"] == ["silent movie still", "miserable", "and he told the truth"]
    assert with_dictionary.columns["switched_words"] == ["silent movie", "", "and he told the truth"]
    assert with_dictionary.values == pytest.approx([2 / 11, 0.0, 5 / 10])
    assert re.search(r"\|spelling:de_DE\.dic@[0-9a-f]{12}$", with_dictionary.signature)
    assert with_dictionary.details["target_spelling_dictionary"] == "hunspell:/usr/share/hunspell/de_DE.dic"


def spelling_cards() -> dict[str, dict]:
    cards = load_cards("data/languages")
    return {code: cards[code] for code in cards.keys() if cards[code].get("spelling_dictionary")}


def test_the_makefile_installs_every_cards_dictionary():
    text = Path("Makefile").read_text().replace("\\\n", " ")
    packages = set(re.search(r"^SPELLING_APT :=(.*)$", text, re.MULTILINE).group(1).split())
    assert {c["spelling_dictionary"]["package"] for c in spelling_cards().values()} == packages
    assert len(packages) == 19


@pytest.mark.parametrize("code", sorted(spelling_cards()))
def test_a_card_names_only_a_dictionary_that_rejects_most_frequent_english(code):
    """The rule for naming a dictionary (docs/languages.md): it accepts at most 30 of the 200 most frequent
    English words of three letters or more (wordfreq's list), so English left in an output is not taken for the
    target's."""
    top = [w for w in top_n_list("en", 400) if w.isalpha() and len(w) >= 3][:200]
    dic = spelling.dictionary_path(spelling_cards()[code])
    assert len(spelling.accepted_words(dic, top)) <= 30


def test_words_under_three_letters_are_no_evidence():
    """sw_TZ lists "to", "it" and "we" (Hunspell says yes to each); an English "to" left in Swahili must still
    count, so words of one or two letters are left to the word lists and the identifier."""
    dic = spelling.dictionary_path(card_for("swa", "data/languages"))
    hunspell = Dictionary.from_files(str(dic.with_suffix("")))  # the reader itself, without lyss's rule
    assert all(hunspell.lookup(w) for w in ("to", "it", "we"))
    assert spelling.accepted_words(dic, {"to", "it", "we", "got", "watoto"}) == {"got", "watoto"}

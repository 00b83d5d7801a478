"""The in-process lookups that `lyss score` reuses between the oracle check and the systems (lyss.text.words,
the Zipf frequencies, lingua's word confidences) answer what an uncached call answers, whatever was asked
before; and `lyss score` on the same files prints the same bytes whether those lookups start empty or full."""

import subprocess
import sys

import pytest
import wordfreq
from lingua import Language

from lyss.metrics import langid
from lyss.metrics.behavioural import zipf_frequency
from lyss.text import words

CARD = {"word_tokenisation": {"extra_letters": ["7"]}}


def test_words_by_hand_and_unchanged_by_the_cache():
    text = "Sḵwx̱wú7mesh B12 {name} see https://x.org/a it's well-known 3,5 — ok"
    expected = ["Sḵwx̱wú7mesh", "see", "it's", "well-known", "ok"]
    first = words(text, CARD)
    assert first == expected
    first.append("changed by a caller")
    assert words(text, CARD) == expected
    assert words(text, {}) == ["see", "it's", "well-known", "ok"]  # without the card, 7 is a digit


def test_zipf_lookups_equal_wordfreq():
    for word in ("Haus", "haus", "the", "xqzv", "schön", "schon"):
        assert zipf_frequency(word, "de") == wordfreq.zipf_frequency(word, "de")
        assert zipf_frequency(word, "de") == wordfreq.zipf_frequency(word, "de")  # again, from the cache


def test_lingua_word_confidences_do_not_depend_on_earlier_calls():
    detector = langid.pair_detector("eng", "deu")
    if detector is None:
        pytest.skip("lingua-language-detector is not installed")
    everything = {"the", "house", "Haus", "und", "cat", "Katze", "hat", "man", "die", "also"}
    direct = detector.compute_language_confidence_in_parallel(sorted(everything), Language.ENGLISH)
    expected = {w for w, c in zip(sorted(everything), direct, strict=True) if c > 0.5}
    assert langid.alone_source_words(detector, "eng", {"the", "Haus", "hat"}) == expected & {"the", "Haus", "hat"}
    assert langid.alone_source_words(detector, "eng", everything) == expected


def test_lyss_score_prints_the_same_bytes_with_warm_lookups(tmp_path):
    """One process scores the files twice (every lookup full the second time); a fresh one scores them once."""
    src = ["The house is old.", "It's a well-known café, my friend.", "Call 555 at {time}."]
    ref = ["Das Haus ist alt.", "Es ist ein bekanntes Café, mein Freund.", "Ruf 555 um {time} an."]
    hyp = ["Das house ist alt.", "Es ist ein well-known Café, mein Freund.", "Ruf 556 um {zeit} an."]
    for name, lines in (("src", src), ("ref", ref), ("hyp", hyp)):
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    argv = ["score", "-s", "src", "-r", "ref", "-i", "hyp", "-l", "eng-deu", "--format", "json", "-sl",
            "-m", "code_switching_rate,orthographic_accuracy,chrf_plus_plus,bleu,ter,compliance_index"]
    twice = ("import sys; from lyss.cli import main; "
             f"main({argv!r}); sys.stdout.write('<<>>'); main({argv!r})")
    warm = subprocess.run([sys.executable, "-c", twice], cwd=tmp_path, capture_output=True, text=True, check=True)
    cold = subprocess.run([sys.executable, "-m", "lyss.cli", *argv], cwd=tmp_path, capture_output=True, text=True,
                          check=True)
    first, second = warm.stdout.split("<<>>")
    assert first == cold.stdout
    assert second == cold.stdout

"""The lookup store (lyss.metrics.lookups) gives the tools' own answers: Zipf frequencies as wordfreq computes
them, lingua's readings as lingua gives them, read back from disk by a later process; and `lyss score` prints
the same bytes with the store empty, full, or turned off, while a run whose words were all read before
does not import wordfreq."""

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
import wordfreq
from lingua import Language
from open_at_once import failures_opening_at_once

from lyss.metrics import behavioural, langid, lookups

WORDS = ("Haus", "haus", "the", "xqzv", "schön", "schon", "well-known", "café", "", "7")


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """An empty store in tmp_path, and the process's memory of it forgotten (as in a new process)."""
    monkeypatch.setenv("LYSS_CACHE_DIR", str(tmp_path / "cache"))

    def forget():
        lookups.flush_all()
        lookups._STORES.clear()
        behavioural.zipf_frequency.cache_clear()
        behavioural._wordfreq_lists.cache_clear()

    forget()
    yield forget
    forget()


def test_zipf_answers_equal_wordfreq_computed_and_read_back(fresh):
    computed = {w: behavioural.zipf_frequency(w, "de") for w in WORDS}
    fresh()  # a new process: only the file remains
    stored = {w: behavioural.zipf_frequency(w, "de") for w in WORDS}
    expected = {w: wordfreq.zipf_frequency(w, "de") for w in WORDS}
    assert computed == expected
    assert stored == expected
    assert {type(v) for v in stored.values()} == {type(v) for v in expected.values()}
    assert behavioural._wordfreq_lists() == frozenset(wordfreq.available_languages())


def test_lingua_readings_equal_lingua_computed_and_read_back(fresh):
    detector = langid.pair_detector("eng", "deu")
    if detector is None:
        pytest.skip("lingua-language-detector is not installed")
    everything = sorted({"the", "house", "Haus", "und", "cat", "Katze", "hat", "man", "die", "also"})
    direct = detector.compute_language_confidence_in_parallel(everything, Language.ENGLISH)
    expected = {w for w, c in zip(everything, direct, strict=True) if c > 0.5}
    texts = ["Das Haus ist very old and schön.", "Ein ganz normaler Satz.", ""]
    english = Language.ENGLISH
    spans = [{w.casefold() for r in results if r.language == english for w in text[r.start_index:r.end_index].split()}
             for text, results in zip(texts, detector.detect_multiple_languages_in_parallel_of(texts), strict=True)]
    assert langid.alone_source_words(detector, "eng", set(everything)) == expected
    assert langid.context_source_words(detector, "eng", texts, str.split) == spans
    fresh()
    assert langid.alone_source_words(detector, "eng", set(everything)) == expected
    assert langid.context_source_words(detector, "eng", texts, str.split) == spans


def test_lyss_score_same_bytes_with_the_store_empty_full_or_off(tmp_path):
    src = ["The house is old.", "It's a well-known café, my friend.", "Call 555 at {time}.", "Good morning."]
    ref = ["Das Haus ist alt.", "Es ist ein bekanntes Café, mein Freund.", "Ruf 555 um {time} an.", "Guten Morgen."]
    hyp = ["Das house ist alt.", "Es ist ein well-known Café, mein Freund.", "Ruf 556 um {zeit} an.", "Guten morning."]
    for name, lines in (("src", src), ("ref", ref), ("hyp", hyp)):
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    argv = ["score", "-s", "src", "-r", "ref", "-i", "hyp", "-l", "eng-deu", "--format", "json", "-sl",
            "-m", "code_switching_rate,orthographic_accuracy,chrf_plus_plus,ter,compliance_index"]
    script = (f"import sys; from lyss.cli import main; main({argv!r}); "
              "sys.stderr.write(str('wordfreq' in sys.modules))")

    def run(**env):
        done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                              check=True, env={**os.environ, "LYSS_LOOKUP_CACHE": "1",
                                               "LYSS_CACHE_DIR": str(tmp_path / "cache"), **env})
        return done.stdout, done.stderr.split("\n")[-1]

    empty, imported_empty = run()
    full, imported_full = run()
    off, imported_off = run(LYSS_LOOKUP_CACHE="0")
    assert empty == full == off
    assert (imported_empty, imported_full, imported_off) == ("True", "False", "True")  # full: all from the store
    assert (tmp_path / "cache" / "lookups.sqlite").is_file()


def test_jobs_that_create_the_store_at_the_same_moment_all_read_and_write_it(tmp_path, monkeypatch):
    """The lookup store opens as the embedding store does (`lyss.embed.cache.open_shared`): four jobs that create
    it at once all get it, where SQLite's switch to WAL answered "database is locked" to some of them."""
    failures = []
    for trial in range(100):
        monkeypatch.setenv("LYSS_CACHE_DIR", str(tmp_path / f"cache{trial}"))
        stores = [lookups.LookupStore("test") for _ in range(4)]
        failures += failures_opening_at_once([lambda store=store: store._db().close() for store in stores])
    assert failures == []


def test_jobs_on_threads_of_one_process_share_a_store_without_losing_an_answer(fresh):
    """Pipeline jobs on Snakemake's threads (lyss.scripting) put answers into one store while others flush it
    (threads switched every microsecond, so that a put lands inside another thread's flush)."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)

    def job(i):
        answers = lookups.store("test threads")
        for k in range(10_000):
            answers.put(f"{i}-{k}", k)
            if k % 500 == 0:
                answers.flush()

    try:
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(job, range(4)))
    finally:
        sys.setswitchinterval(interval)
    fresh()  # flushes what is left, then forgets, as a new process would
    stored = lookups.store("test threads")
    assert [stored.get(f"{i}-{k}") for i in range(4) for k in range(10_000)] == list(range(10_000)) * 4

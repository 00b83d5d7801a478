"""Offline language identification for the code-switching rate (lyss.metrics.behavioural): which words of
an output a real language identifier assigns to the source language.

lingua-language-detector (PyPI, Apache-2.0) bundles n-gram models of 75 languages and no download is ever
made. It reads a word in its context (`detect_multiple_languages_of`), so a Yoruba sentence with three
English words spliced in gives an English span for just those words, where a word list would have to judge
each word alone ("no", "hotel", "die" are words of several languages; Yoruba "ore", friend, is English
"ore" to a word list). Only the pair's two languages are
loaded (`LanguageDetectorBuilder.from_languages`), so the question asked is the one the metric has ("source
or target?") and loading costs two models, not 75. Detectors are built on first use and kept for the process:
`lyss score` and every rule job pay for a pair once.

A pair that lingua does not cover (Hausa, Amharic, Northern Sami, Cree…) has no identifier here, and the
metric keeps its word-list rules (`lyss.metrics.behavioural.CodeSwitchingRate`).
"""

import functools
from importlib import metadata

PACKAGE = "lingua-language-detector"


@functools.lru_cache(maxsize=1)
def identifier_version() -> str | None:
    """`lingua-language-detector <version>`, or None when the package is not installed."""
    try:
        return f"{PACKAGE} {metadata.version(PACKAGE)}"
    except metadata.PackageNotFoundError:
        return None


def lingua_language(code: str):
    """lingua's Language for an ISO 639-3 code, or None when lingua has no model for it."""
    from lingua import IsoCode639_3, Language

    try:
        return Language.from_iso_code_639_3(IsoCode639_3.from_str(code))
    except ValueError:
        return None


@functools.lru_cache(maxsize=16)
def pair_detector(source: str, target: str):
    """A detector that tells `source` from `target` (ISO 639-3), or None when lingua is not installed or
    knows one of them not. Built once per process and pair."""
    if identifier_version() is None or source == target:
        return None
    languages = (lingua_language(source), lingua_language(target))
    if None in languages:
        return None
    from lingua import LanguageDetectorBuilder

    return LanguageDetectorBuilder.from_languages(*languages).build()


# Per (detector, source language): the confidence of every word read so far. A word's confidence does not
# depend on the words read beside it, and the oracle check reads the references' words, most of which the
# outputs share. Keyed by the detector itself (pair_detector keeps at most 16 for the process).
_CONFIDENCE: dict[tuple[object, str], dict[str, float]] = {}


def alone_source_words(detector, source: str, words: set[str]) -> set[str]:
    """The words that the detector, reading each alone, gives the source language with confidence above
    one half (of the pair). One parallel call over the distinct words not read before in this process."""
    known = _CONFIDENCE.setdefault((detector, source), {})
    new = sorted(w for w in words if w not in known)
    if new:
        known.update(zip(new, detector.compute_language_confidence_in_parallel(new, lingua_language(source)),
                         strict=True))
    return {w for w in words if known[w] > 0.5}


def context_source_words(detector, source: str, texts: list[str], tokenise) -> list[set[str]]:
    """For each text, the casefolded words (cut by `tokenise`) inside the spans that
    `detect_multiple_languages_of` assigns to the source language. One parallel call over the texts.
    Spans can run past a switch: in "Ọmọ náà ń sùn very peacefully lónìí." the English span also takes the
    Yoruba "lónìí", which alone is Yoruba; the metric asks for both readings."""
    language = lingua_language(source)
    return [{w.casefold() for r in results if r.language == language
             for w in tokenise(text[r.start_index:r.end_index])}
            for text, results in zip(texts, detector.detect_multiple_languages_in_parallel_of(texts), strict=True)]

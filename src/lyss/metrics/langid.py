"""Offline language identification for the code-switching rate (lyss.metrics.behavioural): which words of
an output a real language identifier assigns to the source language.

lingua-language-detector (PyPI, Apache-2.0) bundles n-gram models of 75 languages and no download is ever
made. It reads a word in its context (`detect_multiple_languages_of`), so a Yoruba sentence with three
English words spliced in gives an English span for just those words, where a word list would have to judge
each word alone ("no", "hotel", "die" are words of several languages; Yoruba "ore", friend, is English
"ore" to a word list). Only the pair's two languages are
loaded (`LanguageDetectorBuilder.from_languages`), so the question asked is the one the metric has ("source
or target?") and loading costs two models, not 75. Detectors are built on first use and kept for the process:
`lyss score` and every rule job pay for a pair once, and only for words and texts that no process read before
(the answers are kept on disk: `lyss.metrics.lookups`).

A pair that lingua does not cover (Hausa, Amharic, Northern Sami, Cree…) has no identifier here, and the
metric keeps its word-list rules (`lyss.metrics.behavioural.CodeSwitchingRate`).
"""

import functools
from importlib import metadata

from lyss.metrics import lookups

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
    knows one of them not. Built once per process and pair; its models load on its first question."""
    if identifier_version() is None or source == target:
        return None
    languages = (lingua_language(source), lingua_language(target))
    if None in languages:
        return None
    from lingua import LanguageDetectorBuilder

    detector = LanguageDetectorBuilder.from_languages(*languages).build()
    _PAIRS[detector] = (source, target)
    return detector


def load_models(source: str, target: str) -> None:
    """Load lingua's models of the pair now, where its first question would have (a worker warming up,
    lyss.metrics.warm_up). lingua keeps loaded models for the whole process, so the detector of `pair_detector`
    reads them without loading. Nothing when the pair has no detector."""
    if pair_detector(source, target) is None:
        return
    from lingua import LanguageDetectorBuilder

    LanguageDetectorBuilder.from_languages(lingua_language(source), lingua_language(target)) \
        .with_preloaded_language_models().build()


# The pair each detector of `pair_detector` tells apart: its answers depend on the pair, and are stored under it.
_PAIRS: dict[object, tuple[str, str]] = {}


def _answers(detector, source: str, question: str) -> lookups.LookupStore:
    """The lookup store (lyss.metrics.lookups) of `question` asked of `detector` about `source`: answers
    already given in this process or stored by an earlier one, so that words and texts read before need no
    model loaded."""
    pair = "-".join(sorted(_PAIRS[detector]))
    return lookups.store(f"{identifier_version()} {question} {source} among {pair}")


def alone_source_words(detector, source: str, words: set[str]) -> set[str]:
    """The words that the detector, reading each alone, gives the source language with confidence above
    one half (of the pair). One parallel call over the distinct words not read before. A word's reading does
    not depend on the words read beside it, and the oracle check reads the references' words, most of which
    the outputs share. `detector` comes from `pair_detector`."""
    answers = _answers(detector, source, "alone")
    new = sorted(w for w in words if answers.get(w) is None)
    if new:
        confidences = detector.compute_language_confidence_in_parallel(new, lingua_language(source))
        for word, confidence in zip(new, confidences, strict=True):
            answers.put(word, confidence > 0.5)
        answers.flush()
    return {w for w in words if answers.get(w)}


def context_source_words(detector, source: str, texts: list[str], tokenise) -> list[set[str]]:
    """For each text, the casefolded words (cut by `tokenise`) inside the spans that
    `detect_multiple_languages_of` assigns to the source language. One parallel call over the texts not
    read before (the spans of a text are its own). Spans can run past a switch: in "Ọmọ náà ń sùn very
    peacefully lónìí." the English span also takes the Yoruba "lónìí", which alone is Yoruba; the metric
    asks for both readings."""
    answers = _answers(detector, source, "source spans")
    new = [t for t in dict.fromkeys(texts) if answers.get(t) is None]
    if new:
        language = lingua_language(source)
        for text, results in zip(new, detector.detect_multiple_languages_in_parallel_of(new), strict=True):
            answers.put(text, [[r.start_index, r.end_index] for r in results if r.language == language])
        answers.flush()
    return [{w.casefold() for start, end in answers.get(text) for w in tokenise(text[start:end])} for text in texts]

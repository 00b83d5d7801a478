"""Word tokenisation per language card, shared by every word-level metric.

FST acceptance, terminology, code-switching and the orthography checks must agree on what a "word"
is, or their numbers cannot be compared. A word is a run of letters (Unicode L*/M*, plus the card's
`word_tokenisation.extra_letters`) with at least one Unicode letter, which may contain the card's joiners
(apostrophes, hyphens) between letters. Numbers, codes with digits (`B12`, `IB3456`), punctuation,
`{placeholders}`, URLs and e-mail addresses are not words of any language, so they are dropped before
anything is counted. A digit that an orthography uses as a letter (the glottal stop "7" in
Sḵwx̱wú7mesh) is declared in `extra_letters`.

The sentence split and the "has letters or digits" test live here too: the embedding stage (lyss.embed)
and the metrics must cut and skip the same texts, and neither should import the other for it.
"""

import functools
import unicodedata

import regex

DEFAULT_JOINERS = ("'", "’", "-")
# Not language material: removed before tokenising so that `{date}` or a URL never counts as a word.
NON_LINGUISTIC = regex.compile(r"\{[^{}\s]*\}|\b[a-z][a-z0-9+.-]*://\S+|\bwww\.\S+|\S+@\S+\.\w+",
                               regex.IGNORECASE)
_LETTER = regex.compile(r"\p{L}")
_DIGIT = regex.compile(r"\p{N}")
SENTENCE_END = regex.compile(r"(?<=[.!?…。！？])\s+|\n+")
CONTENT = regex.compile(r"[\p{L}\p{N}]")


@functools.lru_cache(maxsize=64)
def _token_pattern(joiners: tuple[str, ...], extra_letters: str) -> regex.Pattern:
    body = r"[\p{L}\p{M}\p{N}" + regex.escape(extra_letters) + "]" if extra_letters else r"[\p{L}\p{M}\p{N}]"
    joiner = "[" + "".join(regex.escape(j) for j in joiners) + "]" if joiners else None
    return regex.compile(f"{body}+(?:{joiner}{body}+)*" if joiner else f"{body}+")


def tokenisation_settings(card: dict) -> tuple[tuple[str, ...], str]:
    """(joiners, extra letters) from the card's `word_tokenisation`, with the defaults filled in."""
    rules = card.get("word_tokenisation") or {}
    return tuple(rules.get("joiners", DEFAULT_JOINERS)), "".join(rules.get("extra_letters", []))


def words(text: str, card: dict) -> list[str]:
    """The word tokens of `text` (NFC), in order, without punctuation, numbers, placeholders or URLs."""
    if not text:
        return []
    return list(_words(text, *tokenisation_settings(card)))


@functools.lru_cache(maxsize=1 << 16)
def _words(text: str, joiners: tuple[str, ...], extra: str) -> tuple[str, ...]:
    """`words`, remembered per text and tokenisation: the word metrics and the oracle check tokenise the same
    sources, references and outputs a dozen times in one run (a tuple, so no caller changes the kept copy)."""
    cleaned = NON_LINGUISTIC.sub(" ", unicodedata.normalize("NFC", text))
    return tuple(t for t in _token_pattern(joiners, extra).findall(cleaned)
                 if _LETTER.search(t) and not (_DIGIT.search(t) and any(_DIGIT.match(c) and c not in extra for c in t)))


def sentences(text: str) -> list[str]:
    """Sentences split after . ! ? … (and CJK stops) followed by space, and at line breaks."""
    return [s for s in SENTENCE_END.split(text.strip()) if s.strip()] if text else []


def has_content(text: str | None) -> bool:
    return bool(text) and CONTENT.search(text) is not None

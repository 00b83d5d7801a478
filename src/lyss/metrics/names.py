"""Invented names for the hallucination rate (lyss.metrics.behavioural): which output words look like names
in the target language's writing, and whether such a word has a counterpart in the source or the reference.

Capitals mark names only where the orthography reserves them for names. German capitalises every noun, so a
German noun that the reference words differently (Haus → Gebäude, Sitzung → Treffen) looked invented to the
capital-letter rule; a script without case (Arabic, Devanagari, Ethiopic…) marks nothing either. The card
says which: `capitalises_nouns` (data/languages/deu.yaml) and `caseless` (from CLDR). What is left as name
evidence is, per language:
  - an acronym (two or more letters, all capitals), in every cased script;
  - Latin letters in a target none of whose scripts is Latin (an untransliterated name or code);
  - a capital letter inside a sentence, where the language capitalises names and not nouns.
A suspected name is not invented when a word of the source or the reference is the same word, a form of it
(Einstein → Einsteins, Obama → Obamas) or its transliteration (Obama → Обама → obama): `Counterparts`.
"""

import difflib
import functools
import os
from collections.abc import Callable

import regex

LATIN = regex.compile(r"\p{sc=Latn}")
# Two spellings are one name when they share a prefix of at least this share of the shorter one and at least
# MIN_PREFIX letters (inflection adds endings: Einsteins, Обамы → obamy) or difflib finds them this similar
# (Europea / European 0.93). Exonyms are no match (Londres / London 0.62, Moskau / Moscow 0.50, Tschaikowski /
# Tchaikovsky 0.78): they rest on the sentence-alignment condition of the metric.
PREFIX_SHARE = 0.75
MIN_PREFIX = 4
SIMILARITY = 0.8


def looks_like_name(word: str, sentence_initial: bool, card: dict) -> bool:
    """Whether the target language's writing marks `word` as a name, code or title (see the module doc)."""
    scripts = card.get("scripts") or []
    if scripts and "Latn" not in scripts and LATIN.search(word):
        return True
    if card.get("caseless"):
        return False
    if len(word) > 1 and word.isupper():
        return True
    return not card.get("capitalises_nouns", False) and word[:1].isupper() and not sentence_initial


@functools.lru_cache(maxsize=1)
def _to_latin():
    """ICU's transliterator to plain ASCII Latin, for every script ICU knows (offline, CLDR's rules)."""
    import icu

    return icu.Transliterator.createInstance("Any-Latin; Latin-ASCII")


@functools.lru_cache(maxsize=1 << 16)
def spelling_key(word: str) -> str:
    """The casefolded ASCII letters of a word's transliteration: Обама → obama, Müller → muller."""
    return "".join(c for c in _to_latin().transliterate(word).casefold() if c.isalnum())


def same_name(a: str, b: str) -> bool:
    """Two spelling keys that are one name (PREFIX_SHARE, MIN_PREFIX, SIMILARITY)."""
    if a == b:
        return True
    shorter = min(len(a), len(b))
    if shorter < MIN_PREFIX:
        return False
    prefix = len(os.path.commonprefix([a, b]))
    if prefix >= MIN_PREFIX and prefix >= PREFIX_SHARE * shorter:
        return True
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= SIMILARITY


class Counterparts:
    """The words of an entry's source and reference, looked up exactly (casefolded) or as a spelling of the
    same name (`same_name` on their `spelling_key`). `words` gives them on the first lookup: most entries
    have none (only a name-like word of a weakly aligned sentence is looked up), and a key is a
    transliteration per word."""

    def __init__(self, words: Callable[[], list[str]]):
        self._words = words

    @functools.cached_property
    def _lookup(self) -> tuple[set[str], set[str]]:
        words = self._words()
        return {w.casefold() for w in words}, {spelling_key(w) for w in words} - {""}

    def __contains__(self, word: str) -> bool:
        exact, keys = self._lookup
        if word.casefold() in exact:
            return True
        key = spelling_key(word)
        return bool(key) and any(same_name(key, other) for other in keys)

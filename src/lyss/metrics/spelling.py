"""Hunspell spelling dictionaries as evidence that a word is a word of the target language.

The code-switching rate (lyss.metrics.behavioural) counts an output word as a switch when it is a common source-language
word that nothing places in the target language. Word lists cannot place homographs: German "still" (quiet),
"miserable" and "separate" are ten to twenty times more frequent in English than in German, and wordfreq's German
list also holds "the" and "house" (German web text quotes English), so frequencies tell neither way. A spelling
dictionary does: Debian's de_DE accepts "still", "miserable", "separate", "Stummfilm", "ausgefeiltere" and rejects
"house", "silent", "movie", "the". Where a card has no FST analyzer (the other target evidence), this is the one
that knows the language's inflection.

Only dictionaries measured to be selective are named in cards (`spelling_dictionary`): several of Debian's accept
English words wholesale (of the 200 most frequent English words of three letters or more, pl_PL accepts 93, nl 70,
da_DK 57, uk_UA all 200), which would hide real switches; cards name the ones that accept at most 30
(docs/languages.md, "Spelling dictionaries").

spylls (pure Python, MPL-2.0) reads the .aff/.dic pair; it needs 0.3–6 s to load a shipped card's dictionary, so
answers are kept on disk (`lyss.metrics.lookups`, keyed by the files' digest) and a dictionary is loaded only for
words not asked about before.
"""

import functools
import hashlib
from importlib import metadata
from pathlib import Path

from lyss.languages import missing_fact_reason
from lyss.metrics import lookups


class SpellingUnavailable(Exception):
    """The card names no dictionary, or its files are missing or unreadable; the message says which and what to
    install."""


def _version(dic: Path) -> tuple:
    """The files as they are now (path, size and change time of both): what the process's memory is keyed by, so a
    dictionary upgraded while a process runs is read again."""
    return tuple((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in (dic, dic.with_suffix(".aff")))


@functools.lru_cache(maxsize=16)
def _digest(version: tuple) -> str:
    """The first 12 hex digits of SHA-256 over the .aff and .dic bytes: what the answers depend on."""
    digest = hashlib.sha256()
    for path in (version[1][0], version[0][0]):
        digest.update(Path(path).read_bytes())
    return digest.hexdigest()[:12]


@functools.lru_cache(maxsize=16)
def _load(version: tuple):
    from spylls.hunspell import Dictionary

    return Dictionary.from_files(str(Path(version[0][0]).with_suffix("")))


def card_files(card: dict) -> list[Path]:
    """The .dic and .aff files the card's `spelling_dictionary` names (none without one), present or not."""
    spec = card.get("spelling_dictionary")
    dic = Path(spec["path"]).expanduser() if spec else None
    return [dic, dic.with_suffix(".aff")] if dic else []


def dictionary_path(card: dict, code: str | None = None) -> Path:
    """The card's `.dic` file (its `.aff` beside it); SpellingUnavailable naming card, path and package."""
    spec = card.get("spelling_dictionary")
    code = card.get("code") or code or "?"
    if not spec:
        raise SpellingUnavailable(missing_fact_reason(card, "spelling_dictionary", code))
    dic, aff = card_files(card)
    missing = [p for p in (dic, aff) if not p.is_file()]
    if missing:
        install = f": install Debian package {spec['package']}" if spec.get("package") else ""
        raise SpellingUnavailable(f"spelling dictionary {str(missing[0])!r} of language card {code!r} does not "
                                  f"exist{install}")
    return dic.resolve()


def signature(dic: Path) -> str:
    """`<file>@<digest>`: which dictionary, down to its bytes (for a metric's signature)."""
    return f"{dic.name}@{_digest(_version(dic))}"


# Shorter words are never taken as evidence: dictionaries list letters, abbreviations and foreign particles there
# (de_DE "a", "i", "s"; sw_TZ "to", "it", "we", "do": a Swahili output with English "to" left in it would count
# 115 words fewer on MAFAND dev), and the short words of two languages collide most.
MIN_LETTERS = 3


def accepted_words(dic: Path, words) -> set[str]:
    """The words of at least MIN_LETTERS letters that the dictionary accepts (Hunspell's own case rules: "Still"
    and "STILL" as "still", "haus" not as "Haus"). Answers come from the lookup store when asked before; the
    dictionary loads only for new words (SpellingUnavailable when it cannot be read)."""
    words = {w for w in words if sum(c.isalpha() for c in w) >= MIN_LETTERS}
    answers = lookups.store(f"spylls {metadata.version('spylls')} hunspell {signature(dic)}")
    new = sorted(w for w in words if answers.get(w) is None)
    if new:
        try:
            dictionary = _load(_version(dic))
        except Exception as err:  # whatever the reader raises on a file that is no Hunspell dictionary
            raise SpellingUnavailable(f"cannot read spelling dictionary {str(dic)!r}: "
                                      f"{type(err).__name__}: {err}") from None
        for word in new:
            answers.put(word, _lookup(dictionary, word))
        answers.flush()
    return {w for w in words if answers.get(w)}


def _lookup(dictionary, word: str) -> bool:
    """Hunspell's answer; False where spylls fails on the word (0.1.7 raises IndexError on "İstanbul" with de_DE,
    whose lower case is one character longer): a word the reader cannot read is no evidence for the language."""
    try:
        return bool(dictionary.lookup(word))
    except Exception:  # any failure inside the reader's case and affix handling
        return False

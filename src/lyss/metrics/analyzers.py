"""Morphological analyzers behind one batched interface: HFST optimized-lookup and lttoolbox.

Word-level metrics look up every distinct word of a corpus at once: `.hfstol` transducers are read
once with pyhfst (pure Python, no compiled HFST needed); lttoolbox `.bin` analyzers (every Apertium
package ships them) run as ONE `lt-proc` process per batch instead of one per word. Analyzers are
cached per process and per path, and remember every word they have seen.

Both backends are asked case-sensitively (lt-proc `-c`), so that case handling is the same for both
and is recorded: `analyse_words` tries the word as written, then in lower case, then (for all-caps
words) capitalised, and reports which of these was accepted.
"""

import functools
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from lyss.languages import missing_fact_reason

LT_PROC = "lt-proc"
# Characters with a meaning in the Apertium stream format; escaped with a backslash on input.
_APERTIUM_RESERVED = re.compile(r"([\\^$/<>\[\]{}@*#+~])")
_LEXICAL_UNIT = re.compile(r"\^((?:\\.|[^$\\])*)\$")
_UNESCAPED_SLASH = re.compile(r"(?<!\\)/")
_APERTIUM_TAG = re.compile(r"<[^>]*>")


class AnalyzerUnavailable(Exception):
    """The card's analyzer cannot be used here (missing file or tool); the message says why."""


@dataclass(frozen=True)
class WordAnalysis:
    """The analyses of one word and how it was accepted: `exact`, `lowercase`, `titlecase`, or None."""

    analyses: tuple[str, ...]
    method: str | None

    @property
    def accepted(self) -> bool:
        return self.method is not None


class HfstolAnalyzer:
    """An HFST optimized-lookup transducer (`.hfstol`), e.g. a GiellaLT `analyser-gt-desc.hfstol`."""

    backend = "hfstol"

    def __init__(self, path: Path):
        import pyhfst

        self.path = path
        self._transducer = pyhfst.HfstInputStream(str(path)).read()
        self._memo: dict[str, tuple[str, ...]] = {}

    def lookup(self, words) -> dict[str, tuple[str, ...]]:
        for word in set(words) - self._memo.keys():
            self._memo[word] = tuple(sorted({a for a, _weight in self._transducer.lookup(word)}))
        return {w: self._memo[w] for w in words}


class LttoolboxAnalyzer:
    """An lttoolbox analyzer (`.bin`), run as one `lt-proc -c -z` process per batch of new words.

    lt-proc segments its input itself (a hyphenated word may become several lexical units); a word
    counts as analysed only when every unit it was split into has an analysis, and its analyses are
    those of all its units.
    """

    backend = "lttoolbox"

    def __init__(self, path: Path):
        # lt-proc reads any file without complaint and then knows no word: check the header instead of
        # reporting every word as rejected.
        with open(path, "rb") as handle:
            if handle.read(4) != b"LTTB":
                raise ValueError("not an lttoolbox binary (no LTTB header; lttoolbox ≥ 3.5 writes one)")
        self.path = path
        self._memo: dict[str, tuple[str, ...]] = {}

    def lookup(self, words) -> dict[str, tuple[str, ...]]:
        new = sorted(set(words) - self._memo.keys())
        if new:
            # A blank before each NUL: without it lt-proc 3.7 drops the text after a hyphen in -z mode.
            stream = "".join(_APERTIUM_RESERVED.sub(r"\\\1", w) + " \0" for w in new)
            done = subprocess.run([LT_PROC, "-c", "-z", str(self.path)], input=stream.encode(),
                                  capture_output=True, check=False)
            chunks = done.stdout.decode().split("\0")
            if done.returncode != 0 or len(chunks) < len(new):
                raise AnalyzerUnavailable(f"lt-proc cannot analyse with {str(self.path)!r} (exit {done.returncode}, "
                                          f"{len(chunks) - 1} results for {len(new)} words): "
                                          f"{done.stderr.decode().strip()}")
            for word, chunk in zip(new, chunks, strict=False):
                self._memo[word] = _parse_chunk(chunk)
        return {w: self._memo[w] for w in words}


def _parse_chunk(chunk: str) -> tuple[str, ...]:
    """Analyses of one lt-proc output chunk; empty when any lexical unit is unknown (`*word`)."""
    analyses = []
    units = _LEXICAL_UNIT.findall(chunk)
    for unit in units:
        readings = _UNESCAPED_SLASH.split(unit)[1:]
        if not readings or any(r.startswith("*") for r in readings):
            return ()
        analyses.extend(r.replace("\\", "") for r in readings)
    return tuple(dict.fromkeys(analyses)) if units else ()


BACKENDS = {"hfstol": HfstolAnalyzer, "lttoolbox": LttoolboxAnalyzer}


@functools.lru_cache(maxsize=16)
def _load(backend: str, path: str):
    return BACKENDS[backend](Path(path))


def card_files(card: dict) -> list[Path]:
    """The file the card's `fst_analyzer` names (none without one), present or not."""
    spec = card.get("fst_analyzer")
    return [Path(spec["path"]).expanduser()] if spec else []


def load_analyzer(card: dict, code: str | None = None):
    """The card's analyzer, cached per process; AnalyzerUnavailable (naming card and path) if unusable.
    `code` names the language when the card itself is empty (a card built in code)."""
    spec = card.get("fst_analyzer")
    code = card.get("code") or code or "?"
    if not spec:
        raise AnalyzerUnavailable(missing_fact_reason(card, "fst_analyzer", code))
    (path,) = card_files(card)
    if not path.is_file():
        install = f": install Debian package {spec['package']}" if spec.get("package") else ""
        raise AnalyzerUnavailable(f"FST analyzer {str(path)!r} of language card {code!r} does not exist{install}")
    if spec["backend"] == "lttoolbox" and shutil.which(LT_PROC) is None:
        raise AnalyzerUnavailable(f"{LT_PROC} (lttoolbox) is not installed; needed by language card {code!r}")
    try:
        return _load(spec["backend"], str(path.resolve()))
    except Exception as err:  # whatever a reader raises on a file that is not a transducer
        raise AnalyzerUnavailable(f"cannot read FST analyzer {str(path)!r} of card {code!r}: "
                                  f"{type(err).__name__}: {err}") from None


def _case_candidates(word: str, caseless: bool) -> list[tuple[str, str]]:
    """(method, form) pairs to try after the exact form; none for caseless scripts."""
    if caseless:
        return []
    candidates = []
    if word.lower() != word:
        candidates.append(("lowercase", word.lower()))
    if word.isupper() and len(word) > 1 and word.capitalize() != word:
        candidates.append(("titlecase", word.capitalize()))
    return candidates


def analyse_words(analyzer, words, caseless: bool = False) -> dict[str, WordAnalysis]:
    """Look up each distinct word: as written, then its case variants; two batches in all."""
    distinct = list(dict.fromkeys(words))
    exact = analyzer.lookup(distinct)
    pending = {w: _case_candidates(w, caseless) for w in distinct if not exact[w]}
    fallback = analyzer.lookup([form for options in pending.values() for _, form in options])
    result = {}
    for word in distinct:
        if exact[word]:
            result[word] = WordAnalysis(exact[word], "exact")
            continue
        found = next(((m, f) for m, f in pending[word] if fallback[f]), None)
        result[word] = WordAnalysis(fallback[found[1]], found[0]) if found else WordAnalysis((), None)
    return result


def lemmas(analysis: str) -> set[str]:
    """The lemmas in one analysis string, for the two tag conventions in use.

    Apertium: `de<pr>+el<det><def><m><sg>` → {de, el} (tags in angle brackets, `+` joins units).
    GiellaLT: `PV/e+nipâw+V+AI+Ind+3Sg` → {nipâw}: the first `+` field that is not a prefix tag
    (prefix tags contain `/`: PV/…, Der/…, Err/…); `#` separates compound parts.
    """
    if "<" in analysis:
        return {_APERTIUM_TAG.sub("", part).replace("#", "") for part in analysis.split("+")} - {""}
    found = set()
    for part in analysis.split("#"):
        fields = [f for f in part.split("+") if f and "/" not in f]
        if fields:
            found.add(fields[0])
    return found

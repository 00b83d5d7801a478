"""`orthographic_accuracy` (spec §2.2): the share of output words written by the target language's
orthography, for every language.

Four checks; a word is correct when none finds a problem:

- **Corpus spelling** (every language). The corpus's references are the spelling authority: a word that
  is not a reference word (case folded) but equals one once diacritics are folded away (NFD, then the
  combining diacritical marks U+0300–036F, 1AB0–1AFF, 1DC0–1DFF, 20D0–20FF, FE20–FE2F dropped) is misspelt:
  Yoruba "sugbon" for "ṣùgbọ́n", Sami "rahkistan" for "ráhkistan". Script-specific vowel signs and viramas
  (Devanagari, Gujarati…) are not diacritics and are never folded: folding them would merge distinct words.
  A word that matches no reference word in either form is not judged by this check (unknown is not wrong).
  Two spellings can both be words ("konnten"/"könnten", "schon"/"schön", "esta"/"está"): where wordfreq has a
  list for the language, a folded match is no error when the output's form is at least a tenth as frequent as
  the reference's (Zipf ≥ the reference form's − 1). Web text also carries unaccented misspellings, so
  frequency alone would not do: "uber" (Zipf 4.1) for "über" (6.4), "tambien" (5.0) for "también" (6.2) and
  "eleve" (2.7) for "élève" (4.7) stay errors.
- **Rule set** (cards that declare one). A card's `orthography` is either inline rules or
  `{ruleset: <name>}`, naming the packaged file `lyss/eval_standards/<name>/orthography.yaml`:
    - `letters`: every letter the orthography uses (lower case; words are case-folded before checking),
    - `forbidden`: [{pattern, reason}] regular expressions that mark a word as misspelt,
    - `conventions`: {group: {alternative: characters}}, e.g. long vowels with circumflex OR macron; one
      entry must keep to one alternative per group, so words written in a minority alternative of the
      entry (ties: the alternative listed first wins) count as wrong. Alternatives of equal length are
      aligned character by character, so the corpus-spelling check takes "nipāw" for the reference's
      "nipâw" (SRO allows both) rather than for a wrong diacritic.
- **CLDR exemplars** (cards without a rule set whose language CLDR has locale data for, via ICU): a word
  with a letter or mark outside the locale's standard and auxiliary exemplar characters (decomposed, so
  "ẹ́" allows e, U+0323 and U+0301) is misspelt, unless the word is a name, acronym or code of the entry's
  source (copied as written; a plain source word is not: a copied English sentence is no Amharic or Swahili
  spelt right) or occurs in a reference of the corpus (the references define the corpus's
  spelling, and the reference itself must score the ideal 1.0 when scored as an output).

- **Word boundaries** (every language; `_Spacing`): a word glued to the next (missing space) and a word
  cut by a space, judged against the references and wordfreq; not "two words joined" where the card says
  the language writes compounds closed (`closed_compounds`, German).

Per entry: correct words / words; corpus: Σ correct / Σ words. Because every reference word is a corpus
word, the reference scored as an output passes the first, third and fourth checks by construction; a rule
set can still reject it (then the reference check marks the metric invalid on that dataset, as it should).
"""

import functools
import unicodedata
from collections import Counter
from importlib import resources

import jsonschema
import numpy as np
import regex
import yaml

from lyss.errors import InputError
from lyss.languages import card_schema, cldr_locale
from lyss.metrics import lookups
from lyss.metrics.base import MetricResult, ScoringInput
from lyss.metrics.behavioural import load_wordlist, wordfreq_language, words_with_position, zipf_frequency
from lyss.metrics.names import looks_like_name
from lyss.metrics.rates import WORD_NOTE, most_frequent, rate_result
from lyss.text import tokenisation_settings, words

SHOWN = 10
DIACRITICS = regex.compile(r"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
OUTSIDE_ALPHABET = "letters outside the alphabet"
OUTSIDE_EXEMPLARS = "letters outside the CLDR exemplar characters"
DIACRITICS_DIFFER = "diacritics differ from the corpus spelling"
MISSING_SPACE = "missing space"
SPURIOUS_SPACE = "space inside a word"
# A folded match is a word in its own right when at least a tenth as frequent as the reference spelling (Zipf).
ZIPF_MARGIN = 1.0
# A half of a glued word is "frequent" in wordfreq from Zipf 3 (once per million words) on; each half has at
# least two grapheme clusters, so one-letter particles ("a", Marathi "व") never make a split.
FREQUENT_ZIPF = 3.0
MIN_HALF = 2
_GRAPHEME = regex.compile(r"\X")


def load_ruleset(card: dict) -> dict | None:
    """The card's orthography rules (inline or packaged), or None when the card declares none.
    A packaged rule set is checked against the same schema as inline rules in a card."""
    spec = card.get("orthography")
    if not spec or "ruleset" not in spec:
        return spec or None
    path = resources.files("lyss.eval_standards").joinpath(spec["ruleset"], "orthography.yaml")
    rules = yaml.safe_load(path.read_text("utf-8"))
    errors = list(jsonschema.Draft202012Validator(card_schema()["properties"]["orthography"]["oneOf"][1])
                  .iter_errors(rules))
    if errors:
        raise InputError(path, errors[0].message, field=".".join(map(str, errors[0].path)) or None)
    return rules


def fold_diacritics(word: str) -> str:
    """Case folded, decomposed, combining diacritical marks dropped, recomposed."""
    return unicodedata.normalize("NFC", DIACRITICS.sub("", unicodedata.normalize("NFD", word.casefold())))


@functools.lru_cache(maxsize=64)
def exemplar_characters(code: str) -> frozenset[str] | None:
    """The code points of CLDR's standard and auxiliary exemplar characters of the language (decomposed,
    case folded), or None when ICU has no locale data for it (ICU would answer with the root locale's a–z)."""
    import icu

    locale = cldr_locale(code)
    if locale is None or locale not in icu.Locale.getAvailableLocales():
        return None
    data = icu.LocaleData(locale)
    kinds = icu.ULocaleDataExemplarSetType
    chars = set()
    for kind in (kinds.ES_STANDARD, kinds.ES_AUXILIARY):
        for item in data.getExemplarSet(0, kind):
            chars |= set(unicodedata.normalize("NFD", item.casefold()))
    return frozenset(chars)


class _Lexicon:
    """The corpus's reference words (case folded), and their spellings by folded form."""

    def __init__(self, references: list[str], card: dict, canon: dict[str, str], wordlist: str | None = None):
        self.canon = str.maketrans(canon) if canon else None
        self.wordlist = wordlist
        self.forms = {w.casefold() for r in references for w in words(r, card)}
        self.by_fold: dict[str, set[str]] = {}
        for form in self.forms:
            self.by_fold.setdefault(fold_diacritics(form), set()).add(self._key(form))

    def _key(self, form: str) -> str:
        return form.translate(self.canon) if self.canon else form

    def problems(self, word: str) -> list[str]:
        folded = word.casefold()
        if folded in self.forms:
            return []
        spellings = self.by_fold.get(fold_diacritics(folded), set())
        if not spellings or self._key(folded) in spellings or self._also_a_word(folded, spellings):
            return []
        return [f"{DIACRITICS_DIFFER}: {min(spellings)}"]

    def _also_a_word(self, word: str, spellings: set[str]) -> bool:
        """Whether `word` is a word of the language in its own right, as common as the spelling it folds to
        within a factor of ten (see the module docstring)."""
        if self.wordlist is None:
            return False
        ours = zipf_frequency(word, self.wordlist)
        return ours > 0 and ours >= max(zipf_frequency(s, self.wordlist) for s in spellings) - ZIPF_MARGIN


class _Checker:
    """Checks words against one rule set."""

    def __init__(self, rules: dict, card: dict):
        joiners, extra = tokenisation_settings(card)
        self.allowed = set(unicodedata.normalize("NFC", rules["letters"])) | set(joiners) | set(extra)
        self.forbidden = [(regex.compile(f["pattern"]), f["reason"]) for f in rules.get("forbidden", [])]
        self.conventions = {group: {alt: set(chars) for alt, chars in alts.items()}
                            for group, alts in (rules.get("conventions") or {}).items()}
        self.canon = {}  # each alternative's characters → the first alternative's, where they align
        for alts in (rules.get("conventions") or {}).values():
            first, *others = alts.values()
            for other in (o for o in others if len(o) == len(first)):
                self.canon.update(zip(other, first, strict=True))

    def word_problems(self, word: str) -> list[str]:
        folded = word.casefold()
        problems = [f"{OUTSIDE_ALPHABET}: {''.join(sorted(set(folded) - self.allowed))}"] \
            if set(folded) - self.allowed else []
        problems += [reason for pattern, reason in self.forbidden if pattern.search(folded)]
        return problems

    def alternatives(self, word: str) -> dict[str, set[str]]:
        """For each convention group, the alternatives this word uses."""
        folded = set(word.casefold())
        return {g: {a for a, chars in alts.items() if folded & chars} for g, alts in self.conventions.items()}

    def entry_problems(self, tokens: list[str]) -> list[list[str]]:
        """Problems per word, including mixed conventions within the entry."""
        problems = [self.word_problems(w) for w in tokens]
        used = [self.alternatives(w) for w in tokens]
        for group, alts in self.conventions.items():
            tally = Counter(a for u in used for a in u[group])
            if len(tally) < 2:
                continue
            order = list(alts)
            dominant = max(tally, key=lambda a: (tally[a], -order.index(a)))
            for i, u in enumerate(used):
                if u[group] - {dominant}:
                    problems[i].append(f"mixed {group} conventions in one entry "
                                       f"(entry mostly uses {dominant})")
        return problems


class _Exemplars:
    """Letters outside CLDR's exemplars, except in names of the entry's source or words of the references."""

    def __init__(self, allowed: frozenset[str], card: dict, lexicon: _Lexicon):
        joiners, extra = tokenisation_settings(card)
        self.allowed = allowed | set(joiners) | set(unicodedata.normalize("NFD", "".join(extra)).casefold())
        self.lexicon = lexicon

    def entry_problems(self, tokens: list[str], source_words: set[str]) -> list[list[str]]:
        problems = []
        for word in tokens:
            folded = word.casefold()
            outside = set(unicodedata.normalize("NFD", folded)) - self.allowed
            tolerated = folded in source_words or folded in self.lexicon.forms
            problems.append([f"{OUTSIDE_EXEMPLARS}: {''.join(sorted(outside))}"] if outside and not tolerated
                            else [])
        return problems


def source_names(source: str, source_card: dict) -> set[str]:
    """The source's words that an output may copy as written (case folded): names, acronyms and codes as the
    source language's writing marks them (lyss.metrics.names.looks_like_name), and words with a digit. Plain
    source words are no loanwords: an English sentence copied into Amharic is not Amharic spelt right."""
    return {w.casefold() for w, initial in words_with_position(source, source_card)
            if looks_like_name(w, initial, source_card) or any(c.isdigit() for c in w)}


class _Spacing:
    """Word boundaries: a word glued to the next ("मैदानावरउपलब्ध" = मैदानावर + उपलब्ध) and a word split by a
    space ("रुग्ण लयात"), judged against the corpus's references and, where it has a list, wordfreq.

    Missing space: a word that is unknown (no reference word; wordfreq, where it has a list, has never seen
    it) but is two known words joined (reference words, or wordfreq words of Zipf >= 3), each of at least
    two grapheme clusters, cut where a cluster begins (never before a vowel sign, never after a virama),
    and whose second half never ends a longer reference word: where the references attach it (Marathi
    "मध्ये", "वर", Gujarati "માં"), it is a suffix the corpus spells closed, not a word missing its space.
    Languages that write compounds as one word (the card's `closed_compounds`: German Haustür) are not
    checked for it: there two words joined is the orthography. Space inside a word: two adjacent unknown
    tokens whose concatenation is a reference word; both count.

    Every reference word is known, so the reference scored as an output has no boundary error."""

    def __init__(self, lexicon: _Lexicon, card: dict):
        self.lexicon = lexicon
        self.join_check = not card.get("closed_compounds", False)
        self.endings = {"".join(g[i:]) for g in map(_clusters, lexicon.forms) for i in range(1, len(g))}

    def _zipf(self, word: str) -> float:
        if self.lexicon.wordlist is None:
            return 0.0
        return zipf_frequency(word, self.lexicon.wordlist)

    def _unknown(self, word: str) -> bool:
        return word not in self.lexicon.forms and self._zipf(word) == 0

    def _known(self, word: str) -> bool:
        return word in self.lexicon.forms or self._zipf(word) >= FREQUENT_ZIPF

    def glued(self, word: str) -> tuple[str, str] | None:
        """The two known words `word` joins, or None."""
        clusters = _clusters(word)
        for cut in range(MIN_HALF, len(clusters) - MIN_HALF + 1):
            first, second = "".join(clusters[:cut]), "".join(clusters[cut:])
            if (unicodedata.combining(first[-1]) != 9 and not unicodedata.category(second[0]).startswith("M")
                    and second not in self.endings and self._known(first) and self._known(second)):
                return first, second
        return None

    def entry_problems(self, tokens: list[str]) -> list[list[str]]:
        folded = [w.casefold() for w in tokens]
        unknown = [self._unknown(w) for w in folded]
        problems: list[list[str]] = [[] for _ in tokens]
        for i, word in enumerate(folded):
            if unknown[i] and i + 1 < len(folded) and unknown[i + 1] and word + folded[i + 1] in self.lexicon.forms:
                for k in (i, i + 1):
                    problems[k].append(f"{SPURIOUS_SPACE}: {word + folded[i + 1]}")
            elif self.join_check and unknown[i] and not problems[i] and (halves := self.glued(word)):
                problems[i].append(f"{MISSING_SPACE}: {' '.join(halves)}")
        return problems


def _clusters(word: str) -> list[str]:
    """Extended grapheme clusters: a letter with its vowel signs and marks stays one unit."""
    return _GRAPHEME.findall(word)


class OrthographicAccuracy:
    """Share of output words that keep to the corpus's spelling and the language's letters (module docstring)."""

    id = "orthographic_accuracy"
    card_position = 9
    corpus_rows = "stats"
    direction = "higher"
    ideal = 1.0

    @staticmethod
    def warm_up(source_lang: str, target_lang: str, source_card: dict, target_card: dict, options: dict) -> None:
        """The target's word list and letters."""
        load_wordlist(target_lang, target_card)
        exemplar_characters(target_lang)

    def score(self, data: ScoringInput) -> MetricResult:
        n = len(data.entries)
        card = data.target_card
        tokens = [words(p or "", card) for p in data.predictions]
        totals = np.array([len(ws) for ws in tokens], dtype=float)
        if not totals.sum():
            return MetricResult.unavailable(self.id, n, "no prediction contains a word", words=WORD_NOTE)
        rules = load_ruleset(card)
        checker = _Checker(rules, card) if rules else None
        lexicon = _Lexicon(data.references, card, checker.canon if checker else {},
                           wordfreq_language(data.target_lang, card))
        checks = {"corpus_spelling": f"{len(lexicon.forms)} reference word forms"}
        if checker:
            checks["rule_set"] = rules.get("name", "inline rules")
            letters = [checker.entry_problems(ws) for ws in tokens]
        else:
            letters, checks["cldr_exemplars"] = self._exemplar_problems(data, tokens, lexicon)
        spacing = _Spacing(lexicon, card)
        checks["word_boundaries"] = ("space inside a word" if card.get("closed_compounds")
                                     else "missing space, space inside a word")
        boundaries = [spacing.entry_problems(ws) for ws in tokens]
        problems = [[lexicon.problems(w) + extra + gap for w, extra, gap in zip(ws, entry, gaps, strict=True)]
                    for ws, entry, gaps in zip(tokens, letters, boundaries, strict=True)]
        hits = np.array([sum(not p for p in entry) for entry in problems], dtype=float)
        kinds = Counter(k.split(":")[0] for entry in problems for p in entry for k in p)
        bad = Counter(w for ws, entry in zip(tokens, problems, strict=True)
                      for w, p in zip(ws, entry, strict=True) if p)
        details = {"checks": checks, "words": WORD_NOTE, "problems": dict(sorted(kinds.items())),
                   "most_frequent_misspelt": most_frequent(bad, SHOWN)}
        if rules:
            details["ruleset"] = checks["rule_set"]
        lookups.flush_all()
        return rate_result(self.id, hits, totals, details=details)

    @staticmethod
    def _exemplar_problems(data: ScoringInput, tokens, lexicon) -> tuple[list[list[list[str]]], str | None]:
        """Per word, letters outside CLDR's exemplars; and what was checked (None: CLDR has no exemplars)."""
        code = data.target_lang or data.target_card.get("code", "")
        allowed = exemplar_characters(code)
        if allowed is None:
            return [[[] for _ in ws] for ws in tokens], None
        exemplars = _Exemplars(allowed, data.target_card, lexicon)
        problems = [exemplars.entry_problems(ws, source_names(e["source"], data.source_card))
                    for ws, e in zip(tokens, data.entries, strict=True)]
        return problems, f"CLDR {cldr_locale(code)}: standard + auxiliary exemplar characters"

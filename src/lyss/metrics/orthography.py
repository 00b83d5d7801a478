"""`orthographic_accuracy` (spec §2.2): the share of output words written by the target language's
orthography rule set.

Rule sets are data. A card's `orthography` is either inline rules or `{ruleset: <name>}`, naming the
packaged file `lyss/eval_standards/<name>/orthography.yaml`. A rule set has
  - `letters`: every letter the orthography uses (lower case; words are case-folded before checking),
  - `forbidden`: [{pattern, reason}] regular expressions that mark a word as misspelt,
  - `conventions`: {group: {alternative: characters}}, e.g. long vowels with circumflex OR macron; one
    entry must keep to one alternative per group, so words written in a minority alternative of the
    entry (ties: the alternative listed first wins) count as wrong.
A word is correct when all its letters are allowed, no forbidden pattern matches and it keeps to its
entry's conventions. Per entry: correct words / words; corpus: Σ correct / Σ words.
"""

import unicodedata
from collections import Counter
from importlib import resources

import jsonschema
import numpy as np
import regex
import yaml

from lyss.errors import InputError
from lyss.languages import card_schema, missing_fact_reason
from lyss.metrics.base import MetricResult, ScoringInput
from lyss.metrics.rates import WORD_NOTE, most_frequent, rate_result
from lyss.text import tokenisation_settings, words

SHOWN = 10


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


class _Checker:
    """Checks words against one rule set."""

    def __init__(self, rules: dict, card: dict):
        joiners, extra = tokenisation_settings(card)
        self.allowed = set(unicodedata.normalize("NFC", rules["letters"])) | set(joiners) | set(extra)
        self.forbidden = [(regex.compile(f["pattern"]), f["reason"]) for f in rules.get("forbidden", [])]
        self.conventions = {group: {alt: set(chars) for alt, chars in alts.items()}
                            for group, alts in (rules.get("conventions") or {}).items()}

    def word_problems(self, word: str) -> list[str]:
        folded = word.casefold()
        problems = [f"letters outside the alphabet: {''.join(sorted(set(folded) - self.allowed))}"] \
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


class OrthographicAccuracy:
    """Share of output words that follow the target card's orthography rule set."""

    id = "orthographic_accuracy"
    card_position = 9
    corpus_rows = "stats"
    direction = "higher"
    ideal = 1.0

    def score(self, data: ScoringInput) -> MetricResult:
        n = len(data.entries)
        rules = load_ruleset(data.target_card)
        if rules is None:
            reason = missing_fact_reason(data.target_card, "orthography rule set", data.target_lang)
            return MetricResult.unavailable(self.id, n, reason)
        checker = _Checker(rules, data.target_card)
        tokens = [words(p or "", data.target_card) for p in data.predictions]
        problems = [checker.entry_problems(ws) for ws in tokens]
        totals = np.array([len(ws) for ws in tokens], dtype=float)
        if not totals.sum():
            return MetricResult.unavailable(self.id, n, "no prediction contains a word", words=WORD_NOTE)
        hits = np.array([sum(not p for p in entry) for entry in problems], dtype=float)
        kinds = Counter(k.split(":")[0] for entry in problems for p in entry for k in p)
        bad = Counter(w for ws, entry in zip(tokens, problems, strict=True)
                      for w, p in zip(ws, entry, strict=True) if p)
        details = {"ruleset": rules.get("name", "inline rules"), "words": WORD_NOTE,
                   "problems": dict(sorted(kinds.items())),
                   "most_frequent_misspelt": most_frequent(bad, SHOWN)}
        return rate_result(self.id, hits, totals, details=details)

"""`equivalent_match_rate` (spec §2.1, LYSS-eq): is the prediction the reference or an acceptable variant?

Each entry gets a verdict — EXACT (equals the reference, whitespace collapsed), EQUIVALENT (matches
under one of the variant classes below), MISS, or NO_OUTPUT (no or blank prediction) — and the name
of the variant class that matched. Value per entry: 1 for EXACT/EQUIVALENT, else 0; corpus: the mean.

Variant classes are tried in order and are cumulative (a later class also applies every earlier one),
so the class reported is the most permissive one an entry needed:
  listed_variant — equals one of the entry's `variants[]` (whitespace collapsed);
  normalisation  — equal after NFC, case folding, one form of quotes/apostrophes and no space around
                   punctuation (compared with the reference and every variant);
then, with the target language's variant-class rules (YAML; see `VariantRules`), the WORDS of the texts
(`lyss.text.words`, case-folded): first as they are (`punctuation`: only punctuation differs), then after
each class's rewrites. Without language rules this
is the generic cross-language implementation, which the spec ties to per-entry variants: it is null
when no entry has any.
"""

import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import regex
import yaml

from lyss.metrics.base import COUNT, MetricResult, ScoringInput
from lyss.text import words

EXACT, EQUIVALENT, MISS, NO_OUTPUT = "EXACT", "EQUIVALENT", "MISS", "NO_OUTPUT"
_QUOTES = str.maketrans({c: '"' for c in "“”„‟«»‹›〝〞＂"} | {c: "'" for c in "‘’‚‛`´"})
_PUNCT_SPACE = regex.compile(r"\s*([\p{P}\p{S}])\s*")
GENERIC = "generic (variants[] + light normalisation)"
NO_VARIANTS = ("no corpus entry has variants[] and the target language declares no variant-class rules "
               "(spec §2.1: the generic implementation needs per-entry variants)")


def collapse(text: str) -> str:
    return " ".join(text.split())


def light_normalise(text: str) -> str:
    """NFC, case-folded, one form of quotes and apostrophes, no spaces around punctuation."""
    text = unicodedata.normalize("NFC", text).casefold().translate(_QUOTES)
    return collapse(_PUNCT_SPACE.sub(r"\1", text))


@dataclass(frozen=True)
class VariantClass:
    """One class of acceptable variation, as data: word rewrites, and/or order-insensitive comparison.

    `char_map` replaces substrings in each word; `synonyms` maps every word of a group to the group's
    first word; `rewrite` applies regular-expression substitutions to each word; `drop` removes
    optional words; `unordered` compares the words as a multiset (free word order).
    """

    name: str
    char_map: tuple[tuple[str, str], ...] = ()
    synonyms: dict = field(default_factory=dict)
    rewrite: tuple[tuple[regex.Pattern, str], ...] = ()
    drop: frozenset = frozenset()
    unordered: bool = False

    @classmethod
    def from_dict(cls, spec: dict) -> "VariantClass":
        nfc = lambda s: unicodedata.normalize("NFC", s).casefold()  # noqa: E731
        return cls(
            name=spec["name"],
            char_map=tuple((nfc(k), nfc(v)) for k, v in (spec.get("char_map") or {}).items()),
            synonyms={nfc(w): nfc(group[0]) for group in spec.get("synonyms", []) for w in group},
            rewrite=tuple((regex.compile(r["pattern"]), r["replace"]) for r in spec.get("rewrite", [])),
            drop=frozenset(nfc(w) for w in spec.get("drop", [])),
            unordered=bool(spec.get("unordered", False)),
        )

    def apply(self, tokens: list[str]) -> list[str]:
        out = []
        for token in tokens:
            for old, new in self.char_map:
                token = token.replace(old, new)
            token = self.synonyms.get(token, token)
            for pattern, replacement in self.rewrite:
                token = pattern.sub(replacement, token)
            if token and token not in self.drop:
                out.append(token)
        return out


@dataclass(frozen=True)
class VariantRules:
    """A language's ordered variant classes (loaded from YAML: `{language, classes: [...]}`)."""

    language: str
    classes: tuple[VariantClass, ...]

    @classmethod
    def from_yaml(cls, path) -> "VariantRules":
        spec = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        return cls(spec["language"], tuple(VariantClass.from_dict(c) for c in spec["classes"]))

    @property
    def levels(self) -> list[str]:
        """The names of the comparison levels: the words as they are, then each class in turn."""
        return ["punctuation", *(c.name for c in self.classes)]

    def keys(self, text: str, card: dict) -> list[tuple]:
        """The comparison key of `text` at each level: its case-folded words without punctuation, then
        after each class, cumulatively."""
        tokens = [t.casefold() for t in words(text, card)]
        keys, unordered = [tuple(tokens)], False
        for variant_class in self.classes:
            tokens = variant_class.apply(tokens)
            unordered = unordered or variant_class.unordered
            keys.append(tuple(sorted(tokens)) if unordered else tuple(tokens))
        return keys


def judge(prediction: str | None, reference: str, variants: list[str], rules: VariantRules | None,
          card: dict) -> tuple[str, str | None]:
    """(verdict, variant class) of one entry."""
    if prediction is None or not prediction.strip():
        return NO_OUTPUT, None
    if collapse(prediction) == collapse(reference):
        return EXACT, "exact"
    if collapse(prediction) in {collapse(v) for v in variants}:
        return EQUIVALENT, "listed_variant"
    targets = [reference, *variants]
    if light_normalise(prediction) in {light_normalise(t) for t in targets}:
        return EQUIVALENT, "normalisation"
    if rules is not None:
        predicted = rules.keys(prediction, card)
        accepted = [rules.keys(t, card) for t in targets]
        for level, name in enumerate(rules.levels):
            if any(predicted[level] == keys[level] for keys in accepted):
                return EQUIVALENT, name
    return MISS, None


class EquivalentMatch:
    """Generic equivalent match (variants + light normalisation); language plugins pass their rules."""

    id = "equivalent_match_rate"
    card_position = 2
    companions = {"equivalent_matches": (None, COUNT)}
    binary = True
    db_column = "equivalent_match_rate"
    direction = "higher"
    ideal = 1.0
    reads_source = False  # output against reference and variants only
    rules: VariantRules | None = None

    def score(self, data: ScoringInput) -> MetricResult:
        n = len(data.entries)
        if self.rules is None and not any(e.get("variants") for e in data.entries):
            return MetricResult.unavailable(self.id, n, NO_VARIANTS)
        judged = [judge(p, e["reference"], e.get("variants") or [], self.rules, data.target_card)
                  for p, e in zip(data.predictions, data.entries, strict=True)]
        verdicts = [v for v, _ in judged]
        values = np.array([float(v in (EXACT, EQUIVALENT)) for v in verdicts])
        classes = [c or "" for _, c in judged]
        details = {"verdicts": {v: verdicts.count(v) for v in (EXACT, EQUIVALENT, MISS, NO_OUTPUT)},
                   "variant_classes": {c: classes.count(c) for c in dict.fromkeys(c for c in classes if c)},
                   "rules": self.rules.language if self.rules else GENERIC,
                   "entries_with_variants": sum(bool(e.get("variants")) for e in data.entries)}
        return MetricResult(self.id, values, float(values.mean()), stats=values[:, None],
                            counts={"equivalent_matches": int(values.sum())}, details=details,
                            columns={"verdict": verdicts, "variant_class": classes})

"""Compliance metrics of spec §2.5: `compliance_index` (double pass) and `repair_effectiveness`.

Each entry is checked three ways, each giving a score in 0–1 and a count of violations:
  placeholders (60%)  the output's `{placeholders}` equal the source's as a multiset:
                      score = matched / max(#source, #output); violations = the unmatched ones.
  quotes (20%)        every quotation mark of the output is one of the target card's quote characters,
                      and the output has at least as many marks as the source: violations = marks with a
                      wrong character + marks missing against the source; score = 1 − violations /
                      max(#source marks, #output marks). A card without `quotes` accepts any mark.
  casing (20%)        caseless target scripts: no Latin-script word (score = 1 − Latin words / words);
                      cased scripts: each output sentence starts with the case of the reference sentence
                      at the same position (the reference's last sentence for extra ones).
An output without a letter or digit (missing, empty, punctuation only) fails all three (score 0).

Both passes run: on `raw_predictions` and on the post-processed `predictions`; the corpus value is the
post-processed mean, the raw one is in the details. `repair_effectiveness` is Σ fixed / Σ raw violations
(per entry max(0, raw − post)), null when the raw output had no violation or when post-processing changed no
output at all (no repair step: a 0 would blame a repair that never ran). Neither is in the composite:
they are quality gates, not quality scores (spec §2.5).
"""

from collections import Counter

import numpy as np
import regex

from lyss.metrics.base import MetricResult, ScoringInput
from lyss.metrics.rates import rate_result
from lyss.recent import RecentResults
from lyss.text import NON_LINGUISTIC, has_content, sentences, words
from lyss.translate.hooks import (
    DOUBLE_QUOTES,
    PLACEHOLDER,
    SINGLE_QUOTES,
    card_quotes,
    latin_leak_applies,
    quote_positions,
)

WEIGHTS = {"placeholders": 0.6, "quotes": 0.2, "casing": 0.2}
LATIN = regex.compile(r"\p{Latin}")


def _score(violations: int, opportunities: int) -> float:
    return 1.0 - violations / opportunities if opportunities else 1.0


def check_placeholders(source: str, prediction: str) -> tuple[float, int]:
    """Missing and invented placeholders both count: a `{name}` renamed to `{nombre}` is two problems
    for the template engine (an unfilled variable and an unknown one), counted once per side."""
    wanted, found = Counter(PLACEHOLDER.findall(source)), Counter(PLACEHOLDER.findall(prediction))
    opportunities = max(sum(wanted.values()), sum(found.values()))
    violations = opportunities - sum((wanted & found).values())
    return _score(violations, opportunities), violations


def check_quotes(source: str, prediction: str, card: dict) -> tuple[float, int]:
    """Wrong characters and quotations lost against the source; added quotations in the card's
    characters are fine (a translator may quote a term the source did not)."""
    allowed = {c for pair in card_quotes(card) for c in pair} or DOUBLE_QUOTES | SINGLE_QUOTES
    marks = [prediction[i] for i in quote_positions(prediction)]
    expected = len(quote_positions(source))
    violations = sum(m not in allowed for m in marks) + max(0, expected - len(marks))
    return _score(violations, max(expected, len(marks))), violations


def initial_cases(text: str) -> list[bool]:
    """For each sentence with a cased letter: is its first cased letter upper case? Placeholders and
    URLs are skipped (their letters are not the sentence's)."""
    out = []
    for sentence in sentences(NON_LINGUISTIC.sub(" ", text)):
        first = next((c for c in sentence if c.isupper() or c.islower()), None)
        if first is not None:
            out.append(first.isupper())
    return out


def check_casing(prediction: str, reference: str, card: dict) -> tuple[float, int]:
    """Caseless scripts: Latin leakage; cased scripts: sentence-initial case as the reference has it (so
    languages or registers that start with lower case are not penalised for doing so)."""
    if latin_leak_applies(card):
        tokens = words(prediction, card)
        violations = sum(LATIN.search(w) is not None for w in tokens)
        return _score(violations, len(tokens)), violations
    if card.get("caseless"):
        return 1.0, 0
    expected, found = initial_cases(reference), initial_cases(prediction)
    if not expected:
        return 1.0, 0
    if not found:
        return 0.0, 1
    violations = sum(case != expected[min(k, len(expected) - 1)] for k, case in enumerate(found))
    return _score(violations, len(found)), violations


def check_entry(entry: dict, prediction: str | None, card: dict) -> tuple[dict, int]:
    """Component scores and the total number of violations of one output."""
    text = prediction or ""
    checks = {"placeholders": check_placeholders(entry["source"], text),
              "quotes": check_quotes(entry["source"], text, card),
              "casing": check_casing(text, entry["reference"], card)}
    violations = sum(v for _, v in checks.values())
    if not has_content(prediction):
        return dict.fromkeys(WEIGHTS, 0.0), max(violations, 1)
    return {k: s for k, (s, _) in checks.items()}, violations


def double_pass(data: ScoringInput) -> dict:
    """Per-entry index and violations on the raw and on the post-processed output, plus component means."""
    out = {}
    for name, outputs in (("raw", data.raw_predictions), ("post_processed", data.predictions)):
        checked = _checked(data.entries, outputs, data.target_card)
        components = {k: np.array([c[k] for c, _ in checked], dtype=float) for k in WEIGHTS}
        out[name] = {"index": sum(w * components[k] for k, w in WEIGHTS.items()),
                     "violations": np.array([v for _, v in checked], dtype=float),
                     "components": {k: round(float(v.mean()), 6) for k, v in components.items()}}
    return out


# Both metrics of this module run the double pass on the same data, and where nothing post-processes the output
# (`lyss score`) the raw and post-processed outputs are the same lines: one computation serves all four passes.
_LAST_CHECKS = RecentResults(2)


def _checked(entries: list[dict], outputs: list, card: dict) -> list[tuple[dict, int]]:
    """`check_entry` of every output, reused when what it reads (each entry's source and reference, the outputs,
    the card) equals a recent call's (`lyss.recent`); a caller gets its own list."""
    read = (tuple((e["source"], e["reference"]) for e in entries), tuple(outputs), card)
    checked = _LAST_CHECKS.get(read, lambda: [check_entry(e, p, card) for e, p in zip(entries, outputs, strict=True)])
    return [(dict(components), violations) for components, violations in checked]


def _quote_note(card: dict) -> str:
    pairs = card_quotes(card)
    return " ".join("".join(p) for p in pairs) if pairs else "any (the target card declares no quotes)"


class ComplianceIndex:
    id = "compliance_index"
    card_position = 16
    direction = "higher"
    ideal = 1.0

    def score(self, data: ScoringInput) -> MetricResult:
        if not data.entries:
            return MetricResult.unavailable(self.id, 0, "the corpus is empty")
        passes = double_pass(data)
        raw, post = passes["raw"], passes["post_processed"]
        return MetricResult(
            self.id, post["index"], float(post["index"].mean()),
            details={"weights": WEIGHTS, "raw": round(float(raw["index"].mean()), 6),
                     "post_processed": round(float(post["index"].mean()), 6),
                     "components": {"raw": raw["components"], "post_processed": post["components"]},
                     "quote_characters": _quote_note(data.target_card),
                     "casing_check": "no Latin-script words" if latin_leak_applies(data.target_card)
                     else "sentence-initial case as in the reference"},
            columns={"raw_value": raw["index"], "raw_violations": raw["violations"],
                     "violations": post["violations"]},
        )


class RepairEffectiveness:
    id = "repair_effectiveness"
    card_position = 17
    corpus_rows = "stats"
    in_summary = False
    direction = "higher"
    ideal = None

    def score(self, data: ScoringInput) -> MetricResult:
        passes = double_pass(data)
        raw, post = passes["raw"]["violations"], passes["post_processed"]["violations"]
        fixed = np.maximum(raw - post, 0.0)
        details = {"raw_violations": int(raw.sum()), "fixed": int(fixed.sum()),
                   "introduced": int(np.maximum(post - raw, 0.0).sum())}
        if raw.sum() == 0:
            return MetricResult.unavailable(self.id, len(raw), "the raw output has no compliance violation "
                                            "to repair", **details)
        if list(data.raw_predictions) == list(data.predictions):
            return MetricResult.unavailable(self.id, len(raw), "post-processing changed no output (no repair "
                                            "step, as for plain files in `lyss score`, or one that changed "
                                            "nothing): there is no repair to measure", **details)
        return rate_result(self.id, fixed, raw, details=details)

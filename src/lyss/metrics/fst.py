"""Structural metrics of spec §2.2 that need the target language's FST analyzer (LYSS-fst).

`fst_acceptance_rate`: the share of output words that the analyzer accepts (at least one analysis).
`morphological_accuracy`: the share of expected analyses, annotated per corpus entry, that some word
of the prediction carries. Both are rates over words/annotations, so the corpus value is Σ hits / Σ
total (per-entry sufficient statistics `[hits, total]` let the bootstrap resample entries).

Words come from `lyss.text.words` (numbers, codes with digits, punctuation, placeholders and URLs are not
words); every distinct word of the corpus (outputs and references) is looked up in one batch (see
`lyss.metrics.analyzers`).

Why acceptance is robust to names and loanwords: an analyzer's lexicon is finite, so on real text it
rejects names and loanwords that any correct translation carries (on Hindi news references about 10% of
the words). Counted as rejections they would make the reference itself fail its reference check
(lyss.aggregate.oracle) and void the metric exactly on real text. A rejected output word is therefore
*excused* (left out of the rate, neither accepted nor rejected) when the analyzer rejects it in the
reference too — in the entry's own reference, or in the corpus's references, provided they use it at least
as often as the sources do (an English word that slipped into one reference does not excuse a source copy)
— or when it is a name shared with the entry's source (capitalised there, not sentence-initial). A copy of
the source is still rejected: its lower-case words are in no reference. The raw rate and the analyzer's
false-rejection rate on the corpus's references (spec §1.6 item 2) are in the details.
"""

from collections import Counter

import numpy as np

from lyss.errors import InputError
from lyss.metrics.analyzers import AnalyzerUnavailable, analyse_words, load_analyzer
from lyss.metrics.base import COUNT, MetricResult, ScoringInput
from lyss.metrics.rates import WORD_NOTE, most_frequent, rate_result
from lyss.prep.corpus import morphology_problem
from lyss.text import sentences, words

CASE_NOTE = ("a word is looked up as written, then in lower case, then (all-caps words) capitalised; "
             "`accepted_by` counts which form was accepted; caseless scripts are looked up as written only")
MORPHOLOGY_NOTE = ("an annotation is met when a word of the prediction (equal to `form`, ignoring case, "
                   "when given) has exactly that analysis among its analyses; entries without annotations "
                   "are NaN; missing output meets none")
REJECTED_SHOWN = 10
EXCUSES = ("reference", "corpus_references", "source_name")
EXCUSE_NOTE = ("a rejected output word is left out of the rate (neither accepted nor rejected) when the "
               "analyzer also rejects it in the entry's reference (`reference`), or in the corpus's references "
               "which use it at least as often as the sources (`corpus_references`), or when it is a name of "
               "the entry's source, written the same and capitalised there, not sentence-initially "
               "(`source_name`); `raw_acceptance` counts every word")
REFERENCE_NOTE = ("share of the references' words that the analyzer rejects: `raw`, and `after_rules` once "
                  "names of the entry's source and words rejected in another entry's reference too (used there "
                  "at least as often as in the sources) are excused; the same for every system of a dataset")


def _analyse_predictions(analyzer, data: ScoringInput) -> tuple[list[list[str]], dict]:
    """The words of every prediction and the analyses of all distinct words, in one batch."""
    tokens = [words(p or "", data.target_card) for p in data.predictions]
    caseless = data.target_card.get("caseless", False)
    return tokens, analyse_words(analyzer, [w for ws in tokens for w in ws], caseless)


def _analyzer_details(analyzer) -> dict:
    return {"backend": analyzer.backend, "analyzer": str(analyzer.path)}


class FstAcceptance:
    """Share of output words with at least one analysis from the target card's analyzer, rejections that
    the reference shares or that name the source's names excused (module docstring)."""

    id = "fst_acceptance_rate"
    card_files = ("fst_analyzer",)
    card_position = 7
    companions = {"fst_accepted": (None, COUNT)}
    has_ci = True
    corpus_rows = "stats"
    db_column = "fst_acceptance_rate"
    direction = "higher"
    ideal = 1.0

    def score(self, data: ScoringInput) -> MetricResult:
        n = len(data.entries)
        card = data.target_card
        tokens = [words(p or "", card) for p in data.predictions]
        refs = [words(r or "", card) for r in data.references]
        try:
            analyzer = load_analyzer(card, data.target_lang)
            analysed = analyse_words(analyzer, [w for ws in tokens + refs for w in ws], card.get("caseless", False))
        except AnalyzerUnavailable as err:
            return MetricResult.unavailable(self.id, n, str(err))
        if not any(tokens):
            return MetricResult.unavailable(self.id, n, "no prediction contains a word (all empty, "
                                            "missing or without letters)", words=WORD_NOTE)
        rules = Excuses(data, refs, analysed)
        hits, totals, excused, rejected = [], [], Counter(), Counter()
        for i, ws in enumerate(tokens):
            refused = [w for w in ws if not analysed[w].accepted]
            reasons = [rules.excuse(i, w) for w in refused]  # None: the rejection counts
            excused.update(r for r in reasons if r)
            rejected.update(w for w, r in zip(refused, reasons, strict=True) if r is None)
            hits.append(len(ws) - len(refused))
            totals.append(len(ws) - sum(r is not None for r in reasons))
        totals = np.array(totals, dtype=float)
        if not totals.sum():
            return MetricResult.unavailable(self.id, n, "every word of the predictions is rejected by the "
                                            "analyzer and excused (shared with the reference or a source name)",
                                            words=WORD_NOTE, excusing=EXCUSE_NOTE)
        word_count = sum(len(ws) for ws in tokens)
        methods = Counter(analysed[w].method for ws in tokens for w in ws if analysed[w].accepted)
        details = {
            **_analyzer_details(analyzer), "words": WORD_NOTE, "case_fallback": CASE_NOTE, "excusing": EXCUSE_NOTE,
            "accepted_by": {m: methods.get(m, 0) for m in ("exact", "lowercase", "titlecase")},
            "excused_by": {m: excused.get(m, 0) for m in EXCUSES},
            "raw_acceptance": round(sum(hits) / word_count, 6),
            "word_count": word_count, "distinct_words": len({w for ws in tokens for w in ws}),
            "entries_without_words": sum(not ws for ws in tokens),
            "most_frequent_rejected": most_frequent(rejected, REJECTED_SHOWN),
            "reference_false_rejection": rules.reference_false_rejection(),
        }
        return rate_result(self.id, hits, totals, counts={"fst_accepted": int(sum(hits))}, details=details)


class Excuses:
    """The robustness rules of fst_acceptance_rate over one corpus (module docstring), built once."""

    def __init__(self, data: ScoringInput, refs: list[list[str]], analysed: dict):
        self.refs, self.analysed = refs, analysed
        self.entry_rejected = [{w.casefold() for w in ws if not analysed[w].accepted} for ws in refs]
        source_card = data.source_card or {}
        source_counts = Counter(w.casefold() for s in data.sources for w in words(s or "", source_card))
        ref_counts = Counter(w.casefold() for ws in refs for w in ws)
        self.ref_entries = Counter(w for rejected in self.entry_rejected for w in rejected)
        # Rejected reference words that the references use at least as often as the sources.
        self.corpus_rejected = {w for w in self.ref_entries if ref_counts[w] >= source_counts[w]}
        self.source_names = [_names(s or "", source_card) for s in data.sources]

    def excuse(self, entry: int, word: str) -> str | None:
        """Which rule excuses a rejected output word of entry `entry`, or None."""
        folded = word.casefold()
        if folded in self.entry_rejected[entry]:
            return "reference"
        if folded in self.corpus_rejected:
            return "corpus_references"
        return "source_name" if word in self.source_names[entry] else None

    def reference_false_rejection(self) -> dict:
        """The analyzer's rejections on the references: raw, and after the rules that do not use the
        entry's own reference (source names; rejected in another entry's reference too)."""
        total = sum(len(ws) for ws in self.refs)
        raw, kept = Counter(), Counter()
        for i, ws in enumerate(self.refs):
            for w in ws:
                if self.analysed[w].accepted:
                    continue
                raw[w] += 1
                folded = w.casefold()
                recurring = folded in self.corpus_rejected and self.ref_entries[folded] > 1
                if not recurring and w not in self.source_names[i]:
                    kept[w] += 1
        shares = {key: round(sum(counts.values()) / total, 6) if total else None
                  for key, counts in (("raw", raw), ("after_rules", kept))}
        return {"words": total, **shares, "note": REFERENCE_NOTE,
                "most_frequent_rejected": most_frequent(raw, REJECTED_SHOWN)}


def _names(text: str, card: dict) -> set[str]:
    """Capitalised words of a text that do not start a sentence: its names (and, in German, its nouns)."""
    return {w for sentence in sentences(text) for w in words(sentence, card)[1:] if w[:1].isupper()}


class MorphologicalAccuracy:
    """Share of expected analyses (entry `morphology` annotations) found among the prediction's words."""

    id = "morphological_accuracy"
    card_files = ("fst_analyzer",)
    card_position = 8
    corpus_rows = "stats"
    direction = "higher"
    ideal = 1.0

    def score(self, data: ScoringInput) -> MetricResult:
        n = len(data.entries)
        annotations = [e.get("morphology") or [] for e in data.entries]
        for entry, items in zip(data.entries, annotations, strict=True):
            problem = morphology_problem(items)
            if problem:
                raise InputError(f"corpus entry {entry['id']!r}", problem, field="morphology")
        if not any(annotations):
            return MetricResult.unavailable(self.id, n, "no corpus entry has `morphology` annotations "
                                            "(expected analyses per entry)")
        try:
            analyzer = load_analyzer(data.target_card, data.target_lang)
            tokens, analysed = _analyse_predictions(analyzer, data)
        except AnalyzerUnavailable as err:
            return MetricResult.unavailable(self.id, n, str(err))
        hits = np.array([sum(_satisfied(item, ws, analysed) for item in items)
                         for items, ws in zip(annotations, tokens, strict=True)], dtype=float)
        totals = np.array([len(items) for items in annotations], dtype=float)
        details = {**_analyzer_details(analyzer), "words": WORD_NOTE, "case_fallback": CASE_NOTE,
                   "annotations": int(totals.sum()), "annotated_entries": int((totals > 0).sum()),
                   "matching": MORPHOLOGY_NOTE}
        return rate_result(self.id, hits, totals, details=details)


def _satisfied(item: dict, tokens: list[str], analysed: dict) -> bool:
    form = item.get("form")
    candidates = [w for w in tokens if form is None or w.casefold() == form.casefold()]
    return any(item["analysis"] in analysed[w].analyses for w in candidates)

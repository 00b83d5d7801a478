"""Structural metrics of spec §2.2 that need the target language's FST analyzer (LYSS-fst).

`fst_acceptance_rate`: the share of output words that the analyzer accepts (at least one analysis).
`morphological_accuracy`: the share of expected analyses, annotated per corpus entry, that some word
of the prediction carries. Both are rates over words/annotations, so the corpus value is Σ hits / Σ
total (per-entry sufficient statistics `[hits, total]` let the bootstrap resample entries).

Words come from `lyss.text.words` (numbers, punctuation, placeholders and URLs are not words); every
distinct word of the corpus is looked up in one batch (see `lyss.metrics.analyzers`).
"""

from collections import Counter

import numpy as np

from lyss.errors import InputError
from lyss.metrics.analyzers import AnalyzerUnavailable, analyse_words, load_analyzer
from lyss.metrics.base import COUNT, MetricResult, ScoringInput
from lyss.metrics.rates import WORD_NOTE, most_frequent, rate_result
from lyss.prep.corpus import morphology_problem
from lyss.text import words

CASE_NOTE = ("a word is looked up as written, then in lower case, then (all-caps words) capitalised; "
             "`accepted_by` counts which form was accepted; caseless scripts are looked up as written only")
MORPHOLOGY_NOTE = ("an annotation is met when a word of the prediction (equal to `form`, ignoring case, "
                   "when given) has exactly that analysis among its analyses; entries without annotations "
                   "are NaN; missing output meets none")
REJECTED_SHOWN = 10


def _analyse_predictions(analyzer, data: ScoringInput) -> tuple[list[list[str]], dict]:
    """The words of every prediction and the analyses of all distinct words, in one batch."""
    tokens = [words(p or "", data.target_card) for p in data.predictions]
    caseless = data.target_card.get("caseless", False)
    return tokens, analyse_words(analyzer, [w for ws in tokens for w in ws], caseless)


def _analyzer_details(analyzer) -> dict:
    return {"backend": analyzer.backend, "analyzer": str(analyzer.path)}


class FstAcceptance:
    """Share of output words with at least one analysis from the target card's analyzer."""

    id = "fst_acceptance_rate"
    card_position = 7
    companions = {"fst_accepted": (None, COUNT)}
    has_ci = True
    corpus_rows = "stats"
    db_column = "fst_acceptance_rate"
    direction = "higher"
    ideal = 1.0

    def score(self, data: ScoringInput) -> MetricResult:
        n = len(data.entries)
        try:
            analyzer = load_analyzer(data.target_card, data.target_lang)
            tokens, analysed = _analyse_predictions(analyzer, data)
        except AnalyzerUnavailable as err:
            return MetricResult.unavailable(self.id, n, str(err))
        hits = np.array([sum(analysed[w].accepted for w in ws) for ws in tokens], dtype=float)
        totals = np.array([len(ws) for ws in tokens], dtype=float)
        if not totals.sum():
            return MetricResult.unavailable(self.id, n, "no prediction contains a word (all empty, "
                                            "missing or without letters)", words=WORD_NOTE)
        methods = Counter(analysed[w].method for ws in tokens for w in ws if analysed[w].accepted)
        rejected = Counter(w for ws in tokens for w in ws if not analysed[w].accepted)
        details = {
            **_analyzer_details(analyzer), "words": WORD_NOTE, "case_fallback": CASE_NOTE,
            "accepted_by": {m: methods.get(m, 0) for m in ("exact", "lowercase", "titlecase")},
            "word_count": int(totals.sum()), "distinct_words": len(analysed),
            "entries_without_words": int((totals == 0).sum()),
            "most_frequent_rejected": most_frequent(rejected, REJECTED_SHOWN),
        }
        return rate_result(self.id, hits, totals, counts={"fst_accepted": int(hits.sum())}, details=details)


class MorphologicalAccuracy:
    """Share of expected analyses (entry `morphology` annotations) found among the prediction's words."""

    id = "morphological_accuracy"
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

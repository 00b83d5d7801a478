"""Terminology metrics of spec §2.4: `terminology_adherence` and `consistency_score`.

Both read the corpus glossaries (`glossary: [{source, target}]` per entry). A target term is found in
a prediction when its words occur there in sequence (`lyss.text.words`, case-folded), either as
written (`surface`) or, where the target card has an FST analyzer, word by word with a shared lemma
(`lemma`: "archivos" renders "archivo"; "Contraseña" renders "contraseña").

`consistency_score` asks whether a source term that recurs across entries (a glossary source term in
two or more entries) is rendered the same way each time: the share of its occurrences whose prediction
contains its most frequent rendering. Without word alignment, renderings are recognised two ways: the
targets the glossaries give for the term, and lemmas the system itself keeps using for it — a lemma in
at least two of the term's predictions and in more of them than of all other predictions (Apertium's
steady "lima" for "file" is consistent, if wrong, even though the glossary asks for "archivo"; "el"
is in most predictions and so is nobody's rendering).
"""

from collections import Counter, defaultdict

import numpy as np

from lyss.metrics.analyzers import AnalyzerUnavailable, analyse_words, lemmas, load_analyzer
from lyss.metrics.base import MetricResult, ScoringInput
from lyss.metrics.rates import WORD_NOTE, rate_result
from lyss.text import words


class _TermMatcher:
    """Finds glossary target terms in predictions, by surface form and, with an analyzer, by lemma."""

    def __init__(self, data: ScoringInput, terms: list[str]):
        card = data.target_card
        self.card = card
        self.tokens = [[w.casefold() for w in words(p or "", card)] for p in data.predictions]
        self.lemma_sets: dict[str, set[str]] | None = None
        vocabulary = {w for ws in self.tokens for w in ws}
        vocabulary |= {w.casefold() for t in terms for w in words(t, card)}
        try:
            analyzer = load_analyzer(card)
            analysed = analyse_words(analyzer, sorted(vocabulary), card.get("caseless", False))
        except AnalyzerUnavailable as err:
            self.backend = f"surface forms only ({err})"
            return
        self.backend = f"surface forms and lemmas ({analyzer.backend}: {analyzer.path})"
        self.lemma_sets = {w: {lemma.casefold() for a in wa.analyses for lemma in lemmas(a)}
                           for w, wa in analysed.items()}

    def lemmas_in(self, entry: int) -> set[str]:
        """The lemmas of a prediction's words (a word the analyzer does not know stands for itself)."""
        if self.lemma_sets is None:
            return set(self.tokens[entry])
        return {lemma for w in self.tokens[entry] for lemma in (self.lemma_sets[w] or {w})}

    def find(self, term: str, entry: int) -> str | None:
        """'surface', 'lemma' or None: how the term occurs in prediction `entry`."""
        wanted = [w.casefold() for w in words(term, self.card)]
        tokens = self.tokens[entry]
        if not wanted:
            return None
        windows = [tokens[i:i + len(wanted)] for i in range(len(tokens) - len(wanted) + 1)]
        if wanted in windows:
            return "surface"
        if self.lemma_sets is not None and any(all(self.lemma_sets[a] & self.lemma_sets[b] for a, b in
                                                   zip(window, wanted, strict=True)) for window in windows):
            return "lemma"
        return None


def _no_glossary(metric: str, n: int) -> MetricResult:
    return MetricResult.unavailable(metric, n, "no corpus entry has glossary terms")


class TerminologyAdherence:
    """Share of the entries' glossary terms whose target term occurs in the prediction."""

    id = "terminology_adherence"
    card_files = ("fst_analyzer",)
    card_position = 14
    corpus_rows = "stats"
    db_column = "terminology_adherence"
    direction = "higher"
    ideal = 1.0

    def score(self, data: ScoringInput) -> MetricResult:
        n = len(data.entries)
        glossaries = [e.get("glossary") or [] for e in data.entries]
        if not any(glossaries):
            return _no_glossary(self.id, n)
        matcher = _TermMatcher(data, [t["target"] for g in glossaries for t in g])
        found = [[matcher.find(t["target"], i) for t in g] for i, g in enumerate(glossaries)]
        hits = [sum(f is not None for f in entry) for entry in found]
        how = Counter(f or "missing" for entry in found for f in entry)
        details = {"matching": matcher.backend, "words": WORD_NOTE,
                   "terms_by_match": {k: how.get(k, 0) for k in ("surface", "lemma", "missing")},
                   "applicable": "every glossary term of an entry; entries without a glossary are NaN; "
                                 "an entry without output matches none"}
        return rate_result(self.id, hits, [len(g) for g in glossaries], details=details)


class ConsistencyScore:
    """Corpus only: over recurring glossary source terms, Σ occurrences with the term's most frequent
    rendering / Σ occurrences (per-entry values are NaN: consistency is a property of the corpus)."""

    id = "consistency_score"
    card_files = ("fst_analyzer",)
    card_position = 15
    direction = "higher"
    ideal = 1.0

    def score(self, data: ScoringInput) -> MetricResult:
        n = len(data.entries)
        glossaries = [e.get("glossary") or [] for e in data.entries]
        if not any(glossaries):
            return _no_glossary(self.id, n)
        occurrences: dict[str, list[int]] = defaultdict(list)
        targets: dict[str, dict[str, str]] = defaultdict(dict)  # source term → {casefolded target: target}
        for i, glossary in enumerate(glossaries):
            for term in glossary:
                key = term["source"].casefold()
                if i not in occurrences[key]:
                    occurrences[key].append(i)
                targets[key].setdefault(term["target"].casefold(), term["target"])
        recurring = {k: v for k, v in sorted(occurrences.items()) if len(v) >= 2}
        if not recurring:
            return MetricResult.unavailable(self.id, n, "no glossary source term is in two or more entries")
        matcher = _TermMatcher(data, [t for k in recurring for t in targets[k].values()])
        entry_lemmas = [matcher.lemmas_in(i) for i in range(n)]
        per_term, modal_total, total = {}, 0, 0
        for key, entries in recurring.items():
            support = {t: sum(matcher.find(t, i) is not None for i in entries) for t in targets[key]}
            inside = Counter(lemma for i in entries for lemma in entry_lemmas[i])
            outside = Counter(lemma for j in set(range(n)) - set(entries) for lemma in entry_lemmas[j])
            support |= {lemma: c for lemma, c in sorted(inside.items())
                        if c >= 2 and c > outside[lemma] and lemma not in support}
            best = max(support, key=lambda r: (support[r], r in targets[key]))
            per_term[key] = {"occurrences": len(entries), "most_frequent_rendering": best,
                             "rendered_so": support[best], "renderings": support}
            modal_total, total = modal_total + support[best], total + len(entries)
        details = {"matching": matcher.backend, "level": "corpus only; per-entry values are NaN",
                   "renderings": "glossary targets of the term, and lemmas in two or more of the term's "
                                 "predictions and in more of them than of all other predictions",
                   "terms": per_term}
        return MetricResult(self.id, np.full(n, np.nan), modal_total / total, details=details)

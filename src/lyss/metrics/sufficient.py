"""sacrebleu's corpus formulas, vectorised over any leading axes of summed sufficient statistics.

The same arrays serve three purposes: per-entry scores (one row per entry), the corpus score (the
column sums) and bootstrap resamples (a resample-count matrix times the per-entry statistics). Each
function reproduces sacrebleu's `_compute_score_from_stats` for its metric; the tests check equality
with sacrebleu on real text.
"""

import logging

import numpy as np
from sacrebleu.metrics import BLEU, CHRF

_MTEVAL_LOG_ZERO = -9999999999.0  # sacrebleu's my_log(0)


def chrf_from_stats(stats, order: int, beta: float = 2.0) -> np.ndarray:
    """chrF (0–100) from stats laid out as [hyp, ref, match] per order, as sacrebleu CHRF stores them."""
    stats = np.asarray(stats, dtype=np.float64)
    hyp, ref, match = stats[..., 0 : 3 * order : 3], stats[..., 1 : 3 * order : 3], stats[..., 2 : 3 * order : 3]
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = np.where(hyp > 0, match / hyp, 0.0)
        rec = np.where(ref > 0, match / ref, 0.0)
    effective = (hyp > 0) & (ref > 0)
    n_effective = effective.sum(axis=-1)
    safe_n = np.maximum(n_effective, 1)
    avg_prec = np.where(n_effective > 0, (prec * effective).sum(axis=-1) / safe_n, 0.0)
    avg_rec = np.where(n_effective > 0, (rec * effective).sum(axis=-1) / safe_n, 0.0)
    factor = beta**2
    total = avg_prec + avg_rec
    denom = np.where(total > 0, factor * avg_prec + avg_rec, 1.0)
    return np.where(total > 0, 100 * (1 + factor) * avg_prec * avg_rec / denom, 0.0)


def bleu_from_stats(stats, max_order: int = 4, smooth: str = "exp", smooth_value: float | None = None,
                    effective_order: bool = False) -> np.ndarray:
    """BLEU (0–100) from stats laid out as [sys_len, ref_len, correct_1..N, total_1..N]."""
    stats = np.asarray(stats, dtype=np.float64)
    sys_len, ref_len = stats[..., 0], stats[..., 1]
    correct = stats[..., 2 : 2 + max_order].copy()
    total = stats[..., 2 + max_order : 2 + 2 * max_order].copy()
    if smooth == "add-k":
        k = 1.0 if smooth_value is None else smooth_value
        correct[..., 1:] += k
        total[..., 1:] += k
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        bp = np.where(sys_len < ref_len, np.where(sys_len > 0, np.exp(1 - ref_len / sys_len), 0.0), 1.0)
        # sacrebleu stops at the first order with no hypothesis n-grams (later precisions stay 0).
        active = np.cumprod(total > 0, axis=-1).astype(bool)
        zero = (correct == 0) & active
        safe_total = np.where(total > 0, total, 1.0)
        if smooth == "exp":
            smoothed = 100.0 / (2.0 ** np.cumsum(zero, axis=-1) * safe_total)
        elif smooth == "floor":
            smoothed = 100.0 * (0.1 if smooth_value is None else smooth_value) / safe_total
        else:
            smoothed = np.zeros_like(total)
        precisions = np.where(active, np.where(correct > 0, 100.0 * correct / safe_total, smoothed), 0.0)
        logs = np.where(precisions > 0, np.log(np.where(precisions > 0, precisions, 1.0)), _MTEVAL_LOG_ZERO)
        if effective_order:
            n_active = active.sum(axis=-1)
            eff = np.where(n_active > 0, n_active, max_order)
        else:
            eff = np.full(sys_len.shape, max_order)
        mask = np.arange(max_order) < eff[..., None]
        score = bp * np.exp((logs * mask).sum(axis=-1) / eff)
    any_correct = (stats[..., 2 : 2 + max_order] > 0).any(axis=-1)
    return np.where(any_correct, score, 0.0)


def ter_from_stats(stats) -> np.ndarray:
    """TER (0–100+) from stats laid out as [edits, ref_length]."""
    stats = np.asarray(stats, dtype=np.float64)
    edits, ref_len = stats[..., 0], stats[..., 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(ref_len > 0, edits / np.where(ref_len > 0, ref_len, 1.0), np.where(edits > 0, 1.0, 0.0))
    return 100 * ratio


# --- Extraction: sacrebleu's chrF and BLEU statistics for a whole corpus in array operations -------------------
#
# sacrebleu builds a Counter of n-grams per segment and side in Python; here every text of a side is one
# stream of integer units (characters or words), and the n-grams of each order are identified for all
# segments at once. Ids are dense over the reference's n-grams: an n-gram is the pair (its (n−1)-gram
# prefix, its last unit), so a hypothesis n-gram whose prefix the reference lacks is absent too and never
# needs an id. Matching is a sorted lookup of (segment, n-gram) keys. The reference side is built once and
# matched against every system (lyss compare scores several systems against one reference).


def _remaining(lengths: np.ndarray) -> np.ndarray:
    """Per position of the concatenated stream: how many units remain in its segment, itself included."""
    ends = np.cumsum(lengths)
    return np.repeat(ends, lengths) - np.arange(int(ends[-1]) if len(ends) else 0)


def _lookup(table: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(index in the sorted `table`, found) for each key; for small tables (a text's characters)."""
    index = np.searchsorted(table, keys)
    found = index < len(table)
    found[found] = table[index[found]] == keys[found]
    return index, found


def _hashed(table: np.ndarray):
    """A table of distinct keys looked up by hashing (a pandas Index): a sorted search into millions of
    n-grams misses the cache at every step and cost most of the time. pandas is imported here, for the large
    vocabularies that need it, not by every `lyss score` (0.5 s)."""
    import pandas as pd

    return pd.Index(table, copy=False)


def _find(table, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    index = table.get_indexer(keys)
    return index, index >= 0


def _common(table: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(indices in `table`, indices in `keys`) of the values both sorted, distinct arrays hold.

    A stable sort of the two arrays end to end is one linear merge of two runs (timsort), cheaper than a
    lookup per key; an equal pair then sits side by side, the table's first."""
    both = np.concatenate([table, keys])
    order = np.argsort(both, kind="stable")
    equal = np.flatnonzero(both[order[1:]] == both[order[:-1]])
    return order[equal], order[equal + 1] - len(table)


class ReferenceNgrams:
    """The n-grams of orders 1..max_order of one reference per segment, counted per segment.

    `ids` are the units of all segments concatenated, dense in 0..n_units−1; `lengths` the units per segment.
    An n-gram's code is its units as digits in base n_units when every (segment, code) key of the highest
    order fits in 62 bits (characters: a text's alphabet is small), so a hypothesis n-gram needs no lookup;
    otherwise (a large word vocabulary) each order's codes are renumbered densely over the reference."""

    def __init__(self, ids: np.ndarray, lengths: np.ndarray, n_units: int, max_order: int):
        self.n_segments, self.n_units, self.max_order = len(lengths), max(1, n_units), max_order
        self.direct = max(1, self.n_segments) * self.n_units ** max_order < 2**62
        self.lengths = np.asarray(lengths, dtype=np.int64)
        ids = np.asarray(ids, dtype=np.int64)
        segment = np.repeat(np.arange(self.n_segments), self.lengths)
        remaining = _remaining(self.lengths)
        # per order: the dense renumbering (None when codes are direct), how many codes there can be, and
        # the sorted (segment, code) keys with their counts
        self.grams, self.sizes, self.keys, self.counts = [], [], [], []
        position, gram = np.arange(len(ids)), ids
        for n in range(1, max_order + 1):
            table = None
            if n > 1:
                keep = remaining[position] >= n
                position, gram = position[keep], gram[keep]
                gram = gram * self.n_units + ids[position + n - 1]
                if not self.direct:
                    table, gram = np.unique(gram, return_inverse=True)
            size = self.n_units**n if table is None else len(table)
            self.grams.append(None if table is None else _hashed(table))
            self.sizes.append(size)
            keys, counts = np.unique(segment[position] * size + gram, return_counts=True)
            self.keys.append(keys)
            self.counts.append(counts)

    def totals(self, lengths: np.ndarray) -> np.ndarray:
        """(segments × orders) n-grams per segment of texts with these unit counts."""
        return np.maximum(np.asarray(lengths, dtype=np.int64)[:, None] - np.arange(self.max_order), 0)

    def matches(self, ids: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """(segments × orders) clipped matches: Σ over n-grams of min(hypothesis count, reference count).

        `ids` are hypothesis units in the reference's numbering, −1 where the reference lacks the unit."""
        lengths = np.asarray(lengths, dtype=np.int64)
        if len(lengths) != self.n_segments:
            raise ValueError(f"{len(lengths)} hypotheses for {self.n_segments} references")
        ids = np.asarray(ids, dtype=np.int64)
        segment = np.repeat(np.arange(self.n_segments), lengths)
        remaining = _remaining(lengths)
        out = np.zeros((self.n_segments, self.max_order), dtype=np.int64)
        position = np.flatnonzero(ids >= 0)
        gram = ids[position]
        for n in range(1, self.max_order + 1):
            size, table = self.sizes[n - 1], self.grams[n - 1]
            if n > 1:
                keep = remaining[position] >= n
                position, gram = position[keep], gram[keep]
                last = ids[position + n - 1]
                keep = last >= 0
                position, gram = position[keep], gram[keep] * self.n_units + last[keep]
                if table is not None:
                    gram, found = _find(table, gram)
                    position, gram = position[found], gram[found]
            keys, counts = np.unique(segment[position] * size + gram, return_counts=True)
            in_reference, in_hypothesis = _common(self.keys[n - 1], keys)
            clipped = np.minimum(counts[in_hypothesis], self.counts[n - 1][in_reference])
            out[:, n - 1] = np.bincount(keys[in_hypothesis] // size, weights=clipped, minlength=self.n_segments)
        return out


def _code_points(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(code points of all texts concatenated, characters per text)."""
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    return np.frombuffer("".join(texts).encode("utf-32-le"), dtype="<u4").astype(np.int64), lengths


class _CharStreams:
    """Characters numbered by the reference's distinct characters (−1: not in the reference)."""

    def __init__(self, references: list[str]):
        points, self.lengths = _code_points(references)
        self.table, self.ids = np.unique(points, return_inverse=True)

    def encode(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        points, lengths = _code_points(texts)
        index, found = _lookup(self.table, points)
        return np.where(found, index, -1), lengths


class _WordStreams:
    """Words (lists of tokens) numbered by first occurrence in the reference (−1: not in the reference)."""

    def __init__(self, references: list[list[str]]):
        self.vocabulary: dict[str, int] = {}
        add = self.vocabulary.setdefault
        self.ids = np.fromiter((add(w, len(self.vocabulary)) for words in references for w in words),
                               dtype=np.int64)
        self.lengths = np.fromiter(map(len, references), dtype=np.int64, count=len(references))

    def encode(self, texts: list[list[str]]) -> tuple[np.ndarray, np.ndarray]:
        get = self.vocabulary.get
        ids = np.fromiter((get(w, -1) for words in texts for w in words), dtype=np.int64)
        return ids, np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))


class _ChrfReference:
    """CHRF's reference side: character n-grams of the text without whitespace (unless `whitespace`) and
    word n-grams of sacrebleu's punctuation split, each counted per segment."""

    def __init__(self, metric, references: list[str]):
        self.metric = metric
        references = [metric._preprocess_segment(r) for r in references]
        self.chars = _CharStreams([self._chars(r) for r in references])
        self.char_ngrams = ReferenceNgrams(self.chars.ids, self.chars.lengths, len(self.chars.table),
                                           metric.char_order)
        self.words = _WordStreams([metric._remove_punctuation(r) for r in references]) if metric.word_order else None
        self.word_ngrams = (ReferenceNgrams(self.words.ids, self.words.lengths, len(self.words.vocabulary),
                                            metric.word_order) if self.words else None)

    def _chars(self, text: str) -> str:
        return text if self.metric.whitespace else "".join(text.split())

    def statistics(self, hypotheses: list[str]) -> np.ndarray:
        """[hyp, ref, match] per order, character orders first, as sacrebleu's `_get_match_statistics`:
        hypothesis n-grams count only where the reference has n-grams of that order."""
        hypotheses = [self.metric._preprocess_segment(h) for h in hypotheses]
        parts = [(self.char_ngrams, self.chars, [self._chars(h) for h in hypotheses])]
        if self.words:
            parts.append((self.word_ngrams, self.words, [self.metric._remove_punctuation(h) for h in hypotheses]))
        triples = []
        for ngrams, streams, texts in parts:
            ids, lengths = streams.encode(texts)
            ref_total = ngrams.totals(ngrams.lengths)
            hyp_total = np.where(ref_total > 0, ngrams.totals(lengths), 0)
            triples.append(np.stack([hyp_total, ref_total, ngrams.matches(ids, lengths)], axis=-1))
        return np.concatenate(triples, axis=1).reshape(len(hypotheses), -1)


class _BleuReference:
    """BLEU's reference side: word n-grams of the tokenized text and its length."""

    def __init__(self, metric, references: list[str]):
        self.metric = metric
        self.words = _WordStreams([metric._preprocess_segment(r).split() for r in references])
        self.ngrams = ReferenceNgrams(self.words.ids, self.words.lengths, len(self.words.vocabulary),
                                      metric.max_ngram_order)

    def statistics(self, hypotheses: list[str]) -> np.ndarray:
        """[hyp length, reference length, correct per order, total per order]."""
        ids, lengths = self.words.encode([self.metric._preprocess_segment(h).split() for h in hypotheses])
        return np.column_stack([lengths, self.words.lengths, self.ngrams.matches(ids, lengths),
                                self.ngrams.totals(lengths)])


def _reference_key(metric, references: list[str]) -> tuple | None:
    """What the reference side depends on, or None where the fast path does not apply (sacrebleu then
    extracts): the chrF and BLEU settings it implements, one reference per segment."""
    if isinstance(metric, CHRF):
        return (CHRF, metric.char_order, metric.word_order, metric.lowercase, metric.whitespace, references)
    if isinstance(metric, BLEU):
        return (BLEU, metric.max_ngram_order, metric.lowercase, metric.tokenizer_signature, references)
    return None


_REFERENCE_CACHE: dict[type, tuple[tuple, object]] = {}  # one entry per metric class: the last references


def corpus_statistics(metric, hypotheses: list[str], reference_streams: list[list[str]]) -> np.ndarray:
    """sacrebleu's `metric._extract_corpus_statistics(hypotheses, reference_streams)` as an int64 array, equal
    to it entry for entry. chrF and BLEU against one reference stream take the array path, whose reference
    side is kept for the next call with the same references (each system of `lyss compare`); anything
    else (TER, several references) is sacrebleu's own extraction."""
    key = _reference_key(metric, tuple(reference_streams[0])) if len(reference_streams) == 1 else None
    if key is None or any(r is None for r in reference_streams[0]):
        return np.asarray(metric._extract_corpus_statistics(hypotheses, reference_streams), dtype=np.int64)
    metric.num_refs = 1  # what sacrebleu's extraction records for the signature
    cached = _REFERENCE_CACHE.get(key[0])
    if cached is None or cached[0] != key:
        reference = (_ChrfReference if key[0] is CHRF else _BleuReference)(metric, list(reference_streams[0]))
        cached = _REFERENCE_CACHE[key[0]] = (key, reference)
    if key[0] is BLEU and not metric._force and sum(h.endswith(" .") for h in hypotheses) >= 100:
        logging.getLogger("sacrebleu").warning("That's 100 lines that end in a tokenized period ('.')")
    return cached[1].statistics(list(hypotheses))

"""sacrebleu's CHRF, BLEU and TER statistics, with shortcuts that leave every number as sacrebleu's own.

`lyss score` extracts each metric's statistics twice per reference set: for the system and for the oracle
check, which scores the reference as if it were the output (lyss.aggregate.oracle). Both shortcuts follow
from what the statistics are, not from what the check expects, so they hold for any system:

- **The references are read once per process.** sacrebleu tokenises the references and counts their n-grams
  on every call; here that reference information is kept (keyed by the metric's settings and the reference
  texts themselves) and reused while the references are the same. The segment statistics only read it.
- **A hypothesis identical to a reference** (after the metric's own preprocessing) has that reference's
  n-grams: chrF++ and BLEU count them from the reference instead of extracting them again, and TER has
  0 edits against it (an edit distance is never negative, so TER's shift search cannot do better), which
  skips the shift search that makes TER the slowest of the three.
- **TER's shift search runs on a faster edit distance** (lyss.metrics.ter_edits: sacrebleu's algorithm, cell
  for cell, without its per-cell tuples), 2.5–3.5× sacrebleu's speed for the same edit counts.

tests/test_sacrebleu_stats.py checks the statistics against plain sacrebleu, byte for byte, on identical,
different, empty and multi-reference segments.
"""

from sacrebleu.metrics import BLEU, CHRF, TER

from lyss.metrics.ter_edits import translation_edit_rate

# Per metric class: (settings and references, (reference information, number of references)) of the last
# references read; one entry each, so memory holds one reference set per metric.
_READ: dict[str, tuple[tuple, tuple]] = {}


class _ReadOnce:
    """Mixin: `_cache_references` remembers the last references it read (sacrebleu's own code computes it);
    each class names, in `_settings`, every setting its reference information depends on."""

    def _cache_references(self, references):
        key = (self._settings(), tuple(tuple(stream) for stream in references))
        kept = _READ.get(type(self).__name__)
        if kept is not None and kept[0] == key:
            info, self.num_refs = kept[1]
            return info
        info = super()._cache_references(references)
        _READ[type(self).__name__] = (key, (info, self.num_refs))
        return info


class ChrFStats(_ReadOnce, CHRF):
    def _settings(self) -> tuple:
        return (self.char_order, self.word_order, self.beta, self.lowercase, self.whitespace, self.eps_smoothing)

    def _extract_reference_info(self, refs):
        return {**super()._extract_reference_info(refs), "ref_texts": list(refs)}

    def _compute_segment_statistics(self, hypothesis, ref_kwargs):
        texts = ref_kwargs["ref_texts"]
        if hypothesis not in texts:
            return super()._compute_segment_statistics(hypothesis, ref_kwargs)
        own = ref_kwargs["ref_ngrams"][texts.index(hypothesis)]  # what extracting the hypothesis would give
        best_stats, best_f_score = [], -1.0
        for ref_ngrams in ref_kwargs["ref_ngrams"]:  # sacrebleu's choice of the best reference, unchanged
            stats = []
            for h, r in zip(own, ref_ngrams, strict=True):
                # against itself an order's counts are all matched: [hypothesis, reference, match] = its total
                stats.extend([sum(r.values())] * 3 if h is r else self._get_match_statistics(h, r))
            f_score = self._compute_f_score(stats)
            if f_score > best_f_score:
                best_f_score, best_stats = f_score, stats
        return best_stats


class BleuStats(_ReadOnce, BLEU):
    def _settings(self) -> tuple:
        return (type(self.tokenizer).__name__, self.tokenizer_signature, self.lowercase, self.max_ngram_order)

    def _extract_reference_info(self, refs):
        return {**super()._extract_reference_info(refs), "ref_texts": list(refs)}

    def _compute_segment_statistics(self, hypothesis, ref_kwargs):
        # With one reference, sacrebleu's reference counts are that reference's own n-grams (several are
        # merged by maximum, which no longer describes any one of them: those take sacrebleu's path).
        if ref_kwargs["ref_texts"] != [hypothesis]:
            return super()._compute_segment_statistics(hypothesis, ref_kwargs)
        length = ref_kwargs["ref_lens"][0]
        total = [0] * self.max_ngram_order
        for ngram, count in ref_kwargs["ref_ngrams"].items():
            total[len(ngram) - 1] += count
        return [length, length] + total + total  # every n-gram matched: correct = total


class TerStats(_ReadOnce, TER):
    def _settings(self) -> tuple:
        return (self.normalized, self.no_punct, self.asian_support, self.case_sensitive)

    def _compute_segment_statistics(self, hypothesis, ref_kwargs):
        """sacrebleu's loop over the references: the fewest edits, the average reference length."""
        words_hyp, ref_words = hypothesis.split(), ref_kwargs["ref_words"]
        if words_hyp in ref_words:
            return [0, sum(len(words) for words in ref_words) / len(ref_words)]
        best, lengths = int(1e16), 0
        for words_ref in ref_words:
            edits, length = translation_edit_rate(words_hyp, words_ref)
            lengths += length
            best = min(best, edits)
        return [best, lengths / len(ref_words)]

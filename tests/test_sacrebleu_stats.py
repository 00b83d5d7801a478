"""The shortcuts of lyss.metrics.sacrebleu_stats leave sacrebleu's statistics as they are: the segment
statistics and signatures equal plain sacrebleu's, item for item and in type, on real text scored as a system
and as the oracle (the reference as its own hypothesis), on several references, empty and case-only
differences, and while the references change between calls."""

import pytest
from sacrebleu.metrics import BLEU, CHRF, TER

from lyss.metrics.sacrebleu_stats import BleuStats, ChrFStats, TerStats
from lyss.prep.corpus import load_corpus

PAIRS = [  # (plain sacrebleu, with the shortcuts), same arguments
    (lambda: CHRF(word_order=2), lambda: ChrFStats(word_order=2)),
    (lambda: CHRF(word_order=2, lowercase=True), lambda: ChrFStats(word_order=2, lowercase=True)),
    (BLEU, BleuStats),
    (lambda: BLEU(tokenize="char", lowercase=True), lambda: BleuStats(tokenize="char", lowercase=True)),
    (TER, TerStats),
    (lambda: TER(case_sensitive=True, no_punct=True), lambda: TerStats(case_sensitive=True, no_punct=True)),
]


@pytest.fixture(scope="module")
def demo():
    entries = load_corpus("data/corpora/demo_eng_spa/corpus.jsonl")
    refs = [e["reference"] for e in entries]
    hyps = [e["variants"][0] if e["variants"] else e["source"] for e in entries]
    return hyps, refs


def typed(stats):
    return [[(type(x).__name__, x) for x in row] for row in stats]


def both(pair, hyps, streams):
    plain, fast = pair[0](), pair[1]()
    expected = plain._extract_corpus_statistics(hyps, streams)
    got = fast._extract_corpus_statistics(hyps, streams)
    return typed(expected), typed(got), str(plain.get_signature()), str(fast.get_signature())


@pytest.mark.parametrize("pair", PAIRS)
def test_system_then_oracle_then_other_references_equal_sacrebleu(pair, demo):
    hyps, refs = demo
    half = [h if i % 2 else r for i, (h, r) in enumerate(zip(hyps, refs, strict=True))]  # half exact matches
    cased = [r.upper() if i % 3 == 0 else r for i, r in enumerate(refs)]
    for hypotheses, streams in ((hyps, [refs]), (refs, [refs]), (half, [refs]), (cased, [refs]),
                                (refs, [hyps]), (hyps, [refs])):
        expected, got, plain_sig, fast_sig = both(pair, hypotheses, streams)
        assert got == expected
        assert fast_sig == plain_sig


@pytest.mark.parametrize("pair", PAIRS)
def test_several_references_and_empty_lines_equal_sacrebleu(pair, demo):
    hyps, refs = demo
    hyps, refs = hyps[:30] + ["", "", "a b"], refs[:30] + ["", "x", ""]
    other = hyps[:]  # the hypothesis is the second reference: the first still competes
    for hypotheses, streams in ((refs, [hyps, refs]), (refs, [refs, other]), (other, [refs, other]),
                                (hyps, [refs, refs])):
        expected, got, plain_sig, fast_sig = both(pair, hypotheses, streams)
        assert got == expected
        assert fast_sig == plain_sig

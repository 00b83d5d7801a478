"""The array extraction of chrF and BLEU statistics (lyss.metrics.sufficient.corpus_statistics) against
sacrebleu's own `_extract_corpus_statistics`, entry for entry, on real text and on the edge cases of its
n-gram bookkeeping (empty lines, one-character lines, repeated n-grams, characters beyond the BMP)."""

import json
from pathlib import Path

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF, TER

from lyss.metrics import sufficient
from lyss.metrics.sufficient import corpus_statistics

TED = Path(__file__).resolve().parents[1] / "data/corpora/mqm_ted_ende"


def _ted(limit: int = 400):
    """References and two systems' outputs of the shipped WMT21 TED data."""
    references = {}
    for line in (TED / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        references[entry["id"]] = entry["reference"]
    systems = []
    for path in sorted((TED / "systems").glob("*.jsonl"))[:2]:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        systems.append({r["id"]: r["prediction"] for r in rows})
    ids = [i for i in sorted(references) if all(i in s for s in systems)][:limit]
    return [references[i] for i in ids], [[s[i] for i in ids] for s in systems]


EDGE_REFS = ["", "a", "Der Hund.", "aaaa aaaa aaaa", "(hi) there, you!", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ist 🙂 schön", "x y", "ab"]
EDGE_HYPS = ["nichts", "", "der hund .", "aaaa aaaa", "(hi) there , you!", "𝔘𝔫𝔦 ist 🙂🙂", "x", "ba ab"]

METRICS = {
    "chrF++": lambda: CHRF(word_order=2),
    "chrF": lambda: CHRF(),
    "chrF lowercase, whitespace": lambda: CHRF(word_order=1, lowercase=True, whitespace=True),
    "BLEU": lambda: BLEU(),
    "BLEU char, lowercase": lambda: BLEU(tokenize="char", lowercase=True),
    "BLEU intl, order 2": lambda: BLEU(tokenize="intl", max_ngram_order=2),
}


def _sacrebleu(make, hypotheses, references):
    return np.asarray(make()._extract_corpus_statistics(hypotheses, [references]), dtype=np.int64)


@pytest.mark.parametrize("name", METRICS)
def test_equals_sacrebleus_extraction_on_real_text(name):
    references, systems = _ted()
    for hypotheses in systems:  # the second system reuses the reference side built for the first
        ours = corpus_statistics(METRICS[name](), hypotheses, [references])
        assert ours.dtype == np.int64
        np.testing.assert_array_equal(ours, _sacrebleu(METRICS[name], hypotheses, references))


@pytest.mark.parametrize("name", METRICS)
def test_equals_sacrebleus_extraction_on_edge_cases(name):
    np.testing.assert_array_equal(corpus_statistics(METRICS[name](), EDGE_HYPS, [EDGE_REFS]),
                                  _sacrebleu(METRICS[name], EDGE_HYPS, EDGE_REFS))
    # hypotheses equal to the references: every n-gram matches
    np.testing.assert_array_equal(corpus_statistics(METRICS[name](), EDGE_REFS, [EDGE_REFS]),
                                  _sacrebleu(METRICS[name], EDGE_REFS, EDGE_REFS))


def test_reference_side_is_rebuilt_for_other_references():
    references, (hypotheses, _) = _ted(50)
    corpus_statistics(CHRF(word_order=2), hypotheses, [references])
    other = references[::-1]
    np.testing.assert_array_equal(corpus_statistics(CHRF(word_order=2), hypotheses, [other]),
                                  _sacrebleu(lambda: CHRF(word_order=2), hypotheses, other))


def test_several_references_and_ter_are_sacrebleus_own(monkeypatch):
    references, (first, second) = _ted(30)
    built = []
    monkeypatch.setattr(sufficient, "_ChrfReference", lambda *a: built.append(a))
    streams = [references, second]
    np.testing.assert_array_equal(corpus_statistics(CHRF(word_order=2), first, streams),
                                  np.asarray(CHRF(word_order=2)._extract_corpus_statistics(first, streams)))
    np.testing.assert_array_equal(corpus_statistics(TER(), first, [references]),
                                  np.asarray(TER()._extract_corpus_statistics(first, [references])))
    assert built == []


def test_signature_counts_one_reference():
    references, (hypotheses, _) = _ted(10)
    metric = BLEU()
    corpus_statistics(metric, hypotheses, [references])
    assert "nrefs:1" in str(metric.get_signature())


def test_large_vocabularies_take_the_dense_numbering():
    """Words of a vocabulary too large for base-V codes of 4-grams: each order is renumbered over the
    reference, and the statistics are still sacrebleu's."""
    rng = np.random.default_rng(3)
    references = [" ".join(f"w{i}" for i in rng.integers(0, 10**6, size=30)) for _ in range(400)]
    hypotheses = [" ".join(ref.split()[:10] + [f"w{i}" for i in rng.integers(0, 10**6, size=8)] + ref.split()[12:])
                  for ref in references]
    ours = corpus_statistics(BLEU(), hypotheses, [references])
    assert not sufficient._REFERENCE_CACHE[BLEU][1].ngrams.direct
    np.testing.assert_array_equal(ours, _sacrebleu(BLEU, hypotheses, references))

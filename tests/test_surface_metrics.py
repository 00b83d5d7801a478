"""Surface metrics equal sacrebleu's own numbers (to 1e-4) on real text; hand-computed cases for the rest."""

import numpy as np
import pytest
import sacrebleu

from lyss.metrics import ScoringInput, get_metric
from lyss.prep.corpus import load_corpus


def scoring_input(hyps, refs, **kw):
    entries = [{"id": str(i), "source": "s", "reference": r} for i, r in enumerate(refs)]
    return ScoringInput(entries, list(hyps), list(hyps), "eng", "spa", **kw)


@pytest.fixture(scope="module")
def real_text():
    """Demo references against another human-quality rendering: the first variant, else the source."""
    entries = load_corpus("data/corpora/demo_eng_spa/corpus.jsonl")
    hyps = [e["variants"][0] if e["variants"] else e["source"] for e in entries]
    return hyps, [e["reference"] for e in entries]


def test_chrf_plus_plus_equals_sacrebleu(real_text):
    hyps, refs = real_text
    result = get_metric("chrf_plus_plus").score(scoring_input(hyps, refs))
    assert result.corpus_value == pytest.approx(sacrebleu.corpus_chrf(hyps, [refs], word_order=2).score, abs=1e-4)
    expected = [sacrebleu.sentence_chrf(h, [r], word_order=2).score for h, r in zip(hyps, refs, strict=True)]
    np.testing.assert_allclose(result.values, expected, atol=1e-4)
    assert "nw:2" in result.signature


def test_bleu_equals_sacrebleu(real_text):
    hyps, refs = real_text
    result = get_metric("bleu").score(scoring_input(hyps, refs))
    assert result.corpus_value == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs]).score, abs=1e-4)
    expected = [sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps, refs, strict=True)]
    np.testing.assert_allclose(result.values, expected, atol=1e-4)
    assert "tok:13a" in result.signature


def test_bleu_tokenizer_comes_from_target_card():
    hyps, refs = ["我喜欢猫"], ["我喜欢狗"]
    result = get_metric("bleu").score(scoring_input(hyps, refs, target_card={"bleu_tokenizer": "zh"}))
    assert "tok:zh" in result.signature
    assert result.corpus_value == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs], tokenize="zh").score, abs=1e-4)


def test_ter_equals_sacrebleu(real_text):
    hyps, refs = real_text
    result = get_metric("ter").score(scoring_input(hyps, refs))
    assert result.corpus_value == pytest.approx(sacrebleu.corpus_ter(hyps, [refs]).score, abs=1e-4)
    expected = [sacrebleu.sentence_ter(h, [r]).score for h, r in zip(hyps, refs, strict=True)]
    np.testing.assert_allclose(result.values, expected, atol=1e-4)


def test_missing_output_scores_as_empty_string():
    result = get_metric("chrf_plus_plus").score(scoring_input([None, "Hola."], ["Adiós.", "Hola."]))
    expected = sacrebleu.corpus_chrf(["", "Hola."], [["Adiós.", "Hola."]], word_order=2).score
    assert result.corpus_value == pytest.approx(expected, abs=1e-4)
    assert result.values[0] == 0.0


def test_exact_match_hand_computed():
    # 2 of 4 match: identical, and identical up to repeated whitespace; case differs and None do not.
    result = get_metric("exact_match_rate").score(
        scoring_input(["Hola.", "Buenos  días.", "hola.", None], ["Hola.", "Buenos días.", "Hola.", "x"]))
    assert result.values.tolist() == [1.0, 1.0, 0.0, 0.0]
    assert result.corpus_value == 0.5 and result.counts == {"exact_matches": 2}


def test_length_ratio_hand_computed():
    # "abcd"/"ab" = 2.0, "a"/"abcd" = 0.25, None/"ab" = 0; the corpus value is the mean 0.75.
    result = get_metric("length_ratio").score(scoring_input(["abcd", "a", None], ["ab", "abcd", "ab"]))
    np.testing.assert_allclose(result.values, [2.0, 0.25, 0.0])
    assert result.corpus_value == pytest.approx(0.75)

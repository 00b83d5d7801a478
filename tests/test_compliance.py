"""compliance_index (double pass) and repair_effectiveness: golden values computed by hand."""

import numpy as np
import pytest

from lyss.metrics import ScoringInput
from lyss.metrics.compliance import ComplianceIndex, RepairEffectiveness, check_casing, check_quotes

SPANISH = {"code": "spa", "scripts": ["Latn"], "caseless": False,
           "quotes": {"primary": ["«", "»"], "secondary": ["“", "”"]}}
SYLLABICS = {"code": "xxx", "scripts": ["Cans"], "caseless": True}


def run(metric, rows, card=SPANISH):
    """rows: (source, reference, raw prediction, post-processed prediction)."""
    entries = [{"id": str(i), "source": s, "reference": r} for i, (s, r, _, _) in enumerate(rows)]
    data = ScoringInput(entries, [p for *_, p in rows], [raw for _, _, raw, _ in rows], "eng", "spa",
                        {"code": "eng", "scripts": ["Latn"]}, card)
    return metric().score(data)


REPAIRED = ('Hello {name}, press "OK".', "Hola {name}, pulsa «Aceptar».",
            'hola {nombre}, pulsa "Aceptar".', "Hola {name}, pulsa «Aceptar».")


def test_double_pass_raw_and_post_processed():
    result = run(ComplianceIndex, [REPAIRED])
    # raw: placeholder {nombre} ≠ {name} → 0/1; quotes: 2 ASCII marks, both wrong → 1 − 2/2 = 0;
    # casing: "hola" vs "Hola" → 0. Index = 0.6·0 + 0.2·0 + 0.2·0 = 0 (4 violations).
    # post: all three 1 → 1.0 (0 violations). The corpus value is the post-processed one.
    assert result.corpus_value == pytest.approx(1.0)
    assert result.details["raw"] == pytest.approx(0.0)
    assert result.details["components"]["raw"] == {"placeholders": 0.0, "quotes": 0.0, "casing": 0.0}
    assert list(result.columns["raw_violations"]) == [4] and list(result.columns["violations"]) == [0]


def test_partial_credit_golden_values():
    rows = [
        # placeholders: source {a},{b}; output {a} → matched 1 of max(2, 1) → 0.5; quotes none → 1;
        # casing: first letters "y" (reference, placeholders skipped) and "y" → 1. 0.6·0.5 + 0.2 + 0.2 = 0.7
        ("{a} and {b}", "{a} y {b}", "{a} y", "{a} y"),
        # quotes: source has 2 marks, output none → 2 missing of max(2, 0) → 0; 0.6 + 0 + 0.2 = 0.8
        ('Press "Start"', "Pulsa «Iniciar»", "Pulsa Iniciar", "Pulsa Iniciar"),
    ]
    result = run(ComplianceIndex, rows)
    assert result.values == pytest.approx([0.7, 0.8])
    assert result.corpus_value == pytest.approx(0.75)


def test_outputs_without_content_fail_every_check():
    rows = [("Hi.", "Hola.", None, None), ("Hi.", "Hola.", "", ""), ("Hi.", "Hola.", "¡…!", "¡…!")]
    result = run(ComplianceIndex, rows)
    assert result.values == pytest.approx([0.0, 0.0, 0.0])


def test_quote_check_counts_wrong_and_missing_marks():
    assert check_quotes("no quotes", "con «comillas»", SPANISH) == (1.0, 0)  # extra marks of the card are fine
    assert check_quotes("no quotes", 'con "comillas"', SPANISH) == (0.0, 2)  # ASCII quotes are wrong in Spanish
    assert check_quotes('"a" "b"', "«a» b", SPANISH) == (0.5, 2)  # 2 of 4 source marks missing → 1 − 2/4
    assert check_quotes('"a"', "don’t «a»", SPANISH) == (1.0, 0)  # the apostrophe is no quotation mark
    assert check_quotes('"a"', '"a"', {"code": "xxx"}) == (1.0, 0)  # a card without quotes accepts any


def test_casing_by_sentence_against_the_reference():
    # reference sentences start upper, upper; output: lower, upper, lower (extra sentence compared with
    # the reference's last one, upper) → 2 violations of 3 → 1/3
    assert check_casing("hola. Adiós. gracias.", "Hola. Adiós.", SPANISH) == (pytest.approx(1 / 3), 2)
    assert check_casing("{name} se ha unido.", "{name} se ha unido.", SPANISH) == (1.0, 0)


def test_caseless_script_counts_latin_leakage():
    # 3 words, 1 of them Latin → casing 1 − 1/3; no placeholders, no quotes → 0.6 + 0.2 + 0.2·(2/3)
    row = ("I sleep, hello.", "ᓂᓂᐲᐣ.", "ᓂᓂᐲᐣ hello ᐊᒋᒧᐢ", "ᓂᓂᐲᐣ hello ᐊᒋᒧᐢ")
    result = run(ComplianceIndex, [row], card=SYLLABICS)
    assert result.values == pytest.approx([0.6 + 0.2 + 0.2 * 2 / 3])
    assert result.details["casing_check"] == "no Latin-script words"


def test_repair_effectiveness_is_fixed_over_raw_violations():
    rows = [REPAIRED,  # 4 raw violations, all fixed
            ("{a} and {b}", "{a} y {b}", "{a} y", "{a} y"),  # 1 raw violation, not fixed
            ("Hi.", "Hola.", "Hola.", "hola.")]  # 0 raw violations, 1 introduced by a hook
    result = run(RepairEffectiveness, rows)
    assert result.corpus_value == pytest.approx(4 / 5)
    assert np.isnan(result.values[2]) and result.values[:2] == pytest.approx([1.0, 0.0])
    assert result.details == {"raw_violations": 5, "fixed": 4, "introduced": 1}


def test_repair_effectiveness_is_null_without_raw_violations():
    result = run(RepairEffectiveness, [("Hi.", "Hola.", "Hola.", "Hola.")])
    assert result.corpus_value is None and "no compliance violation" in result.reason


def test_repair_effectiveness_is_null_when_no_output_was_post_processed():
    # 1 raw violation (a missing placeholder) and no repair step: undefined, not 0 % effective
    result = run(RepairEffectiveness, [("{a} and {b}", "{a} y {b}", "{a} y", "{a} y"),
                                       ("Hi.", "Hola.", "Hola.", "Hola.")])
    assert result.corpus_value is None and "changed no output" in result.reason
    assert result.details["raw_violations"] == 1

"""Plains Cree evaluation standard: CrkLinterMetric (variant-class rules as data), the SRO card, and
the crk analyzer path. Every prediction differs from its reference in the way the comment says."""

import pytest
from fst_build import build_hfstol

from lyss.eval_standards.crk.metrics import CrkLinterMetric
from lyss.languages import load_card
from lyss.metrics import ScoringInput, resolve_metric
from lyss.metrics.fst import FstAcceptance


@pytest.fixture(scope="module")
def crk():
    return load_card("data/languages/crk.yaml")


def scoring(rows, card):
    entries = [{"id": f"e{i}", "source": "s", "reference": r, "variants": v}
               for i, (_, r, v) in enumerate(rows)]
    predictions = [p for p, _, _ in rows]
    return ScoringInput(entries, predictions, predictions, "eng", "crk", target_card=card)


CASES = [
    # prediction, reference, variants, expected verdict, expected class
    ("ê-nipât atim", "ê-nipât atim", [], "EXACT", "exact"),
    ("Nipâw .", "nipâw.", [], "EQUIVALENT", "normalisation"),                  # case and spacing
    ("nipâw", "nipâw.", [], "EQUIVALENT", "punctuation"),                       # only punctuation differs
    ("ē-nipāt atim", "ê-nipât atim", [], "EQUIVALENT", "orthography"),         # macrons for circumflexes
    ("enipât atim", "ê-nipât atim", [], "EQUIVALENT", "orthography"),          # plain e, no hyphen
    ("môya nipâw", "namôya nipâw", [], "EQUIVALENT", "lemma_synonyms"),
    ("kinipânânaw", "ninipânân", [], "EQUIVALENT", "inclusive_exclusive"),      # inclusive "we" for exclusive
    ("kiyânaw kikosisinaw", "niyanân nikosisinân", [], "EQUIVALENT", "inclusive_exclusive"),
    ("mêkwâc nipâw", "nipâw", [], "EQUIVALENT", "progressive_aspect"),
    ("nipâw", "nipâw ôma", [], "EQUIVALENT", "optional_particles"),
    ("nipâw atim", "atim nipâw", [], "EQUIVALENT", "word_order"),
    ("nipāw atim", "atim nipâw", [], "EQUIVALENT", "word_order"),              # spelling and order: cumulative
    ("atim mîcisow", "mîcisow atim ôma", ["atim nipâw"], "EQUIVALENT", "word_order"),
    ("atim mîcisow", "atim nipâw", [], "MISS", None),
    ("kinipânaw", "ninipân", [], "MISS", None),                                 # 2nd person, not "we"
    (None, "atim", [], "NO_OUTPUT", None),
]


def test_crk_card_loads_the_linter(crk):
    assert isinstance(resolve_metric("equivalent_match_rate", crk), CrkLinterMetric)


def test_variant_classes_golden(crk):
    result = resolve_metric("equivalent_match_rate", crk).score(scoring([c[:3] for c in CASES], crk))
    assert result.columns["verdict"] == [c[3] for c in CASES]
    assert result.columns["variant_class"] == [c[4] or "" for c in CASES]
    # 13 of the 16 entries are EXACT or EQUIVALENT
    assert result.corpus_value == pytest.approx(13 / 16)
    assert result.counts == {"equivalent_matches": 13}
    assert result.details["rules"] == "crk"


def test_linter_works_without_any_variants(crk):
    # Unlike the generic metric, the language rules are reason enough to score.
    result = CrkLinterMetric().score(scoring([("nipâw atim", "atim nipâw", [])], crk))
    assert result.corpus_value == 1.0


def test_crk_analyzer_path_missing_here_is_reported(crk, tmp_path):
    path = crk["fst_analyzer"]["path"]
    result = FstAcceptance().score(scoring([("atim", "atim", [])], crk))
    if result.corpus_value is None:  # the GiellaLT package is not installed on this machine
        assert path in result.reason and "'crk'" in result.reason
    built = build_hfstol("crk_tiny", tmp_path)
    local = {**crk, "fst_analyzer": {"backend": "hfstol", "path": str(built)}}
    # ê-nipât and atimwak are in the tiny lexicon, "nipâwin" is not → 2/3
    result = FstAcceptance().score(scoring([("ê-nipât atimwak nipâwin", "", [])], local))
    assert result.corpus_value == pytest.approx(2 / 3)

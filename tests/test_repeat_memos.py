"""The per-process memos of `lyss score`'s repeated work give what a first computation gives: compliance's
checks (lyss.metrics.compliance, shared by its two metrics and both passes) and the caveat flags of a run card
(lyss.aggregate.caveats.entry_flags, asked for the references' flags once per card), on the demo corpus, again,
after an input was changed in place (the memo compares values, not objects), and with a caller changing what it
got back."""

import copy

import numpy as np

from lyss.aggregate import caveats
from lyss.languages import load_card
from lyss.metrics import compliance
from lyss.metrics.base import ScoringInput
from lyss.prep.corpus import load_corpus
from lyss.settings import read_params_file

ENTRIES = load_corpus("data/corpora/demo_eng_spa/corpus.jsonl")
SETTINGS = read_params_file("params.yaml")["caveats"]


def outputs_of(entries):
    return [e["variants"][0] if e["variants"] else e["source"] for e in entries]


def flags_uncached(entries, outputs, settings):
    caveats._LAST_FLAGS.clear()
    return caveats.entry_flags(entries, outputs, settings)


def same_flags(a, b):
    assert a.keys() == b.keys()
    for caveat in a:
        np.testing.assert_array_equal(a[caveat], b[caveat])


def test_caveat_flags_equal_a_first_computation():
    entries, outputs = copy.deepcopy(ENTRIES), outputs_of(ENTRIES)
    first = flags_uncached(entries, outputs, SETTINGS)
    again = caveats.entry_flags(entries, outputs, SETTINGS)
    same_flags(again, first)
    again["source_copy"][:] = True  # a caller's array is its own
    same_flags(caveats.entry_flags(entries, outputs, SETTINGS), first)
    entries[0]["reference"] = entries[0]["source"]  # changed in place: the memo must not answer for it
    changed = caveats.entry_flags(entries, outputs, SETTINGS)
    same_flags(changed, flags_uncached(entries, outputs, SETTINGS))
    looser = {**SETTINGS, "copy_similarity": 0.1}
    same_flags(caveats.entry_flags(entries, outputs, looser), flags_uncached(entries, outputs, looser))


def scoring_input(entries, outputs, raw=None):
    return ScoringInput(entries=entries, predictions=list(outputs), raw_predictions=list(raw or outputs),
                        source_lang="eng", target_lang="spa", source_card=load_card("data/languages/eng.yaml"),
                        target_card=load_card("data/languages/spa.yaml"))


def passes_uncached(data):
    compliance._LAST_CHECKS.clear()
    return compliance.double_pass(data)


def same_passes(a, b):
    for name in ("raw", "post_processed"):
        np.testing.assert_array_equal(a[name]["index"], b[name]["index"])
        np.testing.assert_array_equal(a[name]["violations"], b[name]["violations"])
        assert a[name]["components"] == b[name]["components"]


def test_compliance_checks_equal_a_first_computation():
    entries, outputs = copy.deepcopy(ENTRIES), outputs_of(ENTRIES)
    raw = [o.replace("«", '"') for o in outputs]
    data = scoring_input(entries, outputs, raw)
    first = passes_uncached(data)
    same_passes(compliance.double_pass(data), first)
    plain = scoring_input(entries, outputs)  # raw = post-processed: one computation for both passes
    same_passes(compliance.double_pass(plain), passes_uncached(plain))
    entries[1]["source"] = "{placeholder} " + entries[1]["source"]  # changed in place
    same_passes(compliance.double_pass(data), passes_uncached(data))
    data.target_card["quotes"] = [["<", ">"]]
    same_passes(compliance.double_pass(data), passes_uncached(data))

"""Score caveats and the tier gate: hand-built shares, and an adversarial suite on the demo corpus."""

import json
import math
import random
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import yaml

from lyss.aggregate import caveats
from lyss.aggregate.caveats import entry_flags, gated_tier, score_caveats, skipped_caveats
from lyss.embed.embedders import Embeddings, get_embedder

SETTINGS = yaml.safe_load(Path("params.yaml").read_text())["caveats"]
DEMO = [json.loads(line) for line in Path("data/corpora/demo_eng_spa/corpus.jsonl").read_text().splitlines()]
APERTIUM_OUTPUT = Path("results/translations/demo_eng_spa/apertium.jsonl")


def entries(*pairs):
    return [{"id": str(i), "source": s, "reference": r} for i, (s, r) in enumerate(pairs)]


def test_hand_built_shares():
    corpus = entries(("Good morning", "Buenos días"), ("Thank you very much", "Muchas gracias"),
                     ("See you", "Hasta luego"), ("OK", "OK"))
    outputs = ["Good morning", "Hasta luego", "Hasta luego", "OK"]
    flags = entry_flags(corpus, outputs, SETTINGS)
    # entry 0 copies its source; entry 3 copies too, but so does its reference → 1 of 4
    assert flags["source_copy"].tolist() == [True, False, False, False]
    # "Hasta luego" is given for two entries with different references → 2 of 4
    assert flags["near_constant_output"].tolist() == [False, True, True, False]
    # lengths 12/11, 11/14, 11/11, 2/2: nothing below 0.5 or above 2
    assert not flags["length_deflation"].any() and not flags["length_inflation"].any()
    assert "misaligned_output" not in flags  # too few entries for a retrieval check
    raised = {c["id"]: c for c in score_caveats(corpus, outputs, SETTINGS)}
    assert set(raised) == {"source_copy", "near_constant_output"}  # 25% ≥ 20%, 50% ≥ 20%
    assert raised["near_constant_output"]["share"] == 0.5 and raised["near_constant_output"]["entries"] == 2
    assert raised["source_copy"]["message"] == "25% of outputs are (near) copies of their source (threshold 20%)"


def test_length_and_empty_flags():
    corpus = entries(("a", "abcdefghij"), ("b", "abcdefghij"), ("c", "abcdefghij"), ("d", "ab"))
    outputs = ["abcd", "abcdefghij", None, "abcdefghijk"]
    flags = entry_flags(corpus, outputs, SETTINGS)
    assert flags["length_deflation"].tolist() == [True, False, True, False]  # 0.4 and 0 are below 0.5
    assert flags["length_inflation"].tolist() == [False, False, False, True]  # 11/2 = 5.5 is above 2
    assert flags["empty_output"].tolist() == [False, False, True, False]


def test_gate_keeps_flagged_runs_at_baseline():
    caveat = [{"id": "empty_output"}]
    assert gated_tier("functional", caveat, SETTINGS) == "baseline"
    assert gated_tier("functional", [], SETTINGS) == "functional"
    assert gated_tier("unscored", caveat, SETTINGS) == "unscored"
    assert gated_tier("functional", caveat, {**SETTINGS, "gate_tier": False}) == "functional"


def apertium_predictions() -> list[str]:
    """The pipeline's Apertium output when it exists, else a fresh `apertium -u eng-spa` run."""
    if APERTIUM_OUTPUT.exists():
        by_id = {r["id"]: r["prediction"] for r in map(json.loads, APERTIUM_OUTPUT.read_text().splitlines())}
        if all(e["id"] in by_id for e in DEMO):
            return [by_id[e["id"]] for e in DEMO]
    if shutil.which("apertium") is None:
        pytest.skip("apertium is not installed and no Apertium output exists")
    # entries as paragraphs: across single line breaks Apertium's transfer can move words between entries
    assert not any("\n\n" in e["source"] for e in DEMO)
    done = subprocess.run(["apertium", "-u", "eng-spa"], input="\n\n".join(e["source"] for e in DEMO),
                          capture_output=True, text=True, check=True)
    outputs = done.stdout.strip("\n").split("\n\n")
    assert len(outputs) == len(DEMO)
    return outputs


def adversarial_runs() -> dict[str, list[str]]:
    references = [e["reference"] for e in DEMO]
    shuffled = references[:]
    random.Random(7).shuffle(shuffled)
    return {
        "one repeated Spanish sentence": ["El hotel en el que nos alojamos el verano pasado ha cerrado."] * len(DEMO),
        "source copy": [e["source"] for e in DEMO],
        "empty": [""] * len(DEMO),
        "references shuffled across entries": shuffled,
        "references truncated to their first third": [" ".join(r.split()[:math.ceil(len(r.split()) / 3)])
                                                      for r in references],
    }


@pytest.mark.parametrize("attack", list(adversarial_runs()))
def test_adversarial_outputs_carry_a_caveat_and_stay_baseline(attack):
    caveats = score_caveats(DEMO, adversarial_runs()[attack], SETTINGS, get_embedder())
    assert caveats, attack
    assert gated_tier("fluent", caveats, SETTINGS) == "baseline"


def test_real_apertium_output_raises_no_caveat():
    caveats = score_caveats(DEMO, apertium_predictions(), SETTINGS, get_embedder())
    assert caveats == []
    assert gated_tier("functional", caveats, SETTINGS) == "functional"


def test_misaligned_outputs_are_found_by_bitext_retrieval_and_skipped_without_embeddings():
    """An output nearer another entry's source than its own is misaligned; without embeddings the caveat
    is not computed (no model is loaded behind the user's back) and says so."""
    entries = [{"id": str(i), "source": s, "reference": r} for i, (s, r) in enumerate([
        ("The cat sleeps.", "El gato duerme."), ("I like dogs.", "Me gustan los perros."),
        ("Open the file.", "Abre el archivo."), ("Good morning.", "Buenos días."),
        ("The train is late.", "El tren llega tarde."), ("Where is the station?", "¿Dónde está la estación?")])]
    # Two outputs swapped between entries 0 and 1: both are translations of the other entry's source.
    outputs = ["Me gustan los perros.", "El gato duerme.", "Abre el archivo.", "Buenos días.",
               "El tren llega tarde.", "¿Dónde está la estación?"]
    flags = entry_flags(entries, outputs, SETTINGS, get_embedder())["misaligned_output"]
    assert flags.tolist() == [True, True, False, False, False, False]
    assert "misaligned_output" not in entry_flags(entries, outputs, SETTINGS)
    # where the reference itself is nearer another source (the embedder cannot tell), nothing is flagged
    confused = [dict(e, reference=o) for e, o in zip(entries, outputs, strict=True)]
    assert entry_flags(confused, outputs, SETTINGS, get_embedder())["misaligned_output"].tolist() == [False] * 6
    assert "misaligned_output" in skipped_caveats(SETTINGS, None)
    assert skipped_caveats(SETTINGS, get_embedder()) == {}


def test_large_corpora_estimate_misaligned_share_on_a_seeded_sample(monkeypatch):
    """Above ALIGNMENT_SAMPLE entries only a seeded sample of outputs is searched (linear cost); the share
    is over the checked entries and the caveat says it is an estimate, with a Wilson interval."""
    monkeypatch.setattr(caveats, "ALIGNMENT_SAMPLE", 40)
    rng = np.random.default_rng(0)
    sources = rng.normal(size=(100, 8))
    entries = [{"id": str(i), "source": f"s{i}", "reference": f"r{i}"} for i in range(100)]
    # outputs of the first half are exact copies of the next entry's source vector: misaligned
    outputs = [f"s{(i + 1) % 100}" if i < 50 else f"o{i}" for i in range(100)]
    vectors = ({f"s{i}": sources[i] for i in range(100)} | {f"o{i}": sources[i] + 0.01 for i in range(100)}
               | {f"r{i}": sources[i] + 0.02 for i in range(100)})
    table = Embeddings("unused", known=vectors)
    flags = entry_flags(entries, outputs, SETTINGS, table)["misaligned_output"]
    checked = ~np.isnan(flags)
    assert checked.sum() == 40
    assert (flags[checked] == (np.arange(100)[checked] < 50)).all()
    raised = {c["id"]: c for c in score_caveats(entries, outputs, SETTINGS, table)}["misaligned_output"]
    hits = int((np.arange(100)[checked] < 50).sum())
    assert raised["share"] == pytest.approx(hits / 40) and raised["sample"]["checked"] == 40
    p, z = hits / 40, 1.96  # Wilson score interval by hand
    centre = (p + z * z / 80) / (1 + z * z / 40)
    half = z * math.sqrt(p * (1 - p) / 40 + z * z / (4 * 1600)) / (1 + z * z / 40)
    assert raised["sample"]["ci95"] == pytest.approx([centre - half, centre + half], abs=1e-6)

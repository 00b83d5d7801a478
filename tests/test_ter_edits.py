"""lyss.metrics.ter_edits gives sacrebleu's TER, not an approximation of it: the edit distance and trace of every
hypothesis equal sacrebleu's `BeamEditDistance` (so every shift candidate is ranked on the same numbers), and
the edit counts equal sacrebleu's `translation_edit_rate`, on real TED text (tokenised by sacrebleu's TER) and
on random word sequences over tiny vocabularies, where matches, ties and shifts are most frequent, with lengths
far apart (the beam widens) and empty sides."""

import csv
import random

import pytest
from sacrebleu.metrics import TER, lib_ter

from lyss.metrics import ter_edits
from lyss.prep.corpus import load_corpus


def random_pairs(n: int, seed: int):
    rng = random.Random(seed)
    for _ in range(n):
        vocabulary = rng.choice([2, 3, 6, 40])
        reference = [str(rng.randrange(vocabulary)) for _ in range(rng.choice([1, 2, 7, 20, 40]))]
        if rng.random() < 0.5:  # a reordered, edited copy: many shifts pay off
            hypothesis = reference[:]
            if rng.random() < 0.3:
                rng.shuffle(hypothesis)
            for _ in range(rng.randrange(6)):
                hypothesis[rng.randrange(len(hypothesis))] = str(rng.randrange(vocabulary + 2))
        else:
            hypothesis = [str(rng.randrange(vocabulary)) for _ in range(rng.choice([0, 1, 3, 20, 40, 90]))]
        yield hypothesis, reference


@pytest.fixture(scope="module")
def ted():
    """The first 150 English→German pairs of the shipped TED MQM file, as sacrebleu's TER tokenises them."""
    ter = TER()
    pairs = {}
    with open("data/corpora/mqm_ted_ende/raw/mqm_ted_ende.tsv", encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            pairs.setdefault((row["system"], row["seg_id"]), row["target"].replace("<v>", "").replace("</v>", ""))
    references = {seg: text for (system, seg), text in pairs.items() if system == "ref"}
    rows = [(ter._preprocess_segment(text).split(), ter._preprocess_segment(references[seg]).split())
            for (system, seg), text in sorted(pairs.items()) if system != "ref" and seg in references]
    return rows[:150]


def test_distance_and_trace_equal_sacrebleu_on_random_sequences():
    for hypothesis, reference in random_pairs(400, seed=7):
        theirs, ours = lib_ter.BeamEditDistance(reference), ter_edits.BeamEditDistance(reference)
        assert ours(hypothesis) == theirs(hypothesis)
        shuffled = hypothesis[::-1]  # a second call reads the rows the first one cached
        assert ours(shuffled) == theirs(shuffled)
        assert ours.distance(hypothesis) == theirs(hypothesis)[0]


def test_edit_counts_equal_sacrebleu_on_random_sequences():
    for hypothesis, reference in random_pairs(50, seed=11):
        assert ter_edits.translation_edit_rate(hypothesis, reference) == \
            lib_ter.translation_edit_rate(hypothesis, reference)


def test_lengths_far_apart_and_empty_sides():
    reference = [str(i % 40) for i in range(160)]
    for hypothesis in ([], ["0"], ["1", "0"], reference[:3], reference[::-1][:12] + ["x"] * 3):
        assert ter_edits.translation_edit_rate(hypothesis, reference) == \
            lib_ter.translation_edit_rate(hypothesis, reference)
        assert ter_edits.translation_edit_rate(reference, hypothesis) == \
            lib_ter.translation_edit_rate(reference, hypothesis)


def test_edit_counts_equal_sacrebleu_on_ted(ted):
    for hypothesis, reference in ted:
        assert ter_edits.translation_edit_rate(hypothesis, reference) == \
            lib_ter.translation_edit_rate(hypothesis, reference)
        # the reference as the hypothesis (the oracle check), answered without a search: sacrebleu's count too
        assert ter_edits.translation_edit_rate(reference, reference) == \
            lib_ter.translation_edit_rate(list(reference), reference) == (0, len(reference))
        theirs, ours = lib_ter.BeamEditDistance(reference), ter_edits.BeamEditDistance(reference)
        assert ours(hypothesis) == theirs(hypothesis)


def test_corpus_statistics_equal_sacrebleu_on_the_demo_corpus():
    from lyss.metrics.sacrebleu_stats import TerStats

    entries = load_corpus("data/corpora/demo_eng_spa/corpus.jsonl")
    references = [e["reference"] for e in entries]
    hypotheses = [e["source"] for e in entries]  # English against Spanish: shifts and edits everywhere
    assert TerStats()._extract_corpus_statistics(hypotheses, [references]) == \
        TER()._extract_corpus_statistics(hypotheses, [references])

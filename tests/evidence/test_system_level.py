"""System-level meta-evaluation on the statistic the leaderboard shows, and soft pairwise accuracy.

- Pairwise permutation p-values and SPA on three toy systems of three items, with all 2³ swap masks
  enumerated, against values computed by hand in the comments.
- SystemLevel with random masks converges to the exact (c / N) SPA of the same toy data.
- System Pearson on corpus chrF++ equals scipy's Pearson against sacrebleu's own corpus_score per
  system, which differs from the mean of sentence chrF++ that the system level used to correlate.
- validate_dataset (the evidence stage) does the same from the metric files, and correlates the card's
  composite of corpus values; system-level significance permutes systems.
"""

import csv
from itertools import product

import numpy as np
import pytest
from sacrebleu.metrics import CHRF
from scipy.stats import pearsonr

from lyss.evidence.correlate import CorrelationOptions, ScoreData, SystemLevel, significance_table
from lyss.evidence.dataset import validate_dataset
from lyss.metrics import get_metric
from lyss.metrics.base import MetricResult, ScoringInput, ratio_of_sums
from lyss.metrics.files import write_metric_result
from lyss.stats import CorpusStatistic, one_sided_p_values, pairwise_permutation_p_values, soft_pairwise_accuracy

ALL_MASKS = np.array(list(product([False, True], repeat=3)))  # every swap pattern of 3 items


def _means(per_system):
    return [CorpusStatistic(np.column_stack([np.asarray(v, float), np.ones(len(v))]), ratio_of_sums)
            for v in per_system]


# Human: A = [3, 2, 1], B = [1, 1, 1], C = [1, 2, 0]. With d = A − B = [2, 1, 0] a mask m gives the null
# difference of means (3 − 2·m·d) / 3; m·d = 0 for 2 of the 8 masks, so p(A > B) = (1 + 2) / (1 + 8) = 1/3,
# and likewise p(A > C) = 1/3 (d = [2, 0, 1]). B − C = [0, −1, 1] has observed difference 0 and
# m·d <= 0 for 6 masks: p(B > C) = 7/9.
HUMAN = [[3, 2, 1], [1, 1, 1], [1, 2, 0]]
# Metric: A = [2, 2, 2], B = [3, 0, 0], C = [0, 0, 0]. A − B = [−1, 2, 2]: null >= 1 for m·d <= 0, masks
# 000 and 100, p = 3/9. A − C = [2, 2, 2]: only the identity mask, p = 2/9. B − C = [3, 0, 0]: m1 = 0 for 4
# masks, p = 5/9. SPA = 1 − (|3/9 − 3/9| + |3/9 − 2/9| + |7/9 − 5/9|) / 3 = 1 − 1/9 = 8/9.
METRIC = [[2, 2, 2], [3, 0, 0], [0, 0, 0]]


def test_pairwise_p_values_by_hand():
    human = pairwise_permutation_p_values(_means(HUMAN), ALL_MASKS)
    metric = pairwise_permutation_p_values(_means(METRIC), ALL_MASKS)
    assert [human[0, 1], human[0, 2], human[1, 2]] == pytest.approx([3 / 9, 3 / 9, 7 / 9])
    assert [metric[0, 1], metric[0, 2], metric[1, 2]] == pytest.approx([3 / 9, 2 / 9, 5 / 9])
    assert metric[1, 0] == pytest.approx(8 / 9)  # B > A: null <= 1 for every mask but 011 (m·d = 4)
    assert np.isnan(human[0, 0])
    assert soft_pairwise_accuracy(human, metric) == pytest.approx(8 / 9)


def test_pairwise_p_values_use_the_corpus_formula():
    # Rows [hits, total] of a rate over words: the corpus value is Σhits / Σtotal, not the mean of ratios.
    # A = 3/4 over (1/1, 2/3), B = 2/4 over (0/1, 2/3): the only difference is on item 1. Swapping item 1
    # (masks with m1 = 1, 4 of 8) gives null −1/4 < 1/4, the others 1/4 >= 1/4: p = (1 + 4) / 9.
    rows_a, rows_b = np.array([[1.0, 1], [2, 3]]), np.array([[0.0, 1], [2, 3]])
    masks = np.array(list(product([False, True], repeat=2)))
    p = pairwise_permutation_p_values([CorpusStatistic(rows_a, ratio_of_sums),
                                       CorpusStatistic(rows_b, ratio_of_sums)], masks)
    assert p[0, 1] == pytest.approx(3 / 5)  # 2 of 4 masks leave item 1: (1 + 2) / (1 + 4)


def _toy_data(metric):
    systems = [s for s in "ABC" for _ in range(3)]
    items = ["x", "y", "z"] * 3
    return ScoreData("toy.csv", np.array(HUMAN, float).ravel(), {"m": np.array(metric, float).ravel()},
                     systems, items, "item")


def test_system_level_spa_converges_to_the_exact_value():
    # With random masks each of the 8 patterns turns up 1/8 of the time: p → c / 8. Human 2/8, 2/8, 6/8,
    # metric 2/8, 1/8, 4/8: SPA → 1 − (0 + 1/8 + 2/8) / 3 = 0.875.
    data = _toy_data(METRIC)
    level = SystemLevel(data, CorrelationOptions(permutations=40_000, seed=3))
    spa, items = level.soft_pairwise_accuracy(data.statistic("m"))
    assert items == 3 and spa == pytest.approx(0.875, abs=0.01)
    # A lower-is-better metric that ranks the systems the same way gets the same SPA negated.
    negated = _toy_data(-np.array(METRIC, float))
    spa_lower, _ = SystemLevel(negated, CorrelationOptions(permutations=40_000, seed=3)).soft_pairwise_accuracy(
        negated.statistic("m"), lower=True)
    assert spa_lower == pytest.approx(spa, abs=1e-12)


def test_spa_uses_only_items_every_system_has():
    data = _toy_data(METRIC)
    data.items = ["x", "y", "z", "x", "y", "w", "x", "y", "z"]  # B lacks z: 2 shared items
    spa, items = SystemLevel(data, CorrelationOptions(permutations=100)).soft_pairwise_accuracy(data.statistic("m"))
    assert items == 2 and 0 <= spa <= 1


HYPOTHESES = {
    "good": ["The cat sits on the mat.", "It is raining today in the city.", "We went home late.",
             "A very long sentence about the weather, the sea and the mountains in the north."],
    "fair": ["The cat sat on a mat.", "Today it rains.", "We go home.",
             "A long sentence about weather and mountains."],
    "poor": ["Cat.", "Rain in city today it is", "Home we late", "Weather."],
}
REFERENCES = ["The cat sits on the mat.", "It is raining in the city today.", "We went home late.",
              "A very long sentence about the weather, the sea and the mountains of the north."]
HUMAN_SCORES = {"good": [0, -1, 0, -1], "fair": [-2, -4, -5, -3], "poor": [-9, -6, -7, -10]}


def _chrf_result(hypotheses):
    entries = [{"id": f"e{k}", "source": "s", "reference": r} for k, r in enumerate(REFERENCES)]
    data = ScoringInput(entries=entries, predictions=hypotheses, raw_predictions=hypotheses,
                        source_lang="eng", target_lang="eng")
    return get_metric("chrf_plus_plus").score(data)


def _sacrebleu_corpus(hypotheses):
    return CHRF(word_order=2).corpus_score(hypotheses, [REFERENCES]).score


def test_system_pearson_is_on_corpus_chrf_as_sacrebleu_computes_it():
    results = {m: _chrf_result(h) for m, h in HYPOTHESES.items()}
    systems = [m for m in HYPOTHESES for _ in REFERENCES]
    data = ScoreData("t.csv", np.array([h for m in HYPOTHESES for h in HUMAN_SCORES[m]], float),
                     {"chrf_plus_plus": np.concatenate([results[m].values for m in HYPOTHESES])},
                     systems, [f"e{k}" for k in range(4)] * 3, "item",
                     corpus={"chrf_plus_plus": CorpusStatistic(np.vstack([results[m].stats for m in HYPOTHESES]),
                                                               get_metric("chrf_plus_plus").corpus_value)})
    level = SystemLevel(data, CorrelationOptions())
    corpus = [_sacrebleu_corpus(HYPOTHESES[m]) for m in sorted(HYPOTHESES)]
    human = [np.mean(HUMAN_SCORES[m]) for m in sorted(HYPOTHESES)]
    assert level.corpus_scores(data.statistic("chrf_plus_plus"))[0] == pytest.approx(corpus, abs=1e-9)
    assert level.evaluate(data.statistic("chrf_plus_plus"))["pearson"][0] == pytest.approx(pearsonr(human, corpus)[0])
    sentence_means = [np.mean(results[m].values) for m in sorted(HYPOTHESES)]
    assert pearsonr(human, sentence_means)[0] != pytest.approx(pearsonr(human, corpus)[0], abs=1e-4)


def test_evidence_stage_correlates_corpus_values_and_the_cards_composite(tmp_path):
    paths, ids = [], [f"e{k}" for k in range(4)]
    semantic = {"good": [0.9, 0.8, 0.95, 0.7], "fair": [0.8, 0.5, 0.6, 0.75], "poor": [0.2, 0.5, 0.3, 0.1]}
    for method, hypotheses in HYPOTHESES.items():
        path = tmp_path / method / "chrf_plus_plus.parquet"
        write_metric_result(path, _chrf_result(hypotheses), ids)
        values = np.array(semantic[method])
        shares = (1 - values) ** 2  # semantic_score's rows: the squared-distance share of each entry, and 1
        write_metric_result(tmp_path / method / "semantic_score.parquet",
                            MetricResult("semantic_score", values, 1 - float(np.sqrt(shares.mean())),
                                         stats=np.column_stack([shares, np.ones(4)])), ids)
        paths += [path, tmp_path / method / "semantic_score.parquet"]
    human = tmp_path / "human.csv"
    human.write_text("method,id,human\n" + "".join(f"{m},{i},{h}\n" for m in HUMAN_SCORES
                                                   for i, h in zip(ids, HUMAN_SCORES[m], strict=True)))
    weights = {"chrf_plus_plus": 0.25, "semantic_score": 0.75}
    draws = CorrelationOptions(resamples=50, permutations=50, seed=1)
    evidence = validate_dataset(human, paths, tmp_path / "out", draws,
                                weights=weights, normalisation={"chrf_plus_plus": "divide_by_100"})
    methods = sorted(HYPOTHESES)
    human_means = [np.mean(HUMAN_SCORES[m]) for m in methods]
    corpus = [_sacrebleu_corpus(HYPOTHESES[m]) for m in methods]
    # semantic_score's corpus value: 1 − the root mean square of the entries' distances (1 − value)
    card = [0.25 * c / 100 + 0.75 * (1 - np.sqrt(np.mean((1 - np.array(semantic[m])) ** 2)))
            for c, m in zip(corpus, methods, strict=True)]
    metrics = evidence["metrics"]
    assert metrics["chrf_plus_plus"]["system_pearson"][0] == pytest.approx(pearsonr(human_means, corpus)[0])
    assert metrics["composite"]["system_pearson"][0] == pytest.approx(pearsonr(human_means, card)[0])
    with open(tmp_path / "out" / "correlations.csv", encoding="utf-8") as handle:
        system_rows = [r for r in csv.DictReader(handle) if r["level"] == "system"]
    assert all(0 <= float(r["soft_pairwise_accuracy"]) <= 1 and r["spa_items"] == "4" for r in system_rows)
    with open(tmp_path / "out" / "significance.csv", encoding="utf-8") as handle:
        system_tests = [r for r in csv.DictReader(handle) if r["level"] == "system"]
    # The system-level test compares the correlations of the systems' corpus scores.
    row = next(r for r in system_tests if r["statistic"] == "pearson" and r["metric_a"] == "composite"
               and r["metric_b"] == "chrf_plus_plus")
    assert float(row["delta"]) == pytest.approx(pearsonr(human_means, card)[0] - pearsonr(human_means, corpus)[0])


def test_system_significance_permutes_system_scores():
    # Two copies of one metric: every swap of system scores leaves the difference at 0, p = 1.
    rng = np.random.default_rng(2)
    systems = [f"s{k}" for k in range(6) for _ in range(5)]
    human = rng.normal(size=30)
    metric = human + rng.normal(size=30)
    data = ScoreData("t.csv", human, {"a": metric, "b": metric.copy()}, systems, [f"i{k}" for k in range(5)] * 6,
                     "item")
    options = CorrelationOptions(permutations=64)
    rows = significance_table(data, [SystemLevel(data, options)], options)
    assert rows and all(r["p_value"] == pytest.approx(1.0) and r["level"] == "system" for r in rows)


def test_an_undefined_observed_difference_has_no_p_value():
    # A metric constant on every item has no Kendall τ per item: "better than chrF++" is undefined, not p = 1/(N+1).
    p_ab, p_ba, used = one_sided_p_values(np.array([0.1, -0.2, np.nan]), float("nan"))
    assert np.isnan(p_ab) and np.isnan(p_ba) and used == 2
    assert one_sided_p_values(np.array([0.1, -0.2, 0.3]), 0.25) == (pytest.approx(2 / 4), pytest.approx(3 / 4), 3)

"""lyss.stats.correlation / correlate and `lyss correlate`: scipy equality, hand-computed pairwise
accuracy with tie calibration, bootstrap coverage, permutation test behaviour."""

import csv
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import kendalltau, pearsonr, spearmanr

from lyss.cli import main
from lyss.evidence.correlate import (
    CorrelationOptions,
    ScoreData,
    SegmentLevel,
    SystemLevel,
    correlation_table,
    significance_table,
)
from lyss.stats import count_matrix, percentile_interval
from lyss.stats.correlation import pair_statistics, weighted_midranks, weighted_pearson, weighted_spearman

DEMO = Path(__file__).resolve().parents[2] / "data" / "validation" / "scores.csv"


def _random_case(seed=0, n=40):
    rng = np.random.default_rng(seed)
    human = rng.integers(0, 6, n).astype(float)  # many ties
    metric = np.round(human + rng.normal(0, 1.5, n), 1)
    weights = rng.integers(0, 4, n).astype(float)
    return human, metric, weights


def test_weighted_statistics_equal_scipy_on_the_repeated_sample():
    human, metric, weights = _random_case()
    h, m = np.repeat(human, weights.astype(int)), np.repeat(metric, weights.astype(int))
    assert weighted_pearson(human, metric, weights) == pytest.approx(pearsonr(h, m)[0], abs=1e-12)
    assert weighted_spearman(human, metric, weights) == pytest.approx(spearmanr(h, m)[0], abs=1e-12)
    tau, _, _ = pair_statistics(human[None], metric[None], weights[None], calibrate_ties=False)
    assert tau[0] == pytest.approx(kendalltau(h, m, variant="b")[0], abs=1e-12)


def test_unweighted_statistics_equal_scipy():
    human, metric, _ = _random_case(seed=1)
    assert weighted_pearson(human, metric) == pytest.approx(pearsonr(human, metric)[0], abs=1e-12)
    assert weighted_spearman(human, metric) == pytest.approx(spearmanr(human, metric)[0], abs=1e-12)
    tau, _, _ = pair_statistics(human[None], metric[None])
    assert tau[0] == pytest.approx(kendalltau(human, metric, variant="b")[0], abs=1e-12)


def test_midranks_by_hand():
    # Values 10, 20, 20, 30 with weights 1, 2, 1, 1 = sample 10, 20, 20, 20, 30:
    # 10 -> 1, the three 20s share ranks 2..4 -> 3, 30 -> 5.
    assert weighted_midranks([10, 20, 20, 30], [1, 2, 1, 1]).tolist() == [1, 3, 3, 5]


def test_pairwise_accuracy_without_calibration_by_hand():
    # human 1, 2, 3; metric 1, 1, 3. Pairs: (1,2) metric tie -> wrong, (1,3) and (2,3) concordant.
    # acc23 = (concordant 2 + tied-in-both 0) / 3 pairs.
    _, accuracy, epsilon = pair_statistics([[1, 2, 3]], [[1, 1, 3]], calibrate_ties=False)
    assert accuracy == pytest.approx(2 / 3) and epsilon == 0


def test_tie_calibration_by_hand():
    # human 1, 1, 2; metric 0.0, 0.1, 1.0. Pairs: (a,b) human tie, metric gap 0.1; (a,c) concordant,
    # gap 1.0; (b,c) concordant, gap 0.9. epsilon 0: 2/3. epsilon 0.1 makes (a,b) a tie in both: 3/3.
    # epsilon 0.9 also ties (b,c): 2/3. Best: 1.0 at epsilon 0.1.
    _, accuracy, epsilon = pair_statistics([[1, 1, 2]], [[0.0, 0.1, 1.0]])
    assert accuracy == pytest.approx(1.0)
    assert epsilon == pytest.approx(0.1)


def _brute_force_accuracy(human, metric, epsilon):
    correct = total = 0
    for a, b in combinations(range(len(human)), 2):
        sign_h = np.sign(human[a] - human[b])
        sign_m = 0 if abs(metric[a] - metric[b]) <= epsilon else np.sign(metric[a] - metric[b])
        correct += sign_h == sign_m
        total += 1
    return correct / total


@pytest.mark.parametrize("seed", [2, 3, 4])
def test_tie_calibration_equals_exhaustive_search(seed):
    human, metric, weights = _random_case(seed, n=25)
    candidates = {0.0} | {abs(x - y) for x in metric for y in metric}
    best = max(_brute_force_accuracy(human, metric, e) for e in candidates)
    assert pair_statistics(human[None], metric[None])[1] == pytest.approx(best, abs=1e-12)
    # and with multiplicities (a bootstrap resample), against the repeated sample
    h, m = np.repeat(human, weights.astype(int)), np.repeat(metric, weights.astype(int))
    best = max(_brute_force_accuracy(h, m, e) for e in candidates)
    assert pair_statistics(human[None], metric[None], weights[None])[1] == pytest.approx(best, abs=1e-12)


def assert_each_group(got: np.ndarray, expected) -> None:
    """got[k, g] equals expected(k, g) to 1e-12 for every batch row k and group g, NaN exactly where it is."""
    for k, g in np.ndindex(got.shape):
        want = expected(k, g)
        if np.isnan(want):
            assert np.isnan(got[k, g]), (k, g)
        else:
            assert got[k, g] == pytest.approx(want, abs=1e-12), (k, g)


def _table(human, metrics, systems=None, items=None):
    return ScoreData(
        "scores.csv",
        np.asarray(human, float),
        {k: np.asarray(v, float) for k, v in metrics.items()},
        systems,
        items,
        "item" if items else None,
    )


def test_system_level_by_hand():
    # Three systems, two items each. Human system means 10, 20, 30; metric means 0.1, 0.3, 0.2.
    # Pairs (A,B) and (A,C) agree in sign, (B,C) does not: pairwise accuracy 2/3.
    data = _table(
        [10, 10, 20, 20, 30, 30],
        {"m": [0.1, 0.1, 0.3, 0.3, 0.2, 0.2]},
        systems=["A", "A", "B", "B", "C", "C"],
        items=["x", "y"] * 3,
    )
    stats = SystemLevel(data, CorrelationOptions()).evaluate(data.metrics["m"])
    assert stats["pairwise_accuracy"][0] == pytest.approx(2 / 3)
    assert stats["pearson"][0] == pytest.approx(pearsonr([10, 20, 30], [0.1, 0.3, 0.2])[0])
    assert stats["kendall"][0] == pytest.approx(kendalltau([10, 20, 30], [0.1, 0.3, 0.2])[0])
    # A lower-is-better copy (1 − m) is asked with its sign flipped: the same 2 of 3 pairs, not 1 of 3.
    data.metrics["ter_like"] = 1 - data.metrics["m"]
    data.lower = frozenset({"ter_like"})
    options = CorrelationOptions(resamples=20, statistics=("kendall", "pairwise_accuracy"))
    rows = {r["metric"]: r for r in correlation_table(data, [SystemLevel(data, options)], options)}
    assert rows["ter_like"]["kendall"] == pytest.approx(-kendalltau([10, 20, 30], [0.1, 0.3, 0.2])[0])
    assert rows["ter_like"]["pairwise_accuracy"] == pytest.approx(2 / 3)


def test_group_by_item_averages_per_item_statistics():
    rng = np.random.default_rng(5)
    items = [f"i{k}" for k in range(8) for _ in range(4)]
    human = rng.normal(size=32)
    metric = human + rng.normal(0, 0.8, 32)
    data = _table(human, {"m": metric}, systems=[f"s{k}" for _ in range(8) for k in range(4)], items=items)
    level = SegmentLevel(data, CorrelationOptions(group_by_item=True))
    stats = level.evaluate(metric)
    blocks = [slice(4 * k, 4 * k + 4) for k in range(8)]
    assert stats["pearson"][0] == pytest.approx(np.mean([pearsonr(human[b], metric[b])[0] for b in blocks]))
    assert stats["kendall"][0] == pytest.approx(np.mean([kendalltau(human[b], metric[b])[0] for b in blocks]))


def test_swapped_evaluation_is_the_evaluation_of_the_swapped_values():
    rng = np.random.default_rng(8)
    items = [f"i{k}" for k in range(9) for _ in range(5)]
    human = rng.integers(0, 3, 45).astype(float)
    a, b = np.round(rng.normal(size=45), 1), np.round(rng.normal(size=45), 1)
    data = _table(human, {"a": a}, systems=[f"s{k}" for _ in range(9) for k in range(5)], items=items)
    level = SegmentLevel(data, CorrelationOptions(group_by_item=True, statistics=("kendall", "pearson")))
    swap = rng.integers(0, 2, size=(40, 45)).astype(bool)
    got, expected = level.evaluate_swapped(a, b, swap), level.evaluate(np.where(swap, b, a))
    assert list(got) == ["kendall", "pearson"]
    assert got["kendall"].tobytes() == expected["kendall"].tobytes()  # integer sums: to the bit
    assert got["pearson"] == pytest.approx(expected["pearson"], abs=1e-12)  # float sums in another order


def test_bootstrap_counts_evaluate_like_explicit_resamples():
    human, metric, _ = _random_case(seed=6, n=30)
    data = _table(human, {"m": metric})
    level = SegmentLevel(data, CorrelationOptions())
    counts = count_matrix(30, 5, seed=1)
    stats = level.evaluate(metric, counts)
    for b in range(5):
        index = np.repeat(np.arange(30), counts[b])
        assert stats["pearson"][b] == pytest.approx(pearsonr(human[index], metric[index])[0], abs=1e-12)
        assert stats["kendall"][b] == pytest.approx(kendalltau(human[index], metric[index])[0], abs=1e-12)


def test_pearson_bootstrap_interval_coverage():
    # Bivariate normal with rho = 0.6, n = 80: the 95 % percentile interval covers 0.6 about 95 % of
    # the time (a little less is normal for the percentile method at this size).
    rng = np.random.default_rng(11)
    cov = [[1, 0.6], [0.6, 1]]
    hits = 0
    for k in range(300):
        x, y = rng.multivariate_normal([0, 0], cov, 80).T
        low, high = percentile_interval(weighted_pearson(x, y, count_matrix(80, 800, k)), 0.95)
        hits += low <= 0.6 <= high
    assert 0.90 <= hits / 300 <= 0.98


def test_permutation_test_prefers_the_better_metric():
    rng = np.random.default_rng(8)
    human = rng.normal(size=60)
    data = _table(human, {"good": human + rng.normal(0, 0.3, 60), "noise": rng.normal(size=60)})
    options = CorrelationOptions(permutations=200)
    rows = significance_table(data, [SegmentLevel(data, options)], options)
    pearson = {(r["metric_a"], r["metric_b"]): r for r in rows if r["statistic"] == "pearson"}
    assert pearson[("good", "noise")]["p_value"] == pytest.approx(1 / 201)  # no permutation reaches it
    assert pearson[("noise", "good")]["p_value"] > 0.9
    assert pearson[("good", "noise")]["delta"] == pytest.approx(
        pearsonr(human, data.metrics["good"])[0] - pearsonr(human, data.metrics["noise"])[0]
    )


def test_permutation_test_is_calm_for_two_copies_of_one_metric():
    # a and b are the same metric: every swap leaves the difference at 0, so p = 1 both ways.
    rng = np.random.default_rng(9)
    human = rng.normal(size=30)
    metric = human + rng.normal(size=30)
    data = _table(human, {"a": metric, "b": metric.copy()})
    options = CorrelationOptions(permutations=50)
    for row in significance_table(data, [SegmentLevel(data, options)], options):
        assert row["p_value"] == pytest.approx(1.0)


def _read(path):
    with open(path, encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_cli_on_demo_data(tmp_path):
    out = tmp_path / "corr"
    metrics = ["metric_good", "metric_fair", "metric_weak"]
    code = main(
        [
            "correlate",
            str(DEMO),
            "--human",
            "human",
            "--metrics",
            ",".join(metrics),
            "--system",
            "system",
            "--item",
            "item",
            "--resamples",
            "200",
            "--permutations",
            "50",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    rows = _read(out / "correlations.csv")
    expected = ["level", "metric", "n"] + [
        f"{s}{x}" for s in ("pearson", "spearman", "kendall", "pairwise_accuracy") for x in ("", "_lo", "_hi")
    ]
    assert set(expected) <= set(rows[0])
    assert [(r["level"], r["metric"]) for r in rows] == [(lvl, m) for lvl in ("segment", "system") for m in metrics]
    demo = _read(DEMO)
    human = np.array([float(r["human"]) for r in demo])
    good = np.array([float(r["metric_good"]) for r in demo])
    segment = rows[0]
    assert float(segment["pearson"]) == pytest.approx(pearsonr(human, good)[0], rel=1e-5)
    assert float(segment["spearman"]) == pytest.approx(spearmanr(human, good)[0], rel=1e-5)
    assert float(segment["kendall"]) == pytest.approx(kendalltau(human, good)[0], rel=1e-5)
    assert float(segment["pearson_lo"]) <= float(segment["pearson"]) <= float(segment["pearson_hi"])
    systems = sorted({r["system"] for r in demo})
    means_h = [np.mean([float(r["human"]) for r in demo if r["system"] == s]) for s in systems]
    means_m = [np.mean([float(r["metric_good"]) for r in demo if r["system"] == s]) for s in systems]
    assert float(rows[3]["pearson"]) == pytest.approx(pearsonr(means_h, means_m)[0], rel=1e-5)
    significance = _read(out / "significance.csv")
    assert list(significance[0]) == [
        "level",
        "statistic",
        "metric_a",
        "metric_b",
        "delta",
        "p_value",
        "permutations",
    ]
    assert len(significance) == 2 * 4 * 3 * 2  # levels x statistics x metric pairs x directions


def test_cli_bad_input_names_file_line_and_field(tmp_path, capsys):
    bad = tmp_path / "scores.csv"
    bad.write_text("system,item,human,m\nA,x,1,0.5\nA,y,2,n/a\n", encoding="utf-8")
    assert main(["correlate", str(bad), "--human", "human", "--metrics", "m", "--out", str(tmp_path / "o")]) == 2
    message = capsys.readouterr().err
    assert f"{bad}:3" in message and "field 'm'" in message
    assert main(["correlate", str(bad), "--human", "human", "--metrics", "nope", "--out", str(tmp_path / "o")]) == 2
    assert "missing column 'nope' (columns: system, item, human, m)" in capsys.readouterr().err
    assert main(["correlate", str(bad), "--human", "humna", "--metrics", "m", "--out", str(tmp_path / "o")]) == 2
    assert (f"{bad}:1: field 'humna': missing column 'humna' (did you mean 'human'?) (columns: system, item, human, m)"
            in capsys.readouterr().err)


def test_lean_kendall_equals_scipy_with_ties():
    from lyss.stats.correlation import kendall_tau_b

    rng = np.random.default_rng(21)
    human = rng.integers(0, 4, size=(3, 7, 9)).astype(float)  # many ties on both sides
    metric = rng.integers(0, 5, size=(3, 7, 9)).astype(float)
    metric[0, 0] = 1.0  # a constant group: τ undefined
    got = kendall_tau_b(human, metric)
    assert_each_group(got, lambda b, g: kendalltau(human[b, g], metric[b, g], variant="b")[0])


@pytest.mark.parametrize("seed,ties", [(3, True), (4, False)])
def test_swapped_kendall_equals_scipy_and_the_lean_path_to_the_bit(seed, ties):
    """The permutation test's shortcut: τ per item of the grids with a and b swapped where the mask says,
    against scipy on each swapped grid, and byte for byte against kendall_tau_b on np.where(swap, b, a)."""
    from lyss.stats.correlation import kendall_tau_b, swapped_kendall_tau_b

    rng = np.random.default_rng(seed)
    human = rng.integers(0, 4, size=(11, 6)).astype(float)
    if ties:
        a, b = (rng.integers(0, 4, size=(11, 6)).astype(float) for _ in range(2))
        a[0], b[0] = 2.0, 2.0  # an item where the metric is constant whatever the mask: τ undefined
    else:
        a, b = rng.standard_normal((11, 6)), rng.standard_normal((11, 6))
    swap = rng.integers(0, 2, size=(25, 11, 6)).astype(bool)
    got = swapped_kendall_tau_b(human, a, b, swap)
    swapped = np.where(swap, b, a)
    assert got.tobytes() == kendall_tau_b(human, swapped).tobytes()
    assert_each_group(got, lambda k, g: kendalltau(human[g], swapped[k, g], variant="b")[0])


@pytest.mark.parametrize("seed,ties", [(5, True), (6, False)])
def test_swapped_pearson_equals_scipy_on_every_swapped_item(seed, ties):
    """The permutation test's Pearson shortcut: r per item of the grids with a and b swapped where the mask
    says, against scipy on each swapped grid; NaN where the human or the swapped metric is constant."""
    from lyss.stats.correlation import swapped_pearson

    rng = np.random.default_rng(seed)
    human = rng.integers(0, 4, size=(11, 6)).astype(float)
    human[1] = 3.0  # raters tied on every translation of an item: r undefined whatever the mask
    if ties:
        a, b = (rng.integers(0, 4, size=(11, 6)).astype(float) for _ in range(2))
        a[0], b[0] = 2.0, 2.0  # a metric constant on an item whatever the mask
    else:
        a, b = rng.standard_normal((11, 6)) * 40 + 50, rng.standard_normal((11, 6)) * 40 + 50
    swap = rng.integers(0, 2, size=(25, 11, 6)).astype(bool)
    got = swapped_pearson(human, a, b, swap)
    swapped = np.where(swap, b, a)
    assert got.shape == (25, 11)
    assert_each_group(got, lambda k, g: np.nan if g == 1 or (ties and g == 0) or np.ptp(swapped[k, g]) == 0
                      else pearsonr(human[g], swapped[k, g])[0])


def test_threads_give_the_same_tables_to_the_bit():
    """`workers` runs the per-metric and per-pair statistics on threads; the tables, in their order, are
    the one-thread tables byte for byte."""
    from lyss.evidence.correlate import correlation_table, levels_for

    rng = np.random.default_rng(12)
    items = [f"i{k}" for k in range(12) for _ in range(4)]
    systems = [f"s{k}" for _ in range(12) for k in range(4)]
    human = rng.integers(0, 5, 48).astype(float)
    metrics = {name: np.round(human + rng.normal(0, s, 48), 2) for name, s in (("a", 1), ("b", 2), ("c", 3))}
    data = _table(human, metrics, systems=systems, items=items)
    tables = []
    for workers in (1, 2):
        options = CorrelationOptions(group_by_item=True, resamples=50, permutations=50, seed=3, workers=workers)
        tables.append(repr((correlation_table(data, levels_for(data, options), options),
                            significance_table(data, levels_for(data, options), options))))
    assert tables[0] == tables[1]
    assert "'metric_a': 'c', 'metric_b': 'b'" in tables[0]  # every pair in both directions


def test_swap_mask_matrix_is_the_swap_masks_stream():
    from lyss.stats import swap_mask_matrix, swap_masks

    blocks = np.vstack(list(swap_masks(17, 70, [3, 1]))).astype(bool)
    np.testing.assert_array_equal(swap_mask_matrix(17, 70, [3, 1]), blocks)


def test_csv_values_are_written_at_the_fixed_precision():
    """Ten significant digits (lyss.io.SIGNIFICANT_DIGITS), NumPy or not: the same bytes on any machine."""
    from lyss.tables import format_value

    assert format_value(0.1234567890123) == "0.123456789"
    assert format_value(np.float64(2 / 3)) == "0.6666666667"
    assert format_value(float("nan")) == "" and format_value(None) == ""


def test_sorted_kendall_and_accuracy_equal_the_all_pairs_computation():
    from lyss.stats.correlation import sorted_kendall_accuracy

    rng = np.random.default_rng(4)
    human = rng.integers(0, 5, 300).astype(float)
    metric = np.round(rng.normal(size=300) + human / 3, 1)  # ties on both sides
    tau, accuracy = sorted_kendall_accuracy(human, metric)
    assert tau == pytest.approx(kendalltau(human, metric, variant="b")[0], abs=1e-12)
    i, j = np.triu_indices(300, 1)
    sh, sm = np.sign(human[i] - human[j]), np.sign(metric[i] - metric[j])
    assert accuracy == pytest.approx(np.mean((sh * sm > 0) | ((sh == 0) & (sm == 0))), abs=1e-12)


def test_large_flat_segment_level_sorts_and_matches_scipy_on_resamples():
    from lyss.evidence.correlate import SORTING_ABOVE_ROWS

    n = SORTING_ABOVE_ROWS + 100
    human, metric, _ = _random_case(seed=9, n=n)
    data = _table(human, {"m": metric})
    level = SegmentLevel(data, CorrelationOptions())
    assert level.by_sorting
    counts = count_matrix(n, 3, seed=2)
    stats = level.evaluate(metric, counts)
    for b in range(3):
        index = np.repeat(np.arange(n), counts[b])
        assert stats["kendall"][b] == pytest.approx(kendalltau(human[index], metric[index])[0], abs=1e-12)
        assert stats["spearman"][b] == pytest.approx(spearmanr(human[index], metric[index])[0], abs=1e-12)


def test_cli_lower_is_better_agrees_when_negative_and_is_compared_oriented(tmp_path):
    rng = np.random.default_rng(12)
    human = rng.normal(size=60)
    good = human + rng.normal(0, 0.5, 60)
    pairs = enumerate(zip(human.tolist(), good.tolist(), strict=True))  # Python floats (NumPy 2 repr)
    lines = ["item,human,good,error_rate"] + [f"i{k},{h!r},{g!r},{5 - g!r}" for k, (h, g) in pairs]
    scores = tmp_path / "scores.csv"
    scores.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["correlate", str(scores), "--human", "human", "--metrics", "good,error_rate", "--item", "item",
                 "--lower-is-better", "error_rate", "--resamples", "100", "--permutations", "50",
                 "--out", str(out)]) == 0
    rows = {r["metric"]: r for r in _read(out / "correlations.csv")}
    # written at 10 significant digits (lyss.io.SIGNIFICANT_DIGITS)
    assert float(rows["error_rate"]["kendall"]) == pytest.approx(-kendalltau(human, good)[0], abs=1e-10)
    assert (rows["error_rate"]["direction"], rows["error_rate"]["agrees"]) == ("lower", "yes")
    assert (rows["good"]["direction"], rows["good"]["agrees"]) == ("higher", "yes")
    # Accuracy has no sign: error_rate = 5 − good ranks every pair as good does, so it is as accurate, with the
    # same tie threshold (mirrored) and interval; unoriented it would be about 1 − accuracy.
    for column in ("pairwise_accuracy", "pairwise_accuracy_lo", "pairwise_accuracy_hi", "epsilon"):
        assert float(rows["error_rate"][column]) == pytest.approx(float(rows["good"][column]), abs=1e-9), column
    assert float(rows["good"]["pairwise_accuracy"]) > 0.6
    # error_rate = 5 − good: oriented, the two metrics are the same ranking, so no difference at all.
    delta = [float(r["delta"]) for r in _read(out / "significance.csv") if r["statistic"] == "kendall"]
    assert delta == pytest.approx([0.0, 0.0], abs=1e-12)


def test_cli_warns_when_tie_calibration_ties_every_pair(tmp_path, capsys):
    # Per item the raters tie a, b, c (3 of 6 pairs) and put d last; the metric (0, 3, 6, 4) gets 1 pair right
    # plainly, 2 with epsilon 3 or 4, and 3 of 6 only by tying every pair (epsilon 6, the widest gap).
    rows = (("a", 0, 0), ("b", 0, 3), ("c", 0, 6), ("d", -1, 4))
    lines = ["system,item,human,m"] + [f"{s},i{k},{h},{m + k}" for k in range(4) for s, h, m in rows]
    scores = tmp_path / "scores.csv"
    scores.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["correlate", str(scores), "--human", "human", "--metrics", "m", "--item", "item", "--system", "system",
            "--group-by-item", "--resamples", "20", "--out", str(tmp_path / "out")]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "warning: m: tie calibration chose epsilon 6, which ties every pair" in err
    assert "pairwise accuracy (0.5000)" in err
    assert main([*args, "--no-tie-calibration"]) == 0
    assert "warning" not in capsys.readouterr().err


def _with_blanks(tmp_path, blank: dict[int, str]):
    """The demo scores with the cells `blank` names (row index → column) left empty."""
    demo = _read(DEMO)
    header = list(demo[0])
    rows = [{**r, blank[k]: ""} if k in blank else r for k, r in enumerate(demo)]
    scores = tmp_path / "scores.csv"
    scores.write_text(",".join(header) + "\n" + "".join(",".join(r[c] for c in header) + "\n" for r in rows),
                      encoding="utf-8")
    return demo, scores


def test_cli_leaves_out_rows_with_an_empty_cell_and_says_how_many(tmp_path, capsys):
    """An unrated translation (empty human cell) or one a metric could not score is no evidence: the row is
    left out for every metric, so the paired test still compares the same rows, and stderr counts them."""
    blank = {3: "human", 10: "human", 17: "metric_fair"}
    demo, scores = _with_blanks(tmp_path, blank)
    out = tmp_path / "out"
    assert main(["correlate", str(scores), "--human", "human", "--metrics", "metric_good,metric_fair",
                 "--resamples", "20", "--permutations", "20", "--out", str(out)]) == 0
    assert "left out 3 rows: those with an empty cell (human: 2, metric_fair: 1)\n" in capsys.readouterr().err
    kept = [r for k, r in enumerate(demo) if k not in blank]
    segment = {r["metric"]: r for r in _read(out / "correlations.csv") if r["level"] == "segment"}
    human = [float(r["human"]) for r in kept]
    for metric in ("metric_good", "metric_fair"):
        assert int(segment[metric]["n"]) == len(demo) - 3
        assert float(segment[metric]["kendall"]) == pytest.approx(
            kendalltau(human, [float(r[metric]) for r in kept])[0], rel=1e-9)


def test_cli_with_items_leaves_out_the_whole_item_of_an_empty_cell(tmp_path, capsys):
    """Per item every system must be there (the grouped statistics and the system means compare systems on
    the same items), so an item with one empty cell goes whole."""
    demo, scores = _with_blanks(tmp_path, {3: "human", 17: "metric_fair"})
    lost = {demo[3]["item"], demo[17]["item"]}
    kept = [r for r in demo if r["item"] not in lost]
    out = tmp_path / "out"
    assert main(["correlate", str(scores), "--human", "human", "--metrics", "metric_good,metric_fair",
                 "--system", "system", "--item", "item", "--group-by-item", "--no-tie-calibration",
                 "--resamples", "20", "--permutations", "20", "--out", str(out)]) == 0
    assert (f"left out {len(demo) - len(kept)} rows: those with an empty cell (human: 1, metric_fair: 1), "
            "and the other rows of their items (item)") in capsys.readouterr().err
    rows = {(r["level"], r["metric"]): r for r in _read(out / "correlations.csv")}
    items = sorted({r["item"] for r in kept})
    taus = [kendalltau([float(r["human"]) for r in kept if r["item"] == i],
                       [float(r["metric_good"]) for r in kept if r["item"] == i])[0] for i in items]
    assert float(rows["segment", "metric_good"]["kendall"]) == pytest.approx(np.nanmean(taus), rel=1e-9)
    systems = sorted({r["system"] for r in kept})
    means = [[np.mean([float(r[c]) for r in kept if r["system"] == s]) for s in systems]
             for c in ("human", "metric_good")]
    assert float(rows["system", "metric_good"]["pearson"]) == pytest.approx(pearsonr(*means)[0], rel=1e-9)


def test_cli_without_a_complete_row_is_an_error_naming_the_columns(tmp_path, capsys):
    scores = tmp_path / "scores.csv"
    scores.write_text("human,m\n,1\n2,\n", encoding="utf-8")
    assert main(["correlate", str(scores), "--human", "human", "--metrics", "m", "--out", str(tmp_path / "o")]) == 2
    assert f"{scores}: no row has a value in every one of human, m" in capsys.readouterr().err

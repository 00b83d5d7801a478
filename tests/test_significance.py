"""lyss.significance: every pair of methods on a dataset, checked against sacrebleu's PairedTest, scipy's
binomial test, and hand-computed coverage and cluster cases."""

import json
import random

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.significance import PairedTest
from scipy.stats import binomtest

from lyss.errors import InputError
from lyss.metrics.base import MetricResult, ScoringInput
from lyss.metrics.files import write_metric_result
from lyss.metrics.surface import Bleu, ChrFPlusPlus, ExactMatch
from lyss.settings import Composite, Stats
from lyss.significance import best_cluster, compare_methods, dataset_significance, load_method_results

WORDS = ("el la de que y en un una los se del las por con para es al lo como más pero casa perro tiempo "
         "ciudad agua libro mundo día noche").split()
WEIGHTS = {"fst_acceptance_rate": 0.25, "chrf_plus_plus": 0.15, "exact_match_rate": 0.05}
NORMALISATION = {"chrf_plus_plus": "divide_by_100"}


def systems(n=150, seed=0):
    rng = random.Random(seed)
    refs = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 14))) for _ in range(n)]

    def perturb(rate):
        return [" ".join(w if rng.random() >= rate else rng.choice(WORDS) for w in r.split()) for r in refs]

    return refs, {"a": perturb(0.25), "b": perturb(0.25), "c": perturb(0.5)}


def score(refs, hyps) -> dict[str, MetricResult]:
    entries = [{"id": str(i), "source": r, "reference": r} for i, r in enumerate(refs)]
    data = ScoringInput(entries, hyps, hyps, "spa", "spa")
    return {p.id: p.score(data) for p in (ExactMatch(), ChrFPlusPlus(), Bleu())}


@pytest.fixture(scope="module")
def compared():
    refs, hyps = systems()
    per_method = {name: score(refs, h) for name, h in hyps.items()}
    block = compare_methods(per_method, WEIGHTS, NORMALISATION, n_bootstrap=1000, n_trials=2000, seed=12345)
    return refs, hyps, per_method, block


def row(block, baseline, system, metric):
    return next(r for r in block["comparisons"]
                if (r["baseline"], r["system"], r["metric"]) == (baseline, system, metric))


def test_every_pair_and_metric_is_compared(compared):
    _, _, _, block = compared
    assert block["methods"] == ["a", "b", "c"]
    pairs = {(r["baseline"], r["system"]) for r in block["comparisons"]}
    assert pairs == {("a", "b"), ("a", "c"), ("b", "c")}
    metrics = {r["metric"] for r in block["comparisons"]}
    assert metrics == {"chrf_plus_plus", "bleu", "exact_match_rate", "composite"}
    json.dumps(block)  # JSON-serialisable as written to results/significance/<dataset>.json
    for r in block["comparisons"]:
        assert r["delta"] == pytest.approx(r["score"] - r["baseline_score"])
        assert r["ci_lower"] <= r["ci_upper"]
        assert r["p_bs"] <= r["p_bs_holm"] <= 1 and r["p_ar"] <= r["p_ar_holm"] <= 1


@pytest.mark.parametrize("metric,sacre", [("chrf_plus_plus", lambda: CHRF(word_order=2)), ("bleu", BLEU)])
def test_p_values_and_scores_agree_with_sacrebleu(compared, metric, sacre):
    # compare_methods draws its resamples as sacrebleu does (seed 12345 here and in sacrebleu's default),
    # so the p-values agree up to one count (1/(N + 1)) from float rounding; scores agree exactly.
    refs, hyps, _, block = compared
    for test, n in (("bs", 1000), ("ar", 2000)):
        _, results = PairedTest([("a", hyps["a"]), ("b", hyps["b"])], {"m": sacre()}, [refs], test_type=test,
                                n_samples=n)()
        key = next(k for k in results if k != "System")
        r = row(block, "a", "b", metric)
        assert r["baseline_score"] == pytest.approx(results[key][0].score, abs=1e-9)
        assert r["score"] == pytest.approx(results[key][1].score, abs=1e-9)
        assert 0.01 < results[key][1].p_value < 0.9  # not a trivially decided case
        assert abs(r[f"p_{test}"] - results[key][1].p_value) <= 1 / (n + 1) + 1e-12


def test_holm_is_applied_across_the_pairs_of_each_metric(compared):
    _, _, _, block = compared
    for metric in ("chrf_plus_plus", "composite"):
        group = sorted((r for r in block["comparisons"] if r["metric"] == metric), key=lambda r: r["p_bs"])
        # Three pairs: the smallest p is multiplied by 3 (capped at 1).
        assert group[0]["p_bs_holm"] == pytest.approx(min(1.0, 3 * group[0]["p_bs"]))
        assert all(x["p_bs_holm"] <= y["p_bs_holm"] for x, y in zip(group, group[1:], strict=False))


def test_mcnemar_blocks_count_the_discordant_entries(compared):
    refs, hyps, _, block = compared
    a = np.array([h == r for h, r in zip(hyps["a"], refs, strict=True)])
    c = np.array([h == r for h, r in zip(hyps["c"], refs, strict=True)])
    r = next(x for x in block["mcnemar"] if (x["baseline"], x["system"]) == ("a", "c"))
    assert r["metric"] == "exact_match_rate" and r["n"] == len(refs)
    assert (r["baseline_only"], r["system_only"]) == (int(np.sum(a & ~c)), int(np.sum(~a & c)))
    discordant = r["baseline_only"] + r["system_only"]
    expected = binomtest(min(r["baseline_only"], r["system_only"]), discordant, 0.5).pvalue
    assert r["p_value"] == pytest.approx(expected, rel=1e-12)
    assert "p_value_holm" in r


def test_differing_composite_coverage_is_warned_and_compared_on_shared_metrics():
    refs, hyps = systems(n=60)
    per_method = {name: score(refs, h) for name, h in hyps.items()}
    per_method["c"]["fst_acceptance_rate"] = MetricResult("fst_acceptance_rate", np.ones(60), 1.0)
    del per_method["b"]["bleu"]
    block = compare_methods(per_method, WEIGHTS, NORMALISATION, n_bootstrap=100, n_trials=100, seed=1)
    assert block["composite_metrics"] == ["chrf_plus_plus", "exact_match_rate"]
    coverage, missing = block["warnings"]
    assert "fst_acceptance_rate" in coverage and "shared metrics only" in coverage
    assert missing.startswith("bleu is unavailable") and "for b;" in missing
    assert {(r["baseline"], r["system"]) for r in block["comparisons"] if r["metric"] == "bleu"} == {("a", "c")}
    # c's composite over the shared metrics: (0.15·chrF/100 + 0.05·EM) / 0.20, FST left out.
    c = per_method["c"]
    chrf, em = c["chrf_plus_plus"].corpus_value, c["exact_match_rate"].corpus_value
    expected = (0.15 * chrf / 100 + 0.05 * em) / 0.20
    assert block["scores"]["c"]["composite"] == pytest.approx(expected)


def test_significant_needs_the_ci_to_exclude_zero():
    refs, hyps = systems(n=40)
    same = score(refs, hyps["a"])
    block = compare_methods({"x": same, "y": same}, WEIGHTS, NORMALISATION, n_bootstrap=100, n_trials=100,
                            seed=1)
    assert all(r["p_bs"] == 1.0 and not r["significant"] for r in block["comparisons"])


def test_best_cluster():
    block = {
        "scores": {"A": {"composite": 0.80}, "B": {"composite": 0.79}, "C": {"composite": 0.50}},
        "comparisons": [
            {"baseline": "B", "system": "A", "metric": "composite", "significant": False},
            {"baseline": "A", "system": "C", "metric": "composite", "significant": True},
            {"baseline": "B", "system": "C", "metric": "composite", "significant": True},
        ],
    }
    assert best_cluster(block) == {"metric": "composite", "best": "A", "methods": ["A", "B"]}
    assert best_cluster({"scores": {"A": {}}, "comparisons": []})["best"] is None


def _write(tmp_path, refs, hyps, ids=None):
    paths = []
    for name, h in hyps.items():
        for metric, result in score(refs, h).items():
            path = tmp_path / "results" / "metrics" / "demo" / name / f"{metric}.parquet"
            write_metric_result(path, result, ids or [str(i) for i in range(len(refs))])
            paths.append(path)
    return paths


def _card(tmp_path, name, kind, scores):
    path = tmp_path / "results" / "runs" / "demo" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"method": {"name": name, "kind": kind}, "scores": scores,
                                "composite_profile": {"profile": "B"}}))
    return path


def test_dataset_significance_compares_what_the_cards_show_and_never_the_oracle(tmp_path):
    refs, hyps = systems(n=40)
    paths = _write(tmp_path, refs, {**hyps, "reference": refs})
    shown = {"chrf_plus_plus": 1.0, "exact_match_rate": 0.5, "bleu": 1.0}
    cards = [_card(tmp_path, "a", "precomputed", shown), _card(tmp_path, "b", "precomputed", shown),
             # c's card nulls exact_match_rate (say, too few entries): it is neither tested nor in c's composite
             _card(tmp_path, "c", "precomputed", {**shown, "exact_match_rate": None}),
             _card(tmp_path, "reference", "reference", shown)]
    composite = Composite.of({"profiles": {"A": WEIGHTS, "B": {"chrf_plus_plus": 0.25, "exact_match_rate": 0.10}},
                              "normalisation": NORMALISATION})
    stats = Stats.of({"seed": 5, "bootstrap_resamples": 200, "alpha": 0.05, "ar_trials": 200})
    out = tmp_path / "significance" / "demo.json"
    dataset_significance(dataset="demo", metric_paths=paths, card_paths=cards, composite=composite, stats=stats,
                         out_path=out)
    block = json.loads(out.read_text())
    assert block["dataset"] == "demo" and block["composite_profile"] == "B"  # the cards' profile
    assert block["methods"] == ["a", "b", "c"]  # the oracle is not a contestant
    assert block["composite_metrics"] == ["chrf_plus_plus"]  # the only weighted metric every card shows
    assert "exact_match_rate" not in block["scores"]["c"]
    assert not any("c" in (r["baseline"], r["system"]) and r["metric"] == "exact_match_rate"
                   for r in block["comparisons"])
    chrf_c = CHRF(word_order=2).corpus_score(hyps["c"], [refs]).score
    assert block["scores"]["c"]["composite"] == pytest.approx(chrf_c / 100)
    assert block["best_cluster"]["best"] in ("a", "b")
    assert "c" not in block["best_cluster"]["methods"]  # c is much worse (half its words replaced)


def test_metric_files_over_different_entries_are_refused(tmp_path):
    refs, hyps = systems(n=10)
    paths = _write(tmp_path, refs, {"a": hyps["a"]})
    paths += _write(tmp_path, refs, {"b": hyps["b"]}, ids=[f"x{i}" for i in range(10)])
    with pytest.raises(InputError, match="differ from those of"):
        load_method_results(paths)


def test_thirteen_systems_get_enough_resamples_for_holm():
    """78 pairs: 1,000 resamples give p ≥ 1/1001, which Holm multiplies by 78 (0.078 > α), so no pair could be
    significant; the stage raises the resamples to 2·78/0.05 − 1 = 3,119 and a clear difference is found."""
    refs, hyps = systems(n=80, seed=3)
    rng = random.Random(7)
    per_method = {}
    for k in range(13):
        rate = 0.05 if k == 0 else 0.6
        hyp = [" ".join(w if rng.random() >= rate else rng.choice(WORDS) for w in r.split()) for r in refs]
        per_method[f"s{k:02d}"] = score(refs, hyp)
    block = compare_methods(per_method, WEIGHTS, NORMALISATION, n_bootstrap=1000, n_trials=2000, seed=1)
    assert block["settings"]["n_bootstrap"] == 3119 and block["settings"]["n_trials"] == 3119
    chrf = [r for r in block["comparisons"] if r["metric"] == "chrf_plus_plus"]
    assert len(chrf) == 78
    clear = [r for r in chrf if r["baseline"] == "s00"]
    assert all(r["significant"] for r in clear)
    assert min(r["p_bs_holm"] for r in chrf) <= 78 / 3120

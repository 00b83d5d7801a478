"""Spec §8.2 and seed 003: paired significance between the methods of a dataset, from their per-entry
metric files (`results/significance/<dataset>.json`).

For every pair of methods and each metric declared `significance` (lyss.metrics.significance_metrics:
chrF++, BLEU, exact match) and the composite: the paired bootstrap (p-value, mean difference, percentile
CI of the difference) and paired approximate randomization; McNemar's exact test on the per-entry
outcomes of the metrics declared `binary`; Holm's correction across the pairs of the dataset.
When methods differ in which composite metrics are available, composites are compared on the metrics
all of them share, with a warning (§4.1), because composites over different metric sets do not compare.
"""

from itertools import combinations
from pathlib import Path

from lyss.aggregate.confidence import composite_statistic, corpus_statistic
from lyss.errors import InputError
from lyss.io import read_json, write_json_atomic
from lyss.metrics import binary_metrics, significance_metrics
from lyss.metrics.base import MetricResult
from lyss.metrics.files import read_metric_result
from lyss.settings import Composite, Stats, thaw
from lyss.stats import (
    CorpusStatistic,
    approximate_randomization,
    bootstrap_scores,
    holm,
    holm_resolvable,
    mcnemar_exact,
    paired_bootstrap,
    significant,
)


def shared_composite_metrics(per_method: dict[str, dict[str, MetricResult]], weights: dict
                             ) -> tuple[list[str], str | None]:
    """The weighted metrics available for every method, and a warning when the methods' sets differ."""
    available = {name: {m for m in weights if m in results and results[m].available}
                 for name, results in per_method.items()}
    shared = set.intersection(*available.values()) if available else set()
    ordered = [m for m in weights if m in shared]
    if len({frozenset(v) for v in available.values()}) <= 1:
        return ordered, None
    listing = "; ".join(f"{name}: {', '.join(m for m in weights if m in v) or 'none'}"
                        for name, v in available.items())
    return ordered, (f"methods differ in available composite metrics ({listing}); their run-card "
                     "composites are not directly comparable (spec §4.1), so significance compares "
                     f"composites over the shared metrics only ({', '.join(ordered) or 'none'})")


def method_statistics(results: dict[str, MetricResult], metrics, weights: dict, normalisation: dict,
                      composite_over: list[str]) -> dict[str, CorpusStatistic]:
    """The resampling statistic of each requested metric a method has (composite over `composite_over`)."""
    out = {}
    for metric in metrics:
        if metric == "composite":
            statistic = (composite_statistic(results, weights, normalisation, over=set(composite_over))
                         if composite_over else None)
        else:
            statistic = corpus_statistic(results[metric]) if metric in results else None
        if statistic is not None:
            out[metric] = statistic
    return out


def coverage_notes(statistics: dict[str, dict[str, CorpusStatistic]], metrics) -> list[str]:
    """A note for each metric that some methods have and others lack: it is compared only where both
    methods of a pair have it, so a reader should know which comparisons are missing."""
    notes = []
    for metric in metrics:
        lacking = [name for name, stats in statistics.items() if metric not in stats]
        if lacking and len(lacking) < len(statistics):
            notes.append(f"{metric} is unavailable (or not recomputable from per-entry rows) for "
                         f"{', '.join(lacking)}; it is compared only between methods that have it")
    return notes


def _add_holm(rows: list[dict], key: str) -> None:
    """`<key>_holm` beside `<key>`: Holm over the rows of each metric (the pairs of the dataset)."""
    for metric in dict.fromkeys(r["metric"] for r in rows):
        group = [r for r in rows if r["metric"] == metric and r.get(key) is not None]
        for row, adjusted in zip(group, holm([r[key] for r in group]), strict=True):
            row[f"{key}_holm"] = adjusted


def compare_pairs(statistics: dict[str, dict[str, CorpusStatistic]], pairs: list[tuple[str, str]], *,
                  n_bootstrap: int = 1000, n_trials: int = 10_000, seed: int | None, alpha: float = 0.05,
                  with_ar: bool = True) -> list[dict]:
    """One row per (baseline, system, metric) both methods have: scores, delta = system − baseline, the
    bootstrap CI of the delta, p_bs (and p_ar), Holm-adjusted over the pairs, and whether the difference
    is significant (§8.2: Holm-adjusted bootstrap p < α and the CI excludes 0)."""
    keys = [(name, metric) for name, stats in statistics.items() for metric in stats]
    samples = dict(zip(keys, bootstrap_scores([statistics[n][m] for n, m in keys], n_bootstrap, seed),
                       strict=True)) if keys else {}
    jobs = [(a, b, m) for a, b in pairs for m in statistics[a] if m in statistics[b]]
    pair_stats = [(statistics[a][m], statistics[b][m]) for a, b, m in jobs]
    p_ar = approximate_randomization(pair_stats, n_trials, seed) if with_ar else [None] * len(jobs)
    rows = []
    for (a, b, metric), p in zip(jobs, p_ar, strict=True):
        test = paired_bootstrap(statistics[a][metric].score(), statistics[b][metric].score(),
                                samples[(a, metric)], samples[(b, metric)], alpha)
        row = {"baseline": a, "system": b, "metric": metric, "baseline_score": test.baseline_score,
               "score": test.score, "delta": test.delta, "delta_mean": test.delta_mean,
               "ci_lower": test.ci_lower, "ci_upper": test.ci_upper, "p_bs": test.p_value}
        if with_ar:
            row["p_ar"] = p
        rows.append(row)
    _add_holm(rows, "p_bs")
    if with_ar:
        _add_holm(rows, "p_ar")
    for row in rows:
        row["significant"] = significant(row["p_bs_holm"], row["ci_lower"], row["ci_upper"], alpha)
    return rows


def mcnemar_pairs(per_method: dict[str, dict[str, MetricResult]], pairs: list[tuple[str, str]]) -> list[dict]:
    """McNemar's exact test with its discordant counts for each pair and binary metric both have."""
    rows = []
    for a, b in pairs:
        for metric in binary_metrics():
            ra, rb = per_method[a].get(metric), per_method[b].get(metric)
            if ra is None or rb is None or not (ra.available and rb.available):
                continue
            test = mcnemar_exact(ra.values, rb.values)
            rows.append({"baseline": a, "system": b, "metric": metric, "n": test.n,
                         "baseline_only": test.baseline_only, "system_only": test.system_only,
                         "p_value": test.p_value})
    _add_holm(rows, "p_value")
    return rows


def compare_methods(per_method: dict[str, dict[str, MetricResult]], weights: dict, normalisation: dict, *,
                    n_bootstrap: int = 1000, n_trials: int = 10_000, seed: int | None,
                    alpha: float = 0.05) -> dict:
    """Every pair of methods (in the given order) on one dataset; JSON-serialisable. `n_bootstrap` and
    `n_trials` are raised where they are too few for any pair to pass Holm's correction over all pairs
    (lyss.stats.holm_resolvable); `settings` records the numbers used."""
    shared, warning = shared_composite_metrics(per_method, weights)
    compared = significance_metrics()
    statistics = {name: method_statistics(results, compared, weights, normalisation, shared)
                  for name, results in per_method.items()}
    pairs = list(combinations(per_method, 2))
    n_bootstrap = holm_resolvable(n_bootstrap, len(pairs), alpha)
    n_trials = holm_resolvable(n_trials, len(pairs), alpha)
    return {
        "methods": list(per_method),
        "settings": {"n_bootstrap": n_bootstrap, "n_trials": n_trials, "seed": seed, "alpha": alpha,
                     "ci": "percentile bootstrap of the paired difference",
                     "p_value": "(c + 1) / (n + 1), two-sided, as sacrebleu",
                     "holm": "across the pairs of the dataset, per metric and test"},
        "composite_metrics": shared,
        "warnings": ([warning] if warning else []) + coverage_notes(statistics, compared),
        "scores": {name: {m: s.score() for m, s in stats.items()} for name, stats in statistics.items()},
        "comparisons": compare_pairs(statistics, pairs, n_bootstrap=n_bootstrap, n_trials=n_trials, seed=seed,
                                     alpha=alpha),
        "mcnemar": mcnemar_pairs(per_method, pairs),
    }


def best_cluster(significance: dict, metric: str = "composite") -> dict:
    """The best method by `metric` and every method not significantly different from it (the best
    included), for the leaderboard's marks."""
    scored = {name: s[metric] for name, s in significance["scores"].items() if metric in s}
    if not scored:
        return {"metric": metric, "best": None, "methods": []}
    best = max(scored, key=scored.get)
    different = {r["system"] if r["baseline"] == best else r["baseline"]
                 for r in significance["comparisons"]
                 if r["metric"] == metric and best in (r["baseline"], r["system"]) and r["significant"]}
    return {"metric": metric, "best": best, "methods": [m for m in scored if m not in different]}


def load_method_results(metric_paths) -> dict[str, dict[str, MetricResult]]:
    """Metric files `results/metrics/<dataset>/<method>/<metric>.parquet`, grouped by method; every file
    must cover the same entries in the same order, since the tests pair entries by position."""
    per_method: dict[str, dict[str, MetricResult]] = {}
    first_ids, first_path = None, None
    for path in metric_paths:
        result, ids = read_metric_result(path)
        if first_ids is None:
            first_ids, first_path = ids, path
        elif ids != first_ids:
            raise InputError(path, f"its entries (ids, order) differ from those of {first_path}; "
                                   "paired tests need the same entries for every method")
        per_method.setdefault(Path(path).parent.name, {})[result.metric] = result
    return per_method


def dataset_significance(*, dataset: str, metric_paths, card_paths, composite: Composite, stats: Stats,
                         out_path) -> dict:
    """The work of rule `significance`: compare every system of a dataset and write the JSON file.

    The run cards decide what is compared: a metric null in a card (it failed its reference check, had too
    few entries, or was not computed) is not tested for that method, so the composites compared are the
    ones the cards show (over the metrics they share), and the reference oracle is never a contestant."""
    cards = [read_json(p) for p in card_paths]
    systems = {c["method"]["name"]: c for c in cards if c["method"].get("kind") != "reference"}
    per_method = {name: {m: r for m, r in results.items() if systems[name]["scores"].get(m) is not None}
                  for name, results in load_method_results(metric_paths).items() if name in systems}
    profile = next(iter(systems.values()))["composite_profile"]["profile"] if systems else "B"
    block = compare_methods(per_method, thaw(composite.profiles[profile]), thaw(composite.normalisation),
                            n_bootstrap=stats.bootstrap_resamples, n_trials=stats.ar_trials, seed=stats.seed,
                            alpha=stats.alpha)
    block = {"dataset": dataset, "composite_profile": profile, **block, "best_cluster": best_cluster(block)}
    write_json_atomic(out_path, block)
    return block

"""What the raters of a dataset say about its systems (`results/evidence/<dataset>/raters.json`): each rated
method's mean human score and rank, and which methods the raters significantly prefer to which.

The leaderboard ranks by the composite; where people rated the same outputs, a ★ ("best composite") that they
significantly rank below another system is a claim the dataset itself contradicts, so the run cards carry
this verdict (lyss.aggregate.validation_status.rater_block) and the leaderboard withholds the ★ there
(lyss.report.board.best_marks). The test is the one the leaderboard uses between systems (spec §8.2): a
paired bootstrap over the items, here of the mean human score, with Holm's correction across the pairs;
significant = Holm-adjusted p < α and the CI of the difference excludes 0. Pairs are compared on the items
every rated method has a score for, so that all pairs are resampled on the same items and the means are
comparable across the table.
"""

from itertools import combinations

import numpy as np

from lyss.aggregate.validation_status import RATERS_FILE
from lyss.metrics.base import ratio_of_sums
from lyss.stats import CorpusStatistic, bootstrap_scores, holm, holm_resolvable, paired_bootstrap, significant

__all__ = ["RATERS_FILE", "complete_items", "rater_verdict"]
# Numbers are written rounded: their last bits depend on the BLAS that sums the bootstrap counts, and the file is
# versioned (a fresh clone must reproduce it byte for byte).
DECIMALS = 9


def complete_items(methods: list[str], items: list[str]) -> list[str]:
    """The items rated for every method, in their first order of appearance."""
    rated: dict[str, set[str]] = {}
    for method, item in zip(methods, items, strict=True):
        rated.setdefault(method, set()).add(item)
    common = set.intersection(*rated.values()) if rated else set()
    return [item for item in dict.fromkeys(items) if item in common]


def rater_verdict(dataset: str | None, methods: list[str], items: list[str], human: np.ndarray, *, resamples: int,
                  seed: int, alpha: float) -> dict:
    """The raters' table of one dataset: `methods` {name: {mean, rank}} over the items every method has,
    and `preferred`: one row per significant pair, the better method first (delta = better − worse).
    `resamples` is raised where Holm's correction over the pairs needs more (lyss.stats.holm_resolvable)."""
    shared = complete_items(methods, items)
    names = sorted(set(methods))
    pairs = list(combinations(names, 2))
    resamples = holm_resolvable(resamples, len(pairs), alpha)
    position = {item: k for k, item in enumerate(shared)}
    scores = {name: np.full(len(shared), np.nan) for name in names}
    for method, item, value in zip(methods, items, np.asarray(human, dtype=float), strict=True):
        if item in position:
            scores[method][position[item]] = value
    means = {name: round(float(values.mean()), DECIMALS) for name, values in scores.items()} if shared else {}
    # Competition ranking: equal means share a rank, the next rank counts the methods above it.
    table = {name: {"mean": means.get(name),
                    "rank": 1 + sum(means[other] > means[name] for other in names) if shared else None}
             for name in names}
    verdict = {"dataset": dataset, "items": len(shared),
               "scale": "the human column of the dataset's human scores, higher is better",
               "test": {"kind": "paired bootstrap of the mean over items, Holm across pairs", "resamples": resamples,
                        "seed": seed, "alpha": alpha},
               "methods": table, "preferred": []}
    if len(names) < 2 or len(shared) < 2:
        return verdict
    statistics = [CorpusStatistic(np.column_stack([scores[n], np.ones(len(shared))]), ratio_of_sums) for n in names]
    samples = dict(zip(names, bootstrap_scores(statistics, resamples, seed), strict=True))
    tests = [(a, b, paired_bootstrap(means[a], means[b], samples[a], samples[b], alpha))
             for a, b in pairs]
    adjusted = holm([test.p_value for _, _, test in tests])
    for (a, b, test), p_holm in zip(tests, adjusted, strict=True):
        if not significant(p_holm, test.ci_lower, test.ci_upper, alpha):
            continue
        better, worse, sign = (b, a, 1.0) if test.delta > 0 else (a, b, -1.0)
        low, high = sorted([sign * test.ci_lower, sign * test.ci_upper])
        verdict["preferred"].append({"better": better, "worse": worse, "delta": round(sign * test.delta, DECIMALS),
                                     "ci": [round(low, DECIMALS), round(high, DECIMALS)],
                                     "p_holm": round(p_holm, DECIMALS)})
    return verdict

"""Anchor effect: how grades move when the prompt shows a reference grade (the anchor).

Each judge grades every item twice, blind and with the anchor shown. The pull toward the anchor is
measured directly (share moved toward / away, share equal to the anchor, mean shift in the anchor's
direction) and through its effect on accuracy (exact agreement change with a paired bootstrap
interval, Spearman and kappa change), split by whether the anchor happened to be the true grade.
"""

import numpy as np

from lyss.stats import count_matrix, percentile_interval
from lyss.stats.correlation import weighted_spearman
from lyss.studies.agreement import quadratic_weighted_kappa
from lyss.studies.calibration import leave_one_corpus_out
from lyss.studies.jury import JURY_PREFIX, GradesData, JuryOptions, can_calibrate, corpora
from lyss.studies.merge_grades import aggregate, to_grade

JUDGE_MEAN = "judges:mean"


def pull(blind, anchored, anchor) -> dict:
    """Movement of the anchored grades relative to the blind ones.

    toward: the grade changed in the anchor's direction (overshooting included); away: it changed
    otherwise (also when the blind grade already was the anchor). mean_shift is the mean change in
    grades, signed so that + is toward the anchor (items whose blind grade is the anchor count 0).
    """
    direction = np.sign(anchor - blind)
    moved = anchored != blind
    toward = moved & (np.sign(anchored - blind) == direction) & (direction != 0)
    return {
        "toward": float(np.mean(toward)),
        "away": float(np.mean(moved & ~toward)),
        "equal_anchor_blind": float(np.mean(blind == anchor)),
        "equal_anchor_anchored": float(np.mean(anchored == anchor)),
        "mean_shift": float(np.mean((anchored - blind) * direction)),
    }


def accuracy_change(human, blind, anchored, anchor, levels) -> dict:
    truth = anchor == human
    row = {
        "spearman_blind": float(weighted_spearman(human, blind)),
        "spearman_anchored": float(weighted_spearman(human, anchored)),
        "qwk_blind": quadratic_weighted_kappa(human, blind, levels),
        "qwk_anchored": quadratic_weighted_kappa(human, anchored, levels),
        "exact_blind": float(np.mean(blind == human)),
        "exact_anchored": float(np.mean(anchored == human)),
    }
    row["spearman_change"] = row["spearman_anchored"] - row["spearman_blind"]
    row["exact_effect"] = row["exact_anchored"] - row["exact_blind"]
    for tag, mask in (("anchor_true", truth), ("anchor_false", ~truth)):
        row[f"exact_blind_{tag}"] = float(np.mean(blind[mask] == human[mask])) if mask.any() else float("nan")
        row[f"exact_anchored_{tag}"] = float(np.mean(anchored[mask] == human[mask])) if mask.any() else float("nan")
    return row


def _effect_interval(gain_per_item: np.ndarray, counts: np.ndarray, confidence: float) -> tuple[float, float]:
    """Percentile interval of the mean per-item gain in exact agreement, items resampled."""
    return percentile_interval(counts @ gain_per_item / len(gain_per_item), confidence)


def anchor_table(data: GradesData, names: list[str], options: JuryOptions) -> list[dict]:
    """anchors.csv: per corpus, each judge with anchored grades, their mean, the raw jury and the
    calibrated jury (anchored aggregate mapped with the fit on the blind grades of other corpora)."""
    judges = [n for n in data.judges if n in data.anchored]
    blind_matrix = np.column_stack([data.judges[n] for n in names])
    anchored_matrix = np.column_stack([data.anchored[n] for n in names])

    def jury(matrix, rule):
        return aggregate(matrix, rule, options.levels, options.trim)

    # (member, calibrated, blind grades, anchored grades); the single judges come first.
    series = [(n, False, data.judges[n], data.anchored[n]) for n in judges]
    rule = options.raw_rule
    series.append(
        (
            JURY_PREFIX + rule,
            False,
            to_grade(jury(blind_matrix, rule), options.levels),
            to_grade(jury(anchored_matrix, rule), options.levels),
        )
    )
    if can_calibrate(data):
        rule = options.calibrated_rule
        fit = jury(blind_matrix, rule)
        series.append(
            (
                JURY_PREFIX + rule,
                True,
                leave_one_corpus_out(data.corpus, fit, data.human),
                leave_one_corpus_out(data.corpus, fit, data.human, jury(anchored_matrix, rule)),
            )
        )
    rows = []
    for k, corpus in enumerate(corpora(data)):
        mask = data.corpus == corpus
        human, anchor = data.human[mask], data.anchor[mask]
        counts = count_matrix(int(mask.sum()), options.resamples, [options.seed, k])
        base = {"corpus": corpus, "n": int(mask.sum()), "n_anchor_true": int(np.sum(anchor == human))}
        gains, corpus_rows = [], []
        for member, calibrated, blind, anchored in series:
            blind, anchored = blind[mask], anchored[mask]
            row = {
                **base,
                "member": member,
                "calibrated": calibrated,
                **pull(blind, anchored, anchor),
                **accuracy_change(human, blind, anchored, anchor, options.levels),
            }
            gains.append((anchored == human).astype(float) - (blind == human))
            row["exact_effect_lo"], row["exact_effect_hi"] = _effect_interval(gains[-1], counts, options.confidence)
            corpus_rows.append(row)
        if judges:
            # The judges' average: mean of each statistic, interval of the mean per-item gain.
            mean_row = {**base, "member": JUDGE_MEAN, "calibrated": False}
            for stat in (s for s, v in corpus_rows[0].items() if isinstance(v, float)):
                mean_row[stat] = float(np.mean([r[stat] for r in corpus_rows[: len(judges)]]))
            gain = np.mean(gains[: len(judges)], axis=0)
            mean_row["exact_effect_lo"], mean_row["exact_effect_hi"] = _effect_interval(
                gain, counts, options.confidence
            )
            corpus_rows.insert(len(judges), mean_row)
        rows.extend(corpus_rows)
    return rows

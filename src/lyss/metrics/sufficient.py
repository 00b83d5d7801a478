"""sacrebleu's corpus formulas, vectorised over any leading axes of summed sufficient statistics.

The same arrays serve three purposes: per-entry scores (one row per entry), the corpus score (the
column sums) and bootstrap resamples (a resample-count matrix times the per-entry statistics). Each
function reproduces sacrebleu's `_compute_score_from_stats` for its metric; the tests check equality
with sacrebleu on real text.
"""

import numpy as np

_MTEVAL_LOG_ZERO = -9999999999.0  # sacrebleu's my_log(0)


def chrf_from_stats(stats, order: int, beta: float = 2.0) -> np.ndarray:
    """chrF (0–100) from stats laid out as [hyp, ref, match] per order, as sacrebleu CHRF stores them."""
    stats = np.asarray(stats, dtype=np.float64)
    hyp, ref, match = stats[..., 0 : 3 * order : 3], stats[..., 1 : 3 * order : 3], stats[..., 2 : 3 * order : 3]
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = np.where(hyp > 0, match / hyp, 0.0)
        rec = np.where(ref > 0, match / ref, 0.0)
    effective = (hyp > 0) & (ref > 0)
    n_effective = effective.sum(axis=-1)
    safe_n = np.maximum(n_effective, 1)
    avg_prec = np.where(n_effective > 0, (prec * effective).sum(axis=-1) / safe_n, 0.0)
    avg_rec = np.where(n_effective > 0, (rec * effective).sum(axis=-1) / safe_n, 0.0)
    factor = beta**2
    total = avg_prec + avg_rec
    denom = np.where(total > 0, factor * avg_prec + avg_rec, 1.0)
    return np.where(total > 0, 100 * (1 + factor) * avg_prec * avg_rec / denom, 0.0)


def bleu_from_stats(stats, max_order: int = 4, smooth: str = "exp", smooth_value: float | None = None,
                    effective_order: bool = False) -> np.ndarray:
    """BLEU (0–100) from stats laid out as [sys_len, ref_len, correct_1..N, total_1..N]."""
    stats = np.asarray(stats, dtype=np.float64)
    sys_len, ref_len = stats[..., 0], stats[..., 1]
    correct = stats[..., 2 : 2 + max_order].copy()
    total = stats[..., 2 + max_order : 2 + 2 * max_order].copy()
    if smooth == "add-k":
        k = 1.0 if smooth_value is None else smooth_value
        correct[..., 1:] += k
        total[..., 1:] += k
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        bp = np.where(sys_len < ref_len, np.where(sys_len > 0, np.exp(1 - ref_len / sys_len), 0.0), 1.0)
        # sacrebleu stops at the first order with no hypothesis n-grams (later precisions stay 0).
        active = np.cumprod(total > 0, axis=-1).astype(bool)
        zero = (correct == 0) & active
        safe_total = np.where(total > 0, total, 1.0)
        if smooth == "exp":
            smoothed = 100.0 / (2.0 ** np.cumsum(zero, axis=-1) * safe_total)
        elif smooth == "floor":
            smoothed = 100.0 * (0.1 if smooth_value is None else smooth_value) / safe_total
        else:
            smoothed = np.zeros_like(total)
        precisions = np.where(active, np.where(correct > 0, 100.0 * correct / safe_total, smoothed), 0.0)
        logs = np.where(precisions > 0, np.log(np.where(precisions > 0, precisions, 1.0)), _MTEVAL_LOG_ZERO)
        if effective_order:
            n_active = active.sum(axis=-1)
            eff = np.where(n_active > 0, n_active, max_order)
        else:
            eff = np.full(sys_len.shape, max_order)
        mask = np.arange(max_order) < eff[..., None]
        score = bp * np.exp((logs * mask).sum(axis=-1) / eff)
    any_correct = (stats[..., 2 : 2 + max_order] > 0).any(axis=-1)
    return np.where(any_correct, score, 0.0)


def ter_from_stats(stats) -> np.ndarray:
    """TER (0–100+) from stats laid out as [edits, ref_length]."""
    stats = np.asarray(stats, dtype=np.float64)
    edits, ref_len = stats[..., 0], stats[..., 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(ref_len > 0, edits / np.where(ref_len > 0, ref_len, 1.0), np.where(edits > 0, 1.0, 0.0))
    return 100 * ratio

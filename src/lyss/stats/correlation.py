"""Rank and correlation statistics that take multiplicities, so many resamples are one call.

Every function works along the last axis and broadcasts over the leading ones. `weights` are the
number of times each observation occurs (bootstrap counts); a weighted statistic equals the plain
statistic on the data with each observation repeated that many times, which is what the tests check
against scipy. With weights of 1 (or None) the ordinary statistic comes out.
"""

import numpy as np


def _with_weights(weights, *arrays) -> list[np.ndarray]:
    """Broadcast the arrays and their weights (1 where None) to one common shape."""
    arrays = [np.asarray(a, dtype=float) for a in arrays]
    weights = np.ones(1) if weights is None else np.asarray(weights, dtype=float)
    return np.broadcast_arrays(*arrays, weights)


def weighted_midranks(values, weights=None) -> np.ndarray:
    """1-based mid-ranks of each value in the sample where value i occurs weights[i] times."""
    values, weights = _with_weights(weights, values)
    n = values.shape[-1]
    order = np.argsort(values, axis=-1, kind="stable")
    v = np.take_along_axis(values, order, axis=-1)
    w = np.take_along_axis(weights, order, axis=-1)
    cum = np.cumsum(w, axis=-1)
    idx = np.arange(n)
    starts = np.ones(v.shape, dtype=bool)
    starts[..., 1:] = v[..., 1:] != v[..., :-1]
    ends = np.ones(v.shape, dtype=bool)
    ends[..., :-1] = starts[..., 1:]
    run_start = np.maximum.accumulate(np.where(starts, idx, 0), axis=-1)
    run_end = (n - 1 - np.maximum.accumulate(np.where(ends[..., ::-1], idx, 0), axis=-1))[..., ::-1]
    before = np.take_along_axis(cum, run_start, axis=-1) - np.take_along_axis(w, run_start, axis=-1)
    run_weight = np.take_along_axis(cum, run_end, axis=-1) - before
    ranks = np.empty_like(v)
    np.put_along_axis(ranks, order, before + (run_weight + 1) / 2, axis=-1)
    return ranks


def _centred_moments(x, y, w):
    total = w.sum(axis=-1, keepdims=True)
    dx = x - (w * x).sum(axis=-1, keepdims=True) / total
    dy = y - (w * y).sum(axis=-1, keepdims=True) / total
    return (w * dx * dy).sum(axis=-1), (w * dx * dx).sum(axis=-1), (w * dy * dy).sum(axis=-1)


def _constant(variance, sum_of_squares) -> np.ndarray:
    """Whether a side is constant: rounding leaves a tiny positive variance for constant data, so a variance
    within 1e-12 of the sum of squares counts as zero."""
    return variance <= 1e-12 * sum_of_squares


def weighted_pearson(x, y, weights=None) -> np.ndarray:
    """Pearson r; NaN where either side is constant (the correlation is undefined there)."""
    x, y, w = _with_weights(weights, x, y)
    cov, var_x, var_y = _centred_moments(x, y, w)
    tiny_x = _constant(var_x, (w * x * x).sum(axis=-1))
    tiny_y = _constant(var_y, (w * y * y).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = cov / np.sqrt(var_x * var_y)
    return np.where(tiny_x | tiny_y, np.nan, np.clip(r, -1.0, 1.0))


def weighted_spearman(x, y, weights=None) -> np.ndarray:
    """Spearman rho: Pearson r of the mid-ranks, ranks taken in the weighted (repeated) sample."""
    x, y, w = _with_weights(weights, x, y)
    return weighted_pearson(weighted_midranks(x, w), weighted_midranks(y, w), w)


def auroc(scores, positive, weights=None) -> np.ndarray:
    """Area under the ROC curve of `scores` for the boolean `positive`, ties counting one half.

    Mann-Whitney form: the rank sum of the positives in the (weighted) sample, minus its minimum.
    """
    scores, positive, w = _with_weights(weights, scores, positive)
    positive = positive > 0
    ranks = weighted_midranks(scores, w)
    w_pos = (w * positive).sum(axis=-1)
    w_neg = (w * ~positive).sum(axis=-1)
    u = (w * positive * ranks).sum(axis=-1) - w_pos * (w_pos + 1) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((w_pos > 0) & (w_neg > 0), u / (w_pos * w_neg), np.nan)


def kendall_tau_b(human, metric) -> np.ndarray:
    """Kendall τ-b per group for unweighted grids (..., G, s), NaN where either side is constant.

    The lean path for permutation tests, where the metric values change every time: the human pair
    signs are computed once per group and the metric's signs enter one multiply-and-sum."""
    human = np.asarray(human, dtype=float)
    metric = np.asarray(metric, dtype=float)
    s = human.shape[-1]
    i, j = np.triu_indices(s, 1)
    sign_h = np.sign(human[..., i] - human[..., j]).astype(np.float32)
    a, b = metric[..., i], metric[..., j]
    sign_m = np.sign(a - b).astype(np.float32)
    score = np.einsum("...p,...p->...", sign_m, sign_h, dtype=np.float64)
    untied_h = np.count_nonzero(sign_h, axis=-1)
    untied_m = np.count_nonzero(sign_m, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = score / np.sqrt(untied_h * untied_m)
    return np.where((untied_h > 0) & (untied_m > 0), tau, np.nan)


def swapped_kendall_tau_b(human, a, b, swap) -> np.ndarray:
    """`kendall_tau_b(human, np.where(swap, b, a))` for grids human, a, b (G, s) and swap masks (B, G, s), to
    the bit, without building the B swapped grids' pair signs: the permutation test of two metrics.

    A pair (i, j) of an item has one of four metric signs, by whether i and j are swapped: sign(a_i − a_j),
    sign(a_i − b_j), sign(b_i − a_j), sign(b_i − b_j). Its contribution to τ's numerator (times the human
    sign) and to the untied count is therefore c00 + t_i·(c10 − c00) + t_j·(c01 − c00) + t_i·t_j·(c11 − c10 −
    c01 + c00) in the swap bits t, so each numerator is a constant, a product with the masks and a quadratic
    form per item: one batched matrix product instead of B × pairs signs. Every term is a small integer, so
    the sums are exact and τ is computed from the same integers as kendall_tau_b."""
    human, a, b = (np.asarray(x, dtype=float) for x in (human, a, b))
    t = np.moveaxis(np.asarray(swap, dtype=np.float64), -2, 0)  # (G, B, s): one batch of masks per item
    s = human.shape[-1]
    i, j = np.triu_indices(s, 1)
    sign_h = np.sign(human[:, i] - human[:, j])
    first, second = (a, b), (a, b)
    signs = {(ti, tj): np.sign(first[ti][:, i] - second[tj][:, j]) for ti in (0, 1) for tj in (0, 1)}

    def counts(term) -> np.ndarray:
        """Σ over pairs of term(sign) under every mask: (B, G)."""
        c = {key: term(value) for key, value in signs.items()}
        linear_i, linear_j = c[1, 0] - c[0, 0], c[0, 1] - c[0, 0]
        quadratic = np.zeros((len(human), s, s))
        quadratic[:, i, j] = c[1, 1] - c[1, 0] - c[0, 1] + c[0, 0]
        linear = np.zeros((len(human), s))
        np.add.at(linear, (slice(None), i), linear_i)
        np.add.at(linear, (slice(None), j), linear_j)
        total = (c[0, 0].sum(axis=-1)[:, None] + np.einsum("gbs,gs->gb", t, linear)
                 + np.einsum("gbs,gbs->gb", t @ quadratic, t))
        return total.T

    score = counts(lambda sign_m: sign_m * sign_h)
    untied_m = counts(lambda sign_m: (sign_m != 0).astype(float))
    untied_h = np.count_nonzero(sign_h, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = score / np.sqrt(untied_h * untied_m)
    return np.where((untied_h > 0) & (untied_m > 0), tau, np.nan)


def swapped_pearson(human, a, b, swap) -> np.ndarray:
    """Pearson r per item of `np.where(swap, b, a)` for grids human, a, b (G, s) and swap masks (B, G, s),
    without building the B swapped grids: the permutation test's Pearson, as swapped_kendall_tau_b is its τ.

    With d = b − a the swapped values are m = a + t·d for swap bits t, and t² = t, so every sum r needs is
    linear in the masks: Σ dh·m = Σ dh·a + Σ t·dh·d (dh the centred human scores), Σ m = Σ a + Σ t·d and
    Σ m² = Σ a² + Σ t·(b² − a²). Three batched products replace B passes over the grid. The sums run in
    another order than weighted_pearson's, so r agrees with it to rounding (≈ 1e-15), not to the bit; a
    constant side is NaN by weighted_pearson's test (`_constant`)."""
    human, a, b = (np.asarray(x, dtype=float) for x in (human, a, b))
    t = np.asarray(swap, dtype=np.float64)
    s = human.shape[-1]
    centred = human - human.mean(axis=-1, keepdims=True)
    d = b - a
    linear = np.stack([centred * d, d, b * b - a * a])  # (3, G, s)
    constant = np.stack([(centred * a).sum(axis=-1), a.sum(axis=-1), (a * a).sum(axis=-1)])  # (3, G)
    cov, total, squares = constant[:, None, :] + np.einsum("bgs,kgs->kbg", t, linear)
    var_m = squares - total * total / s
    var_h = (centred * centred).sum(axis=-1)
    tiny_h = _constant(var_h, (human * human).sum(axis=-1))
    tiny_m = _constant(var_m, squares)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = cov / np.sqrt(var_h * var_m)
    return np.where(tiny_h | tiny_m, np.nan, np.clip(r, -1.0, 1.0))


def _tied_pairs(*columns) -> int:
    """Pairs of observations equal in every given column: Σ t(t−1)/2 over groups of equal rows.

    Rows are numbered by their distinct values column by column (1-D sorts, float equality as in a
    row-wise `np.unique(axis=0)`, which sorts a structured view several times slower)."""
    key = np.zeros(len(columns[0]), dtype=np.int64)
    for column in columns:
        _, index = np.unique(np.asarray(column, dtype=float), return_inverse=True)
        key = key * (int(index.max(initial=0)) + 1) + index
        _, key = np.unique(key, return_inverse=True)
    counts = np.bincount(key)
    return int((counts * (counts - 1) // 2).sum())


def sorted_kendall_accuracy(human, metric) -> tuple[float, float]:
    """Kendall τ-b and pairwise accuracy without tie calibration for one flat sample, by sorting
    (O(n log n), scipy's τ plus tie counts) rather than by enumerating all n² pairs.

    With n0 pairs, n1 tied in human, n2 tied in metric, n3 tied in both: concordant + discordant =
    n0 − n1 − n2 + n3, concordant − discordant = τ_b·√((n0 − n1)(n0 − n2)), and the accuracy is
    (concordant + n3) / n0, the same definition as `pair_statistics` with epsilon 0."""
    human, metric = np.asarray(human, dtype=float), np.asarray(metric, dtype=float)
    n = len(human)
    n0 = n * (n - 1) // 2
    n1, n2, n3 = _tied_pairs(human), _tied_pairs(metric), _tied_pairs(human, metric)
    if n0 == 0 or n1 == n0 or n2 == n0:
        return float("nan"), (float(n3) / n0 if n0 else float("nan"))
    from scipy.stats import kendalltau  # a second to import: the parsers that import this module never call it

    tau = float(kendalltau(human, metric, variant="b").statistic)
    concordant = ((n0 - n1 - n2 + n3) + tau * np.sqrt(float(n0 - n1) * float(n0 - n2))) / 2
    return tau, float((concordant + n3) / n0)


def pair_statistics(human, metric, weights=None, group_weights=None, calibrate_ties=True):
    """Kendall tau-b per group and pairwise accuracy averaged over groups.

    Shapes: human and metric (..., G, s) — G groups of s observations (G = 1 for one flat list);
    weights (..., G, s) multiplicities or None; group_weights (..., G) or None (equal groups).

    Pairwise accuracy is acc23 (Deutsch, Foster & Freitag 2023): (concordant + tied in both) / all
    pairs, where a metric difference of at most epsilon counts as a tie. With `calibrate_ties` the
    epsilon that maximises the accuracy is searched over 0 and every metric difference ("tie
    calibration", one epsilon for all groups); without it epsilon is 0 and acc23 is plain sign
    agreement, the system-level pairwise accuracy of Kocmi et al. (2021). Copies of one observation
    (weight > 1) are pairs tied in both scores.

    Returns (tau (..., G), accuracy (...), epsilon (...)).
    """
    human = np.asarray(human, dtype=float)
    metric = np.asarray(metric, dtype=float)
    s = human.shape[-1]
    i, j = np.triu_indices(s, 1)
    sign_h = np.sign(human[..., i] - human[..., j])
    diff_m = metric[..., i] - metric[..., j]
    sign_m = np.sign(diff_m)
    if weights is None:
        pair_w = np.ones(1)
        n = float(s)
        copies = 0.0
    else:
        weights = np.asarray(weights, dtype=float)
        pair_w = weights[..., i] * weights[..., j]
        n = weights.sum(axis=-1)
        copies = (weights * (weights - 1) / 2).sum(axis=-1)
    total = n * (n - 1) / 2
    tied_h = sign_h == 0
    tied_m = sign_m == 0
    score = (pair_w * sign_h * sign_m).sum(axis=-1)
    ties_h = (pair_w * tied_h).sum(axis=-1) + copies
    ties_m = (pair_w * tied_m).sum(axis=-1) + copies
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = score / np.sqrt((total - ties_h) * (total - ties_m))
    tau = np.where((total - ties_h > 0) & (total - ties_m > 0), tau, np.nan)

    if group_weights is None:
        group_weights = np.ones(human.shape[-2])
    group_weights = np.asarray(group_weights, dtype=float)
    share = group_weights / group_weights.sum(axis=-1, keepdims=True) / total
    unit = pair_w * share[..., None]
    concordant = sign_h * sign_m > 0
    base = (unit * concordant).sum(axis=(-2, -1)) + (share * copies).sum(axis=-1)
    if not calibrate_ties:
        accuracy = base + (unit * (tied_h & tied_m)).sum(axis=(-2, -1))
        return tau, accuracy, np.zeros_like(accuracy)
    return tau, *_calibrated_accuracy(np.abs(diff_m), unit * (tied_h.astype(float) - concordant), base)


def _calibrated_accuracy(gaps, gain, base):
    """Maximise base + sum of `gain` over the pairs whose metric gap is at most epsilon.

    The gaps are sorted once per distinct metric vector (not once per resample): bootstrap
    resamples change only the pair weights inside `gain`."""
    full = np.broadcast_shapes(gaps.shape, gain.shape)
    gaps = gaps.reshape((1,) * (len(full) - gaps.ndim) + gaps.shape)
    gaps = gaps.reshape(*gaps.shape[:-2], -1)
    lead, width = full[:-2], gaps.shape[-1]
    order = np.argsort(gaps, axis=-1, kind="stable")
    gaps = np.broadcast_to(np.take_along_axis(gaps, order, axis=-1), (*lead, width))
    gain = np.broadcast_to(gain, full).reshape(*lead, width)
    cum = np.cumsum(np.take_along_axis(gain, np.broadcast_to(order, (*lead, width)), axis=-1), axis=-1)
    # An epsilon must tie every pair with the same gap, so only the last pair of a run is a candidate.
    last = np.ones(gaps.shape, dtype=bool)
    last[..., :-1] = gaps[..., 1:] != gaps[..., :-1]
    candidates = np.where(last, cum, -np.inf)
    best_at = np.argmax(candidates, axis=-1)
    best = np.take_along_axis(candidates, best_at[..., None], axis=-1)[..., 0]
    epsilon = np.take_along_axis(gaps, best_at[..., None], axis=-1)[..., 0]
    # epsilon = 0 ties nothing new when no two metric scores are equal; it is always allowed.
    keep_zero = (gaps[..., 0] > 0) & (best <= 0)
    return np.broadcast_to(base, best.shape) + np.where(keep_zero, 0.0, best), np.where(keep_zero, 0.0, epsilon)


def nan_weighted_mean(values, weights=None) -> np.ndarray:
    """Weighted mean over the last axis that skips NaN entries (undefined per-group statistics)."""
    values, w = _with_weights(weights, values)
    ok = ~np.isnan(values)
    w = np.where(ok, w, 0.0)
    total = w.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, (w * np.where(ok, values, 0.0)).sum(axis=-1) / total, np.nan)

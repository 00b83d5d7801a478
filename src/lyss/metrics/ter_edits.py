"""sacrebleu's TER edit count (`sacrebleu.metrics.lib_ter.translation_edit_rate`): the same algorithm, the same
shift chosen at every step, with a faster inner loop, so the number of edits is sacrebleu's own.

TER is the slowest of sacrebleu's metrics: its shift search recomputes a beam-limited edit distance for every
candidate shift, and sacrebleu's `BeamEditDistance` builds four tuples per matrix cell to keep each cell's
operation beside its cost. Here a matrix row is a list of costs, a cell three integer comparisons, and the
operations are read back from the costs only along the trace, where they are needed:

- **a cell's cost** is sacrebleu's: the cheapest of no-op/substitution, deletion, insertion, and a cell that
  none of them reaches below sacrebleu's "unreachable" (1e16) stays at that value; the first column is a
  deletion whatever the cell above holds, as there;
- **a cell's operation** is the first of (no-op or substitution, deletion, insertion) whose cost equals the
  cell's: sacrebleu keeps the first operation of that order that is strictly cheaper than what the cell holds,
  which is the same one. The trace never passes an unreachable cell (each step goes to the neighbour its
  finite cost came from), so the cells outside the beam never need one;
- **the shift search** is sacrebleu's `_shift` (candidates in its order, its ranking, its limits), reading only
  the distance of a candidate, and its matching sub-sequences are enumerated in sacrebleu's order from the
  positions of each word in the reference instead of from every pair of positions;
- **the prefix cache** (rows of hypotheses that start with the same words) and its size limit are sacrebleu's.

tests/test_ter_edits.py compares distances, traces and edit counts with sacrebleu's on real and random text.
"""

import math

from sacrebleu.metrics import lib_ter

_INF = lib_ter._INT_INFINITY
_BEAM_WIDTH = lib_ter._BEAM_WIDTH
_MAX_CACHE_SIZE = lib_ter._MAX_CACHE_SIZE
_MAX_SHIFT_CANDIDATES = lib_ter._MAX_SHIFT_CANDIDATES
_MAX_SHIFT_SIZE = lib_ter._MAX_SHIFT_SIZE
_MAX_SHIFT_DIST = lib_ter._MAX_SHIFT_DIST


def translation_edit_rate(words_hyp: list[str], words_ref: list[str]) -> tuple[int, int]:
    """(number of edits, reference length), as sacrebleu's function of that name (its loop, unchanged)."""
    if not words_ref:
        return len(words_hyp), 0
    if words_hyp == words_ref:  # no edit, which sacrebleu finds after a full distance, trace and shift search
        return 0, len(words_ref)
    cached_ed = BeamEditDistance(words_ref)
    shifts, checked = 0, 0
    words = words_hyp
    while True:
        delta, shifted, checked = _shift(words, words_ref, cached_ed, checked)
        if checked >= _MAX_SHIFT_CANDIDATES or delta <= 0:
            break
        shifts += 1
        words = shifted
    return shifts + cached_ed.distance(words), len(words_ref)


def _shift(words_h: list[str], words_r: list[str], cached_ed: "BeamEditDistance",
           checked: int) -> tuple[int, list[str], int]:
    """sacrebleu's `lib_ter._shift`: the shift that lowers the edit distance most, ranked as Tercom ranks them
    (gain, then the longest, the earliest in the hypothesis, the earliest target position)."""
    pre_score, inverse_trace = cached_ed(words_h)
    align, ref_err, hyp_err = lib_ter.trace_to_alignment(lib_ter._flip_trace(inverse_trace))
    best = None
    for start_h, start_r, length in _shifted_pairs(words_h, words_r):
        if sum(hyp_err[start_h:start_h + length]) == 0 or sum(ref_err[start_r:start_r + length]) == 0:
            continue
        if start_h <= align[start_r] < start_h + length:
            continue
        previous = -1
        for offset in range(-1, length):
            if start_r + offset == -1:
                index = 0
            elif start_r + offset in align:
                index = align[start_r + offset] + 1
            else:
                break
            if index == previous:
                continue
            previous = index
            shifted = lib_ter._perform_shift(words_h, start_h, length, index)
            candidate = (pre_score - cached_ed.distance(shifted), length, -start_h, -index, shifted)
            checked += 1
            if not best or candidate > best:
                best = candidate
        if checked >= _MAX_SHIFT_CANDIDATES:
            break
    if not best:
        return 0, words_h, checked
    return best[0], best[4], checked


def _shifted_pairs(words_h: list[str], words_r: list[str]):
    """sacrebleu's `_find_shifted_pairs`, in its order: for each hypothesis position, the reference positions
    (ascending, at most _MAX_SHIFT_DIST away) where the same word starts a match, and each match length."""
    n_h, n_r = len(words_h), len(words_r)
    positions: dict[str, list[int]] = {}
    for k, word in enumerate(words_r):
        positions.setdefault(word, []).append(k)
    for start_h, word in enumerate(words_h):
        for start_r in positions.get(word, ()):
            if abs(start_r - start_h) > _MAX_SHIFT_DIST:
                continue
            length = 0
            while words_h[start_h + length] == words_r[start_r + length] and length < _MAX_SHIFT_SIZE:
                length += 1
                yield start_h, start_r, length
                if n_h == start_h + length or n_r == start_r + length:
                    break


class BeamEditDistance:
    """sacrebleu's `BeamEditDistance`: called with hypothesis words it returns (distance, trace); `distance`
    alone skips the trace. The cache is a trie over hypothesis words holding each word's row of costs."""

    def __init__(self, words_ref: list[str]):
        self._ref = words_ref
        self._n_ref = len(words_ref)
        self._initial = list(range(self._n_ref + 1))  # row 0: one insertion per reference word
        self._cache: dict = {}
        self._cache_size = 0

    def __call__(self, words_hyp: list[str]) -> tuple[int, str]:
        rows = self._matrix(words_hyp)
        return rows[-1][-1], self._trace(words_hyp, rows)

    def distance(self, words_hyp: list[str]) -> int:
        return self._matrix(words_hyp)[-1][-1]

    def _matrix(self, words_hyp: list[str]) -> list[list[int]]:
        """Rows 0 … len(words_hyp): those of the longest cached prefix, then the new ones (cached in turn)."""
        node, rows = self._cache, [self._initial]
        for word in words_hyp:
            if word not in node:
                break
            node, row = node[word]
            rows.append(row)
        start = len(rows) - 1
        new = self._rows(words_hyp, start, rows[-1])
        if self._cache_size < _MAX_CACHE_SIZE:  # sacrebleu stops adding once full
            for word, row in zip(words_hyp[start:], new, strict=True):
                if word not in node:
                    node[word] = ({}, row)
                    self._cache_size += 1
                node = node[word][0]
        rows.extend(new)
        return rows

    def _rows(self, words_h: list[str], start: int, previous: list[int]) -> list[list[int]]:
        """Rows start+1 … len(words_h) of the cost matrix, each cell's cost as sacrebleu computes it."""
        ref, n_ref, n_h = self._ref, self._n_ref, len(words_h)
        ratio = n_ref / n_h if words_h else 1
        beam = math.ceil(ratio / 2 + _BEAM_WIDTH) if _BEAM_WIDTH < ratio / 2 else _BEAM_WIDTH
        out = []
        for i in range(start + 1, n_h + 1):
            diagonal = math.floor(i * ratio)
            low = max(0, diagonal - beam)
            high = n_ref + 1 if i == n_h else min(n_ref + 1, diagonal + beam)
            word = words_h[i - 1]
            if low == 0:
                costs = [previous[0] + 1]
                low = 1
            else:
                costs = [_INF] * low
            left = costs[-1]
            for r, diag, up in zip(ref[low - 1:high - 1], previous[low - 1:high - 1], previous[low:high],
                                   strict=True):
                cost = diag if word == r else diag + 1
                if up < cost - 1:
                    cost = up + 1
                if left < cost - 1:
                    cost = left + 1
                if cost > _INF:
                    cost = _INF
                costs.append(cost)
                left = cost
            if high <= n_ref:
                costs.extend([_INF] * (n_ref + 1 - high))
            out.append(costs)
            previous = costs
        return out

    def _trace(self, words_h: list[str], rows: list[list[int]]) -> str:
        """The operations from the last cell back to the first, each the first of sacrebleu's order whose cost
        gives the cell's."""
        ref, ops, i, j = self._ref, [], len(rows) - 1, self._n_ref
        while i > 0 or j > 0:
            cost = rows[i][j]
            if i == 0:
                op = "i"
            elif j == 0:
                op = "d"
            elif rows[i - 1][j - 1] + (words_h[i - 1] != ref[j - 1]) == cost:
                op = " " if words_h[i - 1] == ref[j - 1] else "s"
            elif rows[i - 1][j] + 1 == cost:
                op = "d"
            else:
                op = "i"
            ops.append(op)
            if op in "s ":
                i, j = i - 1, j - 1
            elif op == "i":
                j -= 1
            else:
                i -= 1
        return "".join(reversed(ops))

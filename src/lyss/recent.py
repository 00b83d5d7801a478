"""The results of the last few calls of a function, reused when a call reads what a recent one read.

A run card asks for the same work several times: the oracle's card and every system's card check the same
references, and the two compliance metrics check the same outputs twice each. The inputs are plain data that
a caller may change in place afterwards, so what a result read is kept as a deep copy and compared by value;
an object that cannot be compared by value (an embeddings table) is compared by identity and kept alive with
the result, so its id is never reused for another.
"""

import copy
import operator


class RecentResults:
    """The last `size` results with what each read. Callers copy a result before they change it."""

    def __init__(self, size: int = 2):
        self.size = size
        self._kept: list[tuple[object, tuple, object]] = []

    def get(self, read, compute, same: tuple = ()):
        """The kept result whose `read` equals this one (by value) and whose `same` objects are these (by
        identity); else `compute()`, kept and returned."""
        for kept_read, kept_same, result in self._kept:
            if len(kept_same) == len(same) and all(map(operator.is_, kept_same, same)) and kept_read == read:
                return result
        result = compute()
        self._kept.append((copy.deepcopy(read), same, result))
        del self._kept[: -self.size]
        return result

    def clear(self) -> None:
        self._kept.clear()

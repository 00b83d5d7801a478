"""The metrics that read no sentence vectors, scored in a forked child process while this one embeds.

A cold `lyss score` spends most of its time embedding: a stretch on one core (loading the model, cutting the
texts into tokens), then batches that fill every core. The metrics that read no vectors (chrF++, BLEU, TER, the
word lookups of code-switching and orthography, …) are Python on one core, and ran after the embedding; here they
run beside it, in a child forked before it. A process, not a thread: both sides are Python and would only take
turns on the interpreter's lock. The child inherits the inputs (nothing is pickled but its results), writes its
lookup answers to the shared store (lyss.metrics.lookups) and sends its results back pickled through a pipe.

Where fork does not exist, or the child fails in any way, this process scores those metrics itself, so an error
is the one a run without the child would show. The results are the same objects either way (the same functions
on the same inputs); tests/test_cli_score_compare.py compares the output with and without the child.
"""

import os
import pickle
import sys
from collections.abc import Callable

from lyss.metrics import MetricResult, ScoringInput, lookups

Scorer = Callable[[ScoringInput, list[str]], dict[str, MetricResult]]


class ScoredBeside:
    """`results(i)`: the `metrics` of `inputs[i]` as `scorer` gives them, computed in a child process started
    now, or here on first request when the child fails. `metrics` is empty (nothing is scored beside) on one
    core or where fork does not exist: the caller scores every metric itself."""

    def __init__(self, inputs: list[ScoringInput], metrics: list[str], scorer: Scorer, cores: int):
        self.inputs, self.scorer = inputs, scorer
        self.metrics = metrics if cores > 1 and hasattr(os, "fork") else []
        self._results: list[dict[str, MetricResult]] | None = None
        self._child: tuple[int, int] | None = None  # (pid, read end of the pipe)
        if self.metrics:
            self._start()

    def _start(self) -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: score, store the lookups, send, and leave without the parent's exit handlers
            os.close(read)
            status = 1
            try:
                results = [self.scorer(data, self.metrics) for data in self.inputs]
                lookups.flush_all()
                with os.fdopen(write, "wb") as pipe:
                    pickle.dump(results, pipe, protocol=pickle.HIGHEST_PROTOCOL)
                status = 0
            except BaseException:  # noqa: BLE001 — the parent scores them itself and shows the error
                pass
            finally:
                os._exit(status)
        os.close(write)
        self._child = (pid, read)

    def results(self, index: int) -> dict[str, MetricResult]:
        if self._results is None:
            self._results = self._collect()
        return self._results[index]

    def _collect(self) -> list[dict[str, MetricResult]]:
        if self._child is not None:
            pid, read = self._child
            self._child = None
            with os.fdopen(read, "rb") as pipe:
                sent = pipe.read()
            _, status = os.waitpid(pid, 0)
            if os.waitstatus_to_exitcode(status) == 0:
                return pickle.loads(sent)
        return [self.scorer(data, self.metrics) for data in self.inputs]

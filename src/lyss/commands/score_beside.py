"""The metrics that read no sentence vectors, scored in a child process while this one embeds.

A cold `lyss score` spends most of its time embedding: a stretch on one core (loading the model, cutting the
texts into tokens), then batches that fill every core. The metrics that read no vectors (chrF++, BLEU, TER, the
word lookups of code-switching and orthography, …) are Python on one core, and ran after the embedding; here they
run beside it, in a child process started before it. A process, not a thread: both sides are Python and would
only take turns on the interpreter's lock. A fresh interpreter (multiprocessing's "spawn"), not a fork: a fork
inherits the locks and thread pools of whatever ran before in this process (lingua's pool, in a test or a
library caller that scored before, leaves a forked child waiting forever), while a fresh one starts with none,
and its start-up (≈ 0.5 s) runs while this process loads the model. The child gets the inputs pickled (the
caller gives them without their vector table) through a pipe that a thread of this process fills, so this
process never waits for the child's interpreter to start: handed over as the process's arguments, they were
written before `start()` returned, and a pipe holds 64 KB, so the parent stood idle until the child could read
(0.26 s of a cold `lyss score` on TED). The child writes its lookup answers to the shared store
(lyss.metrics.lookups) and sends its results back pickled through another pipe.

Where the child cannot be started or fails in any way, this process scores those metrics itself, so an error is
the one a run without the child would show. The results are the same either way (the same functions on the same
inputs); tests/test_score_beside.py compares `lyss score`'s output with and without the child.
"""

import multiprocessing
import os
import pickle
import sys
import threading
from collections.abc import Callable

from lyss.metrics import MetricResult, ScoringInput, lookups

Scorer = Callable[[ScoringInput, list[str]], dict[str, MetricResult]]


def _score_in_child(inbox, sender) -> None:
    """The child's work: read (scorer, inputs, metrics), score, store the lookup answers, send, and end at once;
    on any failure leave quietly (the parent then scores the metrics itself and shows the error). Once the results
    are sent nothing is left to do, and an interpreter's orderly exit (freeing lingua's models, word lists, …)
    takes 0.2 s that the parent, which joins the child, would wait for."""
    try:
        scorer, inputs, metrics = pickle.loads(inbox.recv_bytes())
        inbox.close()
        results = [scorer(data, metrics) for data in inputs]
        lookups.flush_all()
        sender.send_bytes(pickle.dumps(results, protocol=pickle.HIGHEST_PROTOCOL))
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 — reported by the parent, which computes the same again
        os._exit(1)
    os._exit(0)


def _hand_over(outbox, work: bytes) -> None:
    """Write the pickled work to the child (blocks until it reads, without holding this process's lock); a child
    that ended first is noticed by the parent, which then scores the metrics itself."""
    try:
        outbox.send_bytes(work)
    except OSError:
        pass
    finally:
        outbox.close()


class ScoredBeside:
    """`results(i)`: the `metrics` of `inputs[i]` as `scorer` gives them (a module-level function, since the
    child receives it pickled), computed in a child process started now, or here on first request when the child
    cannot start or fails. `metrics` is empty (nothing is scored beside) on one core: the caller scores every
    metric itself."""

    def __init__(self, inputs: list[ScoringInput], metrics: list[str], scorer: Scorer, cores: int):
        self.inputs, self.scorer = inputs, scorer
        self.metrics = metrics if cores > 1 else []
        self._results: list[dict[str, MetricResult]] | None = None
        self._child = None  # (process, read end of the pipe)
        if self.metrics:
            self._start()

    def _start(self) -> None:
        try:
            work = pickle.dumps((self.scorer, self.inputs, self.metrics), protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, AttributeError, TypeError):  # cannot be sent: scored here
            return
        context = multiprocessing.get_context("spawn")
        receiver, sender = context.Pipe(duplex=False)
        inbox, outbox = context.Pipe(duplex=False)
        child = context.Process(target=_score_in_child, args=(inbox, sender), daemon=True)
        try:
            child.start()
        except OSError:  # no process can be started: scored here
            receiver.close()
            outbox.close()
            return
        finally:
            sender.close()
            inbox.close()
        threading.Thread(target=_hand_over, args=(outbox, work), daemon=True).start()
        self._child = (child, receiver)

    def results(self, index: int) -> dict[str, MetricResult]:
        if self._results is None:
            self._results = self._collect()
        return self._results[index]

    def _collect(self) -> list[dict[str, MetricResult]]:
        if self._child is not None:
            child, receiver = self._child
            self._child = None
            try:
                sent = receiver.recv_bytes()
            except EOFError:  # the child ended without sending
                sent = None
            finally:
                receiver.close()
            child.join()
            if sent is not None and child.exitcode == 0:
                return pickle.loads(sent)
        return [self.scorer(data, self.metrics) for data in self.inputs]

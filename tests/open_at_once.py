"""Several jobs opening one SQLite store at the same moment (the shared stores of lyss.embed.cache and
lyss.metrics.lookups): each opener runs in its own thread, all released together at a barrier."""

import sqlite3
import threading
from collections.abc import Callable


def failures_opening_at_once(openers: list[Callable[[], None]]) -> list[str]:
    """The sqlite3 errors the openers raised, run side by side from one barrier."""
    failures, barrier = [], threading.Barrier(len(openers))

    def run(opener: Callable[[], None]) -> None:
        barrier.wait()
        try:
            opener()
        except sqlite3.OperationalError as err:
            failures.append(str(err))

    threads = [threading.Thread(target=run, args=(opener,)) for opener in openers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures

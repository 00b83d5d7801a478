"""A Snakemake run ends when its last job does, not up to a second later.

Snakemake's scheduler (8.x, `--max-jobs-per-timespan`, default 100/1s) starts a `threading.Timer` of one
timespan after each pass over the jobs while some run, to look again once the rate limit allows. Those timers
are not daemon threads, so after the last job the interpreter waits for the ones still pending before it exits:
0.45 s of a 3 s `snakemake --forcerun report`, up to a whole second of every run and of every SLURM job's
Snakemake (docs/performance.md). Once the scheduler has returned, which is when Snakemake calls the workflow's
`onsuccess` and `onerror` handlers, nothing waits for them any more: cancelling them changes nothing but the exit.
"""

import threading

SCHEDULER_MODULE = "snakemake.scheduling.job_scheduler"


def cancel_scheduler_timers() -> int:
    """Cancel the pending re-evaluation timers of Snakemake's scheduler (those whose function its module
    defines), and no other timer; returns how many."""
    timers = [t for t in threading.enumerate() if isinstance(t, threading.Timer)
              and getattr(t.function, "__module__", None) == SCHEDULER_MODULE]
    for timer in timers:
        timer.cancel()
    return len(timers)

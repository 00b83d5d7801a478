"""A Snakemake run ends when its last job does, not up to a second and a half later.

Two waits followed the last job of every run (and of every SLURM job's Snakemake), measured on a 24-job run:

- Snakemake's scheduler (8.x, `--max-jobs-per-timespan`, default 100/1s) starts a `threading.Timer` of one
  timespan after each pass over the jobs while some run, to look again once the rate limit allows. Those timers
  are not daemon threads, so the interpreter waited for the ones still pending before it exited: 0.45 s of a 3 s
  `snakemake --forcerun report`, up to a whole second of any run.
- The interpreter's final garbage collection walked every object the run had made (the DAG, the jobs, the
  loaded models and tables) only to free them. With the timers cancelled, the exit still took 0.46–0.52 s after
  the last job (four runs); with the collection skipped, 0.11–0.12 s in every run. (It was skipped in only half of
  the runs until `lyss.scripting.run_script` stopped swapping `sys.modules["__main__"]`: two jobs on threads could
  leave a script's module there, and `in_snakemake_command` then said no.)

Both are gone once the scheduler has returned, which is when Snakemake calls the workflow's `onsuccess` and
`onerror` handlers: nothing waits for those timers any more, and everything still in memory lives until the
process ends. The collection is skipped only in the `snakemake` command itself: a program that runs workflows
through Snakemake's API lives on, and must still free each run's cycles.
"""

import gc
import sys
import threading
from pathlib import Path

SCHEDULER_MODULE = "snakemake.scheduling.job_scheduler"


def cancel_scheduler_timers() -> int:
    """Cancel the pending re-evaluation timers of Snakemake's scheduler (those whose function its module
    defines), and no other timer; returns how many."""
    timers = [t for t in threading.enumerate() if isinstance(t, threading.Timer)
              and getattr(t.function, "__module__", None) == SCHEDULER_MODULE]
    for timer in timers:
        timer.cancel()
    return len(timers)


def in_snakemake_command() -> bool:
    """Whether this process is the `snakemake` command (its console script, or `python -m snakemake` as a SLURM
    job runs it), not a program that imported Snakemake."""
    main = Path(getattr(sys.modules.get("__main__"), "__file__", None) or "")
    return main.name == "snakemake" or main.parts[-2:] == ("snakemake", "__main__.py")


def end_without_waiting() -> None:
    """The workflow's `onsuccess` and `onerror`: no pending timer and, in the `snakemake` command, no final
    collection holds the exit (the objects alive now are moved out of the collector's reach: `gc.freeze`)."""
    cancel_scheduler_timers()
    if in_snakemake_command():
        gc.freeze()

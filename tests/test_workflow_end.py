"""lyss.workflow_end: the scheduler's pending re-evaluation timers are cancelled at the end of a run, without
releasing the scheduler's semaphore, and no other timer is touched; the `snakemake` command, and only it, skips
the final garbage collection."""

import gc
import sys
import threading
from types import SimpleNamespace

from snakemake.scheduling.job_scheduler import JobScheduler

from lyss.workflow_end import cancel_scheduler_timers, end_without_waiting


def test_the_schedulers_timers_are_cancelled_and_no_other():
    scheduler = SimpleNamespace(_open_jobs=threading.Semaphore(0))
    before = set(threading.enumerate())
    JobScheduler._schedule_reevalutation(scheduler, 60)  # Snakemake's own code starts its timer
    JobScheduler._schedule_reevalutation(scheduler, 60)
    (first, second) = [t for t in threading.enumerate() if t not in before]
    other_fired = threading.Event()
    other = threading.Timer(0.2, other_fired.set)
    other.start()
    assert cancel_scheduler_timers() == 2
    for timer in (first, second):
        timer.join(timeout=30)
        assert not timer.is_alive()
    assert not scheduler._open_jobs.acquire(blocking=False)  # cancelled, not fired
    assert other_fired.wait(timeout=30)  # a timer of anyone else runs as it would


def test_nothing_pending_is_nothing_cancelled():
    assert cancel_scheduler_timers() == 0


def test_the_snakemake_command_skips_the_final_collection(monkeypatch):
    for main in ("/venv/bin/snakemake", "/venv/lib/python3.11/site-packages/snakemake/__main__.py"):
        monkeypatch.setitem(sys.modules, "__main__", SimpleNamespace(__file__=main))
        try:
            end_without_waiting()
            assert gc.get_freeze_count() > 0
        finally:
            gc.unfreeze()


def test_a_program_running_snakemake_keeps_its_collector(monkeypatch):
    monkeypatch.setitem(sys.modules, "__main__", SimpleNamespace(__file__="/home/me/run_workflows.py"))
    end_without_waiting()
    assert gc.get_freeze_count() == 0

"""Snakemake scripts run in worker processes that outlive one job, so a crash stays in its job.

Scoring and translation keep a process apart from Snakemake's: a metric's native library that crashes, or a job
the kernel kills for memory, must take down that job only, which Snakemake then reports, and a translation whose
Snakemake was killed must still finish what it paid for (tests/test_faults.py). Under
`script:` that process was new for every job and paid, each time, the interpreter's start, the imports, the
language cards and word lists, and lingua's models (1.2 s of CPU for a 529-segment job alone, 2.3 s with the
other jobs beside it). Here a job thread of Snakemake hands its script to an idle worker, a Python process
started for an earlier job of this run, and waits for its answer; a worker serves one job at a time, so jobs
side by side each have their own, and what one job loaded serves the next job of the same worker. A worker can
also start before any job needs it and load what the coming jobs will (`warm_up`: the score jobs' word lists and
models, while Snakemake's first seconds leave a core idle, rules/score.smk).

A job that fails in any way leaves no worker behind: the worker is ended and the next job starts a fresh one,
so no state of a failed job reaches another. A worker that dies (a signal, an `os._exit`) fails only the job it
ran, with the signal named. Workers end with Snakemake: each reads its jobs from a pipe, and when Snakemake's
end of it closes (an orderly exit, a kill) an idle worker exits at once; a busy one finishes its job first, as a
`script:` process whose Snakemake was killed does. Snakemake's Ctrl-C reaches its workers too (one process group):
a busy worker's job stops and fails, an idle worker exits quietly.
"""

import os
import pickle
import signal
import subprocess
import sys
import threading
import traceback
from multiprocessing.connection import Connection

from lyss import scripting


class WorkerDied(RuntimeError):
    """The worker running a job ended before answering (a signal, a crash in native code, `os._exit`)."""


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:  # a real-time signal, which the enum does not name
        return str(number)


class ScriptWorker:
    """One worker process and the two pipes to it: jobs go down `_jobs`, answers come back on `_answers`."""

    def __init__(self):
        jobs_read, jobs_write = os.pipe()
        answers_read, answers_write = os.pipe()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "lyss.script_workers", str(jobs_read), str(answers_write)],
                pass_fds=(jobs_read, answers_write), stdin=subprocess.DEVNULL)
        finally:
            os.close(jobs_read)
            os.close(answers_write)
        self._jobs = Connection(jobs_write, readable=False)
        self._answers = Connection(answers_read, writable=False)

    def run(self, path, job) -> tuple[str, str]:
        """("ok", "") or (kind, message) of a failed job: "failed" (bad input, its line already shown) or
        "error" (an exception, with its traceback). Raises WorkerDied."""
        try:
            self._jobs.send_bytes(pickle.dumps((str(path), job), protocol=pickle.HIGHEST_PROTOCOL))
            return pickle.loads(self._answers.recv_bytes())
        except (EOFError, OSError):
            status = self.process.wait()
            ended = f"signal {_signal_name(-status)}" if status < 0 else f"exit status {status}"
            raise WorkerDied(f"the worker process running {os.path.basename(path)} ended ({ended})") from None

    def close(self) -> None:
        """End the worker: closing its job pipe ends its loop; a worker still busy (a failed job's) is killed."""
        self._jobs.close()
        self._answers.close()
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


class WorkerPool:
    """Idle workers, reused by the next job; a new one whenever every worker is busy."""

    def __init__(self):
        self._idle: list[ScriptWorker] = []
        self._lock = threading.Lock()

    def run(self, path, job) -> None:
        """Run the script at `path` with `job` as its `snakemake` in a worker; raises `scripting.JobFailed` on bad
        input, RuntimeError with the worker's traceback on any other exception, WorkerDied when it died."""
        with self._lock:
            worker = self._idle.pop() if self._idle else None
        self._run_on(worker or ScriptWorker(), path, job)

    def _run_on(self, worker: ScriptWorker, path, job) -> None:
        """`run` on this worker: it joins the idle ones after the job, or is ended when the job failed."""
        try:
            kind, message = worker.run(path, job)
        except BaseException:
            worker.close()
            raise
        if kind != "ok":
            worker.close()
            raise (scripting.JobFailed if kind == "failed" else RuntimeError)(message)
        with self._lock:
            self._idle.append(worker)

    def warm_up(self, path, job) -> threading.Thread:
        """Start a worker that runs the script at `path` (one that loads what coming jobs will) on a thread of
        its own, and joins the idle workers when it is done; a job that starts before then starts a worker of its
        own. A warm-up that fails ends its worker with one line on stderr: no job depends on it. Returns the
        thread, which ends with the warm-up."""
        worker = ScriptWorker()
        thread = threading.Thread(target=self._warm, args=(worker, path, job), name="lyss-warm-up", daemon=True)
        thread.start()
        return thread

    def _warm(self, worker: ScriptWorker, path, job) -> None:
        try:
            self._run_on(worker, path, job)
        except RuntimeError as failed:  # JobFailed, WorkerDied, or an exception's traceback: the worker is ended
            last = (str(failed).strip().splitlines() or [type(failed).__name__])[-1]
            if last != "KeyboardInterrupt":  # Snakemake's Ctrl-C reached the worker: the run is stopping anyway
                print(f"lyss: warning: a worker's warm-up ({os.path.basename(path)}) failed, jobs start cold: {last}",
                      file=sys.stderr)


POOL = WorkerPool()


def run_in_worker(path, job) -> None:
    """`scripting.run_script`, in a worker process of this process's pool."""
    POOL.run(path, job)


def warm_up_worker(path, job) -> threading.Thread:
    """`WorkerPool.warm_up` in this process's pool."""
    return POOL.warm_up(path, job)


def _answer(path: str, job) -> tuple[str, str]:
    try:
        scripting.run_script(path, job)
    except scripting.JobFailed as failed:
        return "failed", str(failed)
    except BaseException:  # noqa: BLE001 — any other end of the script (SystemExit included) fails its job
        return "error", traceback.format_exc()
    return "ok", ""


def serve(jobs: Connection, answers: Connection) -> None:
    """The worker's loop: a job, its answer, until Snakemake closes the job pipe. The exit skips the interpreter's
    orderly shutdown (freeing the models takes a moment that nothing needs)."""
    try:
        while True:
            try:
                path, job = pickle.loads(jobs.recv_bytes())
            except EOFError:  # Snakemake ended
                break
            answer = _answer(path, job)
            sys.stdout.flush()
            sys.stderr.flush()
            answers.send_bytes(pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL))
    except KeyboardInterrupt:  # Snakemake's Ctrl-C, between two jobs (one inside a job fails that job)
        pass
    os._exit(0)


if __name__ == "__main__":
    serve(Connection(int(sys.argv[1]), writable=False), Connection(int(sys.argv[2]), readable=False))

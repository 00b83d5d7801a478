"""Support for the thin Snakemake scripts: logs go to the rule's log file, and bad input ends the job
with one clear line (file, line, field) instead of a traceback.

A script runs in one of two ways. Through a rule's `script:` Snakemake starts a Python process for it, which
pays the interpreter's start and every import again (0.2–0.7 s a job) and loads a model, a word list or a language
identifier that the job before it had loaded already. Through `run_script` (a rule's `run:`) it runs inside
Snakemake's own process, on one of its job threads (which the workflow asks for: `on_threads` in
rules/common.smk), so what one job imported or loaded serves every later one (docs/performance.md). The script
is the same file either way: it reads its job from the global `snakemake`, which `run_script` provides. A third
way, for the jobs that must not share Snakemake's process (translation, scoring), is `run_script` in a worker
process that outlives one job (lyss.script_workers).

Jobs on threads share the process's `sys.stderr`, so `logged` routes each thread's writes to its own job's log
(`ThreadStderr`) instead of replacing the stream, and bad input raises `JobFailed` instead of ending the
process with `sys.exit`.
"""

import builtins
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

from lyss.errors import InputError

_job = threading.local()  # per thread: `log` (the open log file of its job), `in_process` (run by run_script)


class JobFailed(RuntimeError):
    """A job run inside Snakemake's process stopped on bad input; the one line is already on stderr and in the
    job's log, and Snakemake marks the job failed (and deletes its outputs) as for any exception."""


class ThreadStderr:
    """`sys.stderr` while jobs may run on threads: a write goes to the log of the job running on the writing
    thread, and to the process's own stderr from any other thread (Snakemake's, the main one)."""

    def __init__(self, stream):
        self.stream = stream

    def _target(self):
        return getattr(_job, "log", None) or self.stream

    def write(self, text: str) -> int:
        return self._target().write(text)

    def flush(self) -> None:
        self._target().flush()

    def __getattr__(self, name):  # encoding, isatty, fileno … of the stream written to
        return getattr(self._target(), name)


_INSTALLING = threading.Lock()


def _process_stderr():
    """The process's stderr, installing the router on first use (once per process, whichever job comes first)."""
    with _INSTALLING:
        if not isinstance(sys.stderr, ThreadStderr):
            sys.stderr = ThreadStderr(sys.stderr)
        return sys.stderr.stream


@contextmanager
def logged(log_path):
    """Everything the job writes to stderr goes to `log_path`; bad input (InputError) writes its one line to the
    log and to the process's stderr and ends the job: the process with status 1 under `script:`, `JobFailed`
    under `run_script`."""
    Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    console = _process_stderr()
    outer = getattr(_job, "log", None)
    with open(log_path, "w", encoding="utf-8") as log:
        _job.log = log
        try:
            yield
        except InputError as err:
            log.write(f"error: {err}\n")
            console.write(f"lyss: error: {err}\n")
            if getattr(_job, "in_process", False):
                raise JobFailed(str(err)) from None
            sys.exit(1)
        finally:
            _job.log = outer


def run_script(path, job) -> None:
    """Run the Snakemake script at `path` in this process and thread with `job` as its global `snakemake`: an
    object with the names a `run:` block has (input, output, params, wildcards, threads, resources, log, rule)
    and the workflow's config, as `script:` gives them to a process of its own.

    The script runs in a namespace of its own, named `__main__` as under `script:`, without entering
    `sys.modules`: `runpy.run_path(run_name="__main__")` swaps `sys.modules["__main__"]` for the script's
    module and back, and two jobs doing that on two threads could leave a finished script's module there for good
    (Snakemake's own module was then lost to everything that asks for `__main__`: lyss.workflow_end, pickle,
    multiprocessing)."""
    path = Path(path)
    code = compile(path.read_bytes(), str(path), "exec")
    namespace = {"__name__": "__main__", "__file__": str(path), "__builtins__": builtins, "snakemake": job}
    _job.in_process = True
    try:
        exec(code, namespace)  # noqa: S102 — a workflow script of this checkout, as `script:` would run it
    finally:
        _job.in_process = False


def option_flags(options: dict) -> list[str]:
    """{"scale": [-3, 3], "group_by_item": True, "seed": 1} → ["--scale", "-3", "3", "--group-by-item", "--seed", "1"];
    lists give several values, True a bare flag, False/None nothing."""
    argv = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            argv.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, list):
            argv += [flag, *map(str, value)]
        else:
            argv += [flag, str(value)]
    return argv

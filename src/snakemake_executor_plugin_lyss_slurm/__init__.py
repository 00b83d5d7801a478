"""Snakemake executor `lyss-slurm`: SLURM as snakemake-executor-plugin-slurm submits to it, with the Snakemake jobs of
one SLURM job run by the one Snakemake that the SLURM job starts.

Why. The SLURM plugin (2.6) starts, inside each SLURM job, a Snakemake with its job-step executor
(`--executor slurm-jobstep --jobs 1`), which runs every Snakemake job of the SLURM job through `srun` and a
Snakemake of its own: each job of a job group pays a second Snakemake start (≈ 3 s: imports, plugin discovery,
the Snakefile, the DAG) for ≈ 1–4 s of work, one job after another. The pipeline's default run is 102 such jobs
(docs/performance.md: 548 s on a one-node cluster against 219 s locally). Here the SLURM job's Snakemake runs its
jobs itself with the local executor, as `snakemake --cores N` does on a workstation: the group's jobs, side by
side within the CPUs SLURM gave the job (`--cores`, which Snakemake passes), on its job threads or, for the rules
that keep `script:`, in a process of their own (rules/common.smk, `run_job`). Submission, resources, status
checks, logs and every setting are the SLURM plugin's, unchanged (this class inherits them all); its options
are spelled `--lyss-slurm-…` (profile keys `lyss-slurm-…`) instead of `--slurm-…`. Job arrays
(`--lyss-slurm-array-jobs`) need the job-step executor and keep it.

No pause before a submission: the SLURM plugin 2.6 sleeps 5 s before every `sbatch` (a leftover that 2.7.1 removed,
upstream commit 18fb815; 2.7 needs NumPy 2, which the COMET extra does not allow), on its two submission threads, so
each link of a chain of SLURM jobs waited 5 s more before it was even queued. Here `run_job` submits without it.

A poll as soon as a SLURM job's outputs are on disk: between two status polls the executor looks, once a second,
whether every output of an active SLURM job (a group's: those no job of the group reads) has appeared since it
was submitted, and if so polls at once instead of at the end of the wait, so the next link of a chain is submitted
within a second or two of its predecessor's end. Only the poll's time changes: the job's state is still SLURM's.
Stale or clock-skewed modification times, or a file system slow to show them, only mean the usual wait; a job
whose outputs are there while SLURM still runs it wakes the wait at most three times.

One setting of its own: `--lyss-slurm-max-seconds-between-status-checks`. The plugin waits 10 s longer after each
status poll in which no job ended, up to 180 s, which suits thousands of long jobs; here a chain of jobs of a minute
or two waits for each link's poll: on the default pipeline a 10 s cap (and a 5 s first wait) took 179–183 s where
the plugin's backoff took 214 s (docs/cluster.md).

The SLURM plugin is the `dev` extra. Snakemake imports every installed executor plugin when it starts, so without
it this module still loads and the executor says what to install when it is chosen.
"""

import asyncio
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Optional

from snakemake_interface_common.exceptions import WorkflowError

try:
    from snakemake_executor_plugin_slurm import Executor as SlurmExecutor
    from snakemake_executor_plugin_slurm import ExecutorSettings as SlurmExecutorSettings
    from snakemake_executor_plugin_slurm import common_settings  # noqa: F401 (Snakemake reads it)
except ImportError:  # `pip install -e .` without the dev extra
    from snakemake_interface_executor_plugins.executors.base import AbstractExecutor
    from snakemake_interface_executor_plugins.settings import CommonSettings

    common_settings = CommonSettings(non_local_exec=True, implies_no_shared_fs=False, job_deploy_sources=False)

    class Executor(AbstractExecutor):
        def __new__(cls, *args, **kwargs):  # before the abstract-class check, which would say less
            raise WorkflowError("executor lyss-slurm needs snakemake-executor-plugin-slurm: pip install -e '.[dev]'")

else:
    import snakemake_executor_plugin_slurm as slurm_plugin

    class _PluginClock:
        """`time` as the SLURM plugin's module sees it: the same, but `sleep` returns at once inside `run_job` of
        this executor (a thread-local flag), so the plugin's other waits, and its own executor, are untouched."""

        submitting = threading.local()

        def __getattr__(self, name):
            return getattr(time, name)

        def sleep(self, seconds):
            if not getattr(self.submitting, "active", False):
                time.sleep(seconds)

    _CLOCK = _PluginClock()
    slurm_plugin.time = _CLOCK  # once: outside this executor's run_job it is the plugin's `time`, unchanged
    OUTPUT_CHECK_SECONDS = 1  # how often the outputs of active SLURM jobs are looked for between two polls
    EARLY_POLLS = 3  # how many polls one SLURM job's outputs may bring forward

    @dataclass
    class ExecutorSettings(SlurmExecutorSettings):
        # Optional[int], not `int | None`: Snakemake calls the type to parse the option
        max_seconds_between_status_checks: Optional[int] = field(  # noqa: UP045
            default=None,
            metadata={"help": "The longest wait between two status polls: the plugin adds 10 s after each poll in "
                              "which no job ended, up to this (unset or 0: the plugin's own limit, 180 s in 2.6)."},
        )

    class Executor(SlurmExecutor):
        def __post_init__(self, *args, **kwargs):
            super().__post_init__(*args, **kwargs)
            # by Snakemake job id: when it was submitted (wall clock, as its outputs' modification times), and how
            # many polls its outputs brought forward
            self.submitted_at, self.early_polls = {}, {}

        async def check_active_jobs(self, active_jobs):
            """The plugin's status poll, then its next wait capped at max-seconds-between-status-checks."""
            async for job in super().check_active_jobs(active_jobs):
                yield job
            cap = self.workflow.executor_settings.max_seconds_between_status_checks
            if cap is not None and cap > 0:
                self.next_seconds_between_status_checks = min(self.next_seconds_between_status_checks, cap)

        def run_job(self, job):
            """The plugin's submission (sbatch), without the pause 2.6 makes before it (the module docstring)."""
            self.submitted_at[job.jobid] = time.time()
            _CLOCK.submitting.active = True
            try:
                super().run_job(job)
            finally:
                _CLOCK.submitting.active = False

        async def sleep(self):
            """The wait before the next status poll, cut short once an active SLURM job's outputs are on disk."""
            deadline = time.monotonic() + self.next_seconds_between_status_checks
            while (left := deadline - time.monotonic()) > 0:
                await asyncio.sleep(min(OUTPUT_CHECK_SECONDS, left))
                if any(self.outputs_written(info.job) for info in list(self.active_jobs)):
                    return

        def outputs_written(self, job) -> bool:
            """Whether every output of `job` was modified since its submission (a second's leeway for file systems
            that store whole seconds), for at most EARLY_POLLS polls of the job."""
            since = self.submitted_at.get(job.jobid)
            if since is None or self.early_polls.get(job.jobid, 0) >= EARLY_POLLS or not job.output:
                return False
            try:
                written = all(os.stat(path).st_mtime >= since - 1 for path in job.output)
            except OSError:
                return False
            if written:
                self.early_polls[job.jobid] = self.early_polls.get(job.jobid, 0) + 1
            return written

        def additional_general_args(self) -> str:
            """The arguments of the Snakemake inside each SLURM job beyond Snakemake's own (which give it the job's
            targets and `--cores`): the local executor, unless job arrays need the job-step executor."""
            if self.workflow.executor_settings.array_jobs:
                return super().additional_general_args()
            return "--executor local"

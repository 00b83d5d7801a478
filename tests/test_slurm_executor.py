"""The project's SLURM executor (src/snakemake_executor_plugin_lyss_slurm): what the Snakemake inside a SLURM job is
told to run its jobs with, and that Snakemake still starts where the SLURM plugin (the dev extra) is missing.
tests/cluster/test_slurm.py runs the pipeline through it on a real cluster."""

import asyncio
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest


def executor_with(array_jobs):
    """The executor without its start-up (which submits nothing but asks SLURM's environment), on a workflow whose
    only setting read here is array_jobs."""
    plugin = pytest.importorskip("snakemake_executor_plugin_lyss_slurm")
    executor = object.__new__(plugin.Executor)
    executor.workflow = SimpleNamespace(executor_settings=SimpleNamespace(array_jobs=array_jobs,
                                                                          pass_command_as_script=False))
    executor.submitted_at, executor.early_polls = {}, {}
    return executor


def test_the_jobs_of_a_slurm_job_run_by_its_own_snakemake():
    pytest.importorskip("snakemake_executor_plugin_slurm")
    assert executor_with(None).additional_general_args() == "--executor local"


def test_job_arrays_keep_the_plugins_job_steps():
    pytest.importorskip("snakemake_executor_plugin_slurm")
    assert executor_with("all").additional_general_args() == "--executor slurm-jobstep --jobs 1"


def test_without_the_slurm_plugin_snakemake_starts_and_the_executor_says_what_to_install():
    # a process in which the SLURM plugin is not installed: not listed, not importable
    code = """
import pkgutil, sys
listed = pkgutil.iter_modules
pkgutil.iter_modules = lambda *a: (m for m in listed(*a) if not m.name.startswith("snakemake_executor_plugin_slurm"))
sys.modules["snakemake_executor_plugin_slurm"] = None
from snakemake_interface_executor_plugins.registry import ExecutorPluginRegistry
registry = ExecutorPluginRegistry()
print("lyss-slurm" in registry.plugins, "slurm" in registry.plugins)
try:
    registry.get_plugin("lyss-slurm").executor(None, None)
except Exception as err:
    print(type(err).__name__, err)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["True False",
                                "WorkflowError executor lyss-slurm needs snakemake-executor-plugin-slurm: "
                                "pip install -e '.[dev]'"]


def polled(cap, plugin_wait, monkeypatch):
    """The jobs the capped poll passes on, and the wait it leaves, where the SLURM plugin's poll (replaced here: it
    asks squeue) reports one job still running and then sets its own next wait to `plugin_wait`."""
    slurm = pytest.importorskip("snakemake_executor_plugin_slurm")

    async def plugin_poll(self, active_jobs):
        for job in active_jobs:
            yield job
        self.next_seconds_between_status_checks = plugin_wait

    monkeypatch.setattr(slurm.Executor, "check_active_jobs", plugin_poll)
    executor = executor_with(None)
    executor._next_seconds_between_status_checks = None
    executor.workflow.executor_settings.max_seconds_between_status_checks = cap

    async def poll():
        return [job async for job in executor.check_active_jobs(["job 1"])]

    return asyncio.run(poll()), executor.next_seconds_between_status_checks


def test_the_wait_between_status_polls_is_capped(monkeypatch):
    assert polled(20, 180, monkeypatch) == (["job 1"], 20)  # the plugin's backoff, cut to the profile's cap
    assert polled(20, 10, monkeypatch) == (["job 1"], 10)  # a shorter wait stays as the plugin set it
    assert polled(None, 180, monkeypatch) == (["job 1"], 180)  # no cap: the plugin's rule
    assert polled(0, 180, monkeypatch) == (["job 1"], 180)


def test_the_cap_is_an_option_snakemake_parses():
    pytest.importorskip("snakemake_executor_plugin_slurm")
    from argparse import ArgumentParser

    from snakemake_interface_executor_plugins.registry import ExecutorPluginRegistry

    plugin = ExecutorPluginRegistry().get_plugin("lyss-slurm")
    parser = ArgumentParser()
    plugin.register_cli_args(parser, "executor")
    args = parser.parse_args(["--lyss-slurm-max-seconds-between-status-checks", "10"])
    assert plugin.get_settings(args).max_seconds_between_status_checks == 10


def test_a_submission_does_not_pause_and_the_plugins_other_waits_do(monkeypatch):
    """The SLURM plugin 2.6 sleeps 5 s before each sbatch in run_job; lyss-slurm's run_job skips that sleep only."""
    slurm = pytest.importorskip("snakemake_executor_plugin_slurm")
    plugin = pytest.importorskip("snakemake_executor_plugin_lyss_slurm")
    slept = []
    monkeypatch.setattr(plugin.time, "sleep", slept.append)

    def plugin_run_job(self, job):  # the plugin's run_job: its pause, then sbatch
        slurm.time.sleep(5)
        slept.append(f"sbatch {job.jobid}")

    monkeypatch.setattr(slurm.Executor, "run_job", plugin_run_job)
    executor = executor_with(None)
    executor.run_job(SimpleNamespace(jobid=7))
    slurm.time.sleep(5)  # elsewhere in the plugin (its warning inside a SLURM job): the wait stays
    assert slept == ["sbatch 7", 5]
    assert list(executor.submitted_at) == [7]  # when, for the outputs it will write


def waits_before_the_poll(executor, plugin, monkeypatch, after_each_check=lambda: None) -> list[float]:
    """The steps of one wait before a status poll of 30 s, on a clock that the steps advance (no real time passes)."""
    clock, steps = [1000.0], []

    async def step(seconds):
        steps.append(seconds)
        clock[0] += seconds
        after_each_check()

    monkeypatch.setattr(plugin, "time", SimpleNamespace(monotonic=lambda: clock[0]))  # the module's names only
    monkeypatch.setattr(plugin, "asyncio", SimpleNamespace(sleep=step))
    executor._next_seconds_between_status_checks = 30
    asyncio.run(executor.sleep())
    return steps


def test_the_poll_comes_as_soon_as_a_slurm_jobs_outputs_are_written(tmp_path, monkeypatch):
    """Between two polls the executor looks for the outputs of active SLURM jobs once a second; when all of one
    job's are written after its submission it polls at once (at most three times for one job), else it waits."""
    pytest.importorskip("snakemake_executor_plugin_slurm")
    plugin = pytest.importorskip("snakemake_executor_plugin_lyss_slurm")
    executor = executor_with(None)
    outputs = [tmp_path / "a.parquet", tmp_path / "b.parquet"]
    job = SimpleNamespace(jobid="group-1", output=[str(p) for p in outputs])
    executor.active_jobs = [SimpleNamespace(job=job)]
    assert waits_before_the_poll(executor, plugin, monkeypatch) == [1] * 30  # not submitted here: the usual wait

    executor.submitted_at["group-1"] = 5000.0  # wall clock of the submission, as the outputs' mtimes below
    outputs[0].write_text("x")
    os.utime(outputs[0], (5004.0, 5004.0))
    assert waits_before_the_poll(executor, plugin, monkeypatch) == [1] * 30  # one of the two outputs: still waits

    outputs[1].write_text("y")
    os.utime(outputs[1], (4990.0, 4990.0))  # left from an earlier run (an update() output before the job)
    assert waits_before_the_poll(executor, plugin, monkeypatch) == [1] * 30

    def job_ends_on_the_fourth_check():
        if len(checks) == 3:
            os.utime(outputs[1], (5010.0, 5010.0))
        checks.append(1)

    checks = []
    assert waits_before_the_poll(executor, plugin, monkeypatch, job_ends_on_the_fourth_check) == [1] * 4
    assert waits_before_the_poll(executor, plugin, monkeypatch) == [1]  # SLURM still ran it: poll again
    assert waits_before_the_poll(executor, plugin, monkeypatch) == [1]
    assert waits_before_the_poll(executor, plugin, monkeypatch) == [1] * 30  # three early polls for one job at most

"""What each SLURM job group of a profile asks for: the run time Snakemake requests for it.

A profile's `groups` pack many Snakemake jobs into one SLURM job, whose `--time` is not any rule's runtime but
Snakemake's estimate for the group (`snakemake.resources.GroupResources.basic_layered`): the group's jobs in
dependency levels, each level's jobs side by side within the profile's `cores`, the runtimes of consecutive
layers summed. With the shipped profile the `summary` group holds every run card of the pipeline, so its request
grows with datasets × methods and can pass a partition's time limit that every single rule fits; SLURM then
refuses the group or leaves it pending. This asks Snakemake for the jobs (a dry run with the profile's groups,
every job forced, nothing executed) and Snakemake's own estimator for their sum.
"""

import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from lyss.errors import InputError

DRY_RUN_TIMEOUT_S = 300
GROUP_LINE = re.compile(r"^(?:\[[^\]]*\] )?Group job (\S+) ")
RULE_LINE = re.compile(r"^\s+(?:local)?rule (\S+):$")
JOB_FIELD = re.compile(r"^\s+(input|output|threads|resources): ?(.*)$")


@dataclass
class PlannedJob:
    """One Snakemake job of a group as the dry run prints it."""

    rule: str
    threads: int = 1
    runtime: int = 0
    mem_mb: int = 0
    inputs: set[str] = field(default_factory=set)
    outputs: set[str] = field(default_factory=set)


def planned_groups(project: Path, groups: dict[str, str], components: dict[str, int], cores: int,
                   target: str = "all") -> list[tuple[str, list[PlannedJob]]]:
    """Every group job of a full run of `target` (name, its jobs), from `snakemake --dry-run --forceall`."""
    argv = [sys.executable, "-m", "snakemake", "--dry-run", "--forceall", target, "--cores", str(cores),
            "--directory", str(project), "--snakefile", str(project / "Snakefile"),
            "--groups", *(f"{rule}={group}" for rule, group in groups.items())]
    if components:
        argv += ["--group-components", *(f"{group}={n}" for group, n in components.items())]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=DRY_RUN_TIMEOUT_S, cwd=project)
    except subprocess.TimeoutExpired:
        raise InputError(project / "Snakefile",
                         f"snakemake --dry-run did not finish in {DRY_RUN_TIMEOUT_S} s") from None
    if done.returncode != 0:
        tail = " / ".join(done.stderr.strip().splitlines()[-3:])
        raise InputError(project / "Snakefile", f"snakemake --dry-run failed: {tail}")
    return parse_dry_run(done.stdout)


def parse_dry_run(text: str) -> list[tuple[str, list[PlannedJob]]]:
    """The group jobs of a dry run's listing: each `Group job NAME` line and the indented jobs under it."""
    found: list[tuple[str, list[PlannedJob]]] = []
    jobs: list[PlannedJob] | None = None
    for line in text.splitlines():
        if header := GROUP_LINE.match(line):
            jobs = []
            found.append((header.group(1), jobs))
        elif jobs is not None and line and not line.startswith(" "):
            jobs = None  # the group's listing ends at the next unindented line
        elif jobs is not None and (rule := RULE_LINE.match(line)):
            jobs.append(PlannedJob(rule=rule.group(1)))
        elif jobs and (item := JOB_FIELD.match(line)):
            key, value = item.groups()
            if key in ("input", "output"):
                getattr(jobs[-1], f"{key}s").update(path.strip() for path in value.split(","))
            elif key == "threads":
                jobs[-1].threads = int(value)
            else:
                resources = dict(pair.split("=", 1) for pair in value.split(", ") if "=" in pair)
                jobs[-1].runtime = int(resources.get("runtime", 0))
                jobs[-1].mem_mb = int(resources.get("mem_mb", 0))
    return found


def levels(jobs: list[PlannedJob]) -> list[list[PlannedJob]]:
    """The jobs in dependency levels: a job's level is one past the highest of the group's jobs it reads from."""
    writer = {path: i for i, job in enumerate(jobs) for path in job.outputs}
    level: dict[int, int] = {}

    def of(i: int) -> int:
        if i not in level:
            before = {writer[path] for path in jobs[i].inputs if path in writer} - {i}
            level[i] = 1 + max(map(of, before), default=-1)
        return level[i]

    ordered: list[list[PlannedJob]] = []
    for i, job in enumerate(jobs):
        while len(ordered) <= of(i):
            ordered.append([])
        ordered[of(i)].append(job)
    return ordered


class _Limit:
    def __init__(self, value):
        self.value = value


class _Constraints(dict):
    """The global resources Snakemake's estimator reads: the profile's cores; the rest unbounded."""

    def get(self, name, default=None):
        return _Limit(super().get(name))


class _Job:
    """The two attributes of a Snakemake job that `GroupResources.basic_layered` reads."""

    pipe_group = None

    def __init__(self, job: PlannedJob):
        self.resources = {"_cores": job.threads, "runtime": job.runtime, "mem_mb": job.mem_mb}


def requested_runtime(jobs: list[PlannedJob], cores: int) -> int:
    """The minutes Snakemake requests for a group of these jobs under `cores` (its own estimator)."""
    from snakemake.resources import GroupResources

    estimate = GroupResources.basic_layered([[_Job(job) for job in level] for level in levels(jobs)],
                                            _Constraints(_cores=cores), run_local=False)
    return int(estimate.get("runtime", 0))

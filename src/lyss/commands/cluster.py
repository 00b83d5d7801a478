"""`lyss cluster check PROFILE`: check a Snakemake SLURM profile against the cluster before submitting.

A profile shipped with a placeholder partition (`main`) or account made `snakemake --profile profiles/slurm`
print "Execute 2 jobs..." and then nothing. The SLURM plugin checks the account with `sacctmgr`/`sshare`
before every submission, without a time limit, so where those block nothing is submitted and nothing said.
This asks the cluster first, each command with a time limit: `sinfo` (do the partitions exist, do they
have the GPU, memory and run time the rules declare), `sacctmgr` (is the account the user's),
`sbatch --test-only` (would SLURM accept a job like ours; its own message if not; nothing is queued), and
where job states come from `squeue`, `scontrol show config` (does squeue remember a finished job until the next
status poll). Each problem is one line naming the profile key. See docs/cluster.md.
"""

import argparse
import getpass
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from lyss.commands import cluster_groups
from lyss.errors import InputError, did_you_mean

COMMAND_TIMEOUT_S = 20
# snakemake-executor-plugin-slurm's executor, and the project's (src/snakemake_executor_plugin_lyss_slurm: the same
# submission, a SLURM job's Snakemake jobs run by one Snakemake), which profiles/slurm uses.
SLURM_EXECUTORS = ("slurm", "lyss-slurm")
RESOURCE_LINE = re.compile(r"^\s*(mem_mb|runtime|gpu)=(\d+),?\s*$")
# The SLURM plugin's (2.6) status polls: the first wait's default, its longest wait, and the factor below which
# it asks sacct instead of squeue (MinJobAge < 3 × the first wait). Literals in its code, so repeated here;
# tests/test_cluster_check.py compares them with the installed plugin.
PLUGIN_FIRST_WAIT_S, PLUGIN_LONGEST_WAIT_S, PLUGIN_SQUEUE_FACTOR = 40, 180, 3
# `scontrol show config` prints "MinJobAge = 300 sec"; hours as the plugin reads them, anything else as seconds.
MIN_JOB_AGE = re.compile(r"^\s*MinJobAge\s*=\s*(\d+)\s*([a-zA-Z]*)", re.M)


@dataclass
class Partition:
    name: str
    time_limit_min: float | None  # None: infinite
    memory_mb: int | None  # largest node
    gpus: int


def _run(argv: list[str]) -> subprocess.CompletedProcess:
    """Run a SLURM client; one that does not answer in time is a finding, not a hang."""
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S, check=False)
    except FileNotFoundError:
        raise InputError(argv[0], "not found on PATH: run this on a SLURM login node") from None
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(argv, 124, "", f"did not answer within {COMMAND_TIMEOUT_S} s")


def slurm_minutes(text: str) -> float | None:
    """sinfo's time limit ([days-]hours:minutes:seconds, minutes:seconds, "infinite") in minutes."""
    if text in ("infinite", "UNLIMITED", "n/a", ""):
        return None
    days, _, rest = text.rpartition("-")
    parts = [int(p) for p in rest.split(":")]
    while len(parts) < 3:
        parts.insert(0, 0)
    hours, minutes, seconds = parts
    return (int(days or 0) * 24 + hours) * 60 + minutes + seconds / 60


def partitions() -> dict[str, Partition]:
    """Partitions as `sinfo` lists them (one row per node group; the largest node counts)."""
    done = _run(["sinfo", "-h", "-o", "%P|%l|%m|%G"])
    if done.returncode:
        raise InputError("sinfo", _one_line(done.stderr) or f"exit status {done.returncode}")
    found: dict[str, Partition] = {}
    for line in done.stdout.splitlines():
        name, limit, memory, gres = (line.split("|") + ["", "", "", ""])[:4]
        name = name.rstrip("*")
        gpus = sum(int(m.group(1) or 1) for m in re.finditer(r"gpu(?::[\w-]+)?(?::(\d+))?", gres))
        mem = int(re.sub(r"\D", "", memory) or 0) or None
        old = found.get(name)
        if old is not None:  # another node group of the same partition: keep the largest
            mem = max(m for m in (mem, old.memory_mb, 0) if m is not None) or None
            gpus = max(gpus, old.gpus)
        found[name] = Partition(name, slurm_minutes(limit), mem, gpus)
    return found


def user_accounts() -> tuple[set[str], str | None]:
    """(accounts the user is associated with, why they could not be listed)."""
    done = _run(["sacctmgr", "-n", "-P", "show", "assoc", f"user={getpass.getuser()}", "format=account"])
    if done.returncode:
        return set(), _one_line(done.stderr) or f"exit status {done.returncode}"
    return {line.strip() for line in done.stdout.splitlines() if line.strip()}, None


def min_job_age() -> tuple[int | None, str | None]:
    """(seconds squeue keeps a finished job, why it could not be read), from `scontrol show config`."""
    done = _run(["scontrol", "show", "config"])
    if done.returncode:
        return None, _one_line(done.stderr) or f"exit status {done.returncode}"
    found = MIN_JOB_AGE.search(done.stdout)
    if found is None:
        return None, "no MinJobAge line"
    return int(found.group(1)) * (3600 if found.group(2).lower() in ("h", "hour", "hours") else 1), None


def status_wait_problems(profile: dict, executor: str, where: str) -> tuple[list[str], list[str]]:
    """Where job states come from squeue, which forgets a job MinJobAge seconds after it ends: a job that ends
    and is forgotten between two status polls is waited for forever. The plugin also asks sacct instead where
    MinJobAge is below 3 × its first wait, which fails on the clusters that set squeue (no accounting)."""
    if str(profile.get(f"{executor}-status-command", "")).strip() != "squeue":
        return [], []
    age, why_not = min_job_age()
    if age is None:
        return [], [f"{where}: MinJobAge not checked: scontrol: {why_not}"]
    first_key = f"{executor}-init-seconds-before-status-checks"
    first = _seconds(profile, first_key, PLUGIN_FIRST_WAIT_S, where)
    cap_key = f"{executor}-max-seconds-between-status-checks"  # executor lyss-slurm only
    cap = _seconds(profile, cap_key, 0, where) if executor == "lyss-slurm" else 0
    longest = min(cap, PLUGIN_LONGEST_WAIT_S) if cap > 0 else PLUGIN_LONGEST_WAIT_S
    if age == 0:  # slurm.conf: "a value of zero prevents any job record purging", which the plugin reads as short
        return [f"{where}: field '{executor}-status-command': the cluster's MinJobAge is 0 (finished jobs stay in "
                "squeue), which the SLURM plugin takes for shorter than its status waits and asks sacct instead of "
                "squeue wherever sacct is installed"], []
    if age < PLUGIN_SQUEUE_FACTOR * first:
        return [f"{where}: field '{first_key}': the cluster's MinJobAge is {age} s, below {PLUGIN_SQUEUE_FACTOR} × "
                f"{first} s, so the SLURM plugin asks sacct instead of squeue; set {first_key} to at most "
                f"{age // PLUGIN_SQUEUE_FACTOR}"], []
    if age <= longest:
        field = cap_key if executor == "lyss-slurm" else f"{executor}-status-command"
        remedy = (f"set {cap_key} below {age}" if executor == "lyss-slurm" else
                  f"use executor lyss-slurm with lyss-slurm-max-seconds-between-status-checks below {age}")
        return [f"{where}: field '{field}': the cluster's MinJobAge is {age} s, and status polls can be {longest} s "
                f"apart: squeue may forget a finished job before a poll sees it, and the run would wait for it "
                f"forever; {remedy}, or raise MinJobAge in slurm.conf"], []
    return [], []


def _seconds(profile: dict, key: str, default: int, where: str) -> int:
    """A profile's whole number of seconds (YAML may give it as text); anything else names the key."""
    value = profile.get(key)
    if value is None:
        return default
    try:
        return int(str(value).strip())
    except ValueError:
        raise InputError(where, f"{value!r} is not a whole number of seconds", field=key) from None


def _one_line(text: str) -> str:
    return " / ".join(line.strip() for line in text.strip().splitlines() if line.strip())


def sbatch_refusal(partition: str | None, account: str | None, resources: dict[str, int]) -> str | None:
    """sbatch's own message when it would refuse a job like ours (`--test-only` queues nothing), else None."""
    argv = ["sbatch", "--test-only", "--wrap", "true", "-t", str(max(resources["runtime"], 1)),
            "--mem", f"{max(resources['mem_mb'], 1)}M"]
    argv += ["-p", partition] if partition else []
    argv += ["-A", account] if account else []
    argv += ["--gpus=1"] if resources["gpu"] else []
    done = _run(argv)
    return (_one_line(done.stderr) or f"exit status {done.returncode}") if done.returncode else None


def declared_resources(project: Path) -> dict[str, int]:
    """The largest mem_mb and runtime any rule under rules/ declares, and whether a job asks for a GPU: scoring
    does (rules/score.smk `metric_gpus`) for a metric params.yaml scores that declares `gpus` and has its model
    on disk for some dataset (lyss.gpu_jobs, the workflow's own test; e.g. COMET with a local checkpoint)."""
    largest = {"mem_mb": 0, "runtime": 0, "gpu": 0}
    for path in sorted((project / "rules").glob("*.smk")):
        for line in path.read_text(encoding="utf-8").splitlines():
            match = RESOURCE_LINE.match(line)
            if match:
                largest[match.group(1)] = max(largest[match.group(1)], int(match.group(2)))
    params_path = project / "params.yaml"
    if params_path.exists():
        from lyss.gpu_jobs import gpu_metrics, target_cards  # the registry and the cards are heavy

        params = yaml.safe_load(params_path.read_text(encoding="utf-8")) or {}
        targets = target_cards(params.get("datasets") or {}, params.get("languages_dir", "data/languages"), project)
        if gpu_metrics(params.get("metrics") or [], targets, params.get("metric_options") or {}):
            largest["gpu"] = 1
    return largest


def check_profile(profile_dir: Path, project: Path | None = None) -> tuple[list[str], list[str]]:
    """(problems, notes) for a profile folder holding config.yaml; problems name the profile key."""
    config_path = profile_dir / "config.yaml"
    try:
        profile = yaml.safe_load(config_path.read_text(encoding="utf-8")) or {}
    except OSError as err:
        raise InputError(config_path, f"cannot read the profile ({err.strerror or err})") from None
    except yaml.YAMLError as err:
        raise InputError(config_path, f"malformed YAML ({getattr(err, 'problem', err)})") from None
    executor = profile.get("executor")
    if executor not in SLURM_EXECUTORS:
        raise InputError(config_path, f"not a SLURM profile (executor: {executor!r})", field="executor")
    no_account = f"{executor}-no-account"  # each executor's options carry its name
    project = project or profile_dir.resolve().parents[1]
    defaults = profile.get("default-resources") or {}
    if isinstance(defaults, list):  # ["slurm_partition=x", ...] is also valid Snakemake
        defaults = dict(item.split("=", 1) for item in defaults)
    per_rule = {}
    for item in profile.get("set-resources") or []:
        rule, _, assignment = str(item).partition(":")
        key, _, value = assignment.partition("=")
        per_rule.setdefault(rule, {})[key] = value.strip("'\"")
    known = partitions()
    problems, notes = [], []
    where = str(config_path)
    wanted = {"default-resources.slurm_partition": str(defaults.get("slurm_partition", "")).strip("'\"")}
    wanted.update({f"set-resources.{rule}:slurm_partition": v.get("slurm_partition") for rule, v in per_rule.items()
                   if v.get("slurm_partition")})
    largest = declared_resources(project)
    account = str(defaults.get("slurm_account", "")).strip("'\"") or None
    if profile.get(no_account):
        if account:
            notes.append(f"{where}: {no_account} is set, so slurm_account {account!r} is not used")
        account = None
    elif account:
        accounts, why_not = user_accounts()
        if why_not:
            notes.append(f"{where}: account {account!r} not checked: sacctmgr: {why_not}"
                         + ("; the SLURM plugin runs sacctmgr before every submission and would wait the same "
                            f"way: set {no_account}: true and export SBATCH_ACCOUNT instead"
                            if "did not answer" in why_not else ""))
        elif account not in accounts:
            listing = ", ".join(sorted(accounts)) or f"none for user {getpass.getuser()}"
            problems.append(f"{where}: field 'default-resources.slurm_account': account {account!r} is not yours"
                            f"{did_you_mean(account, accounts, cutoff=0.5)}; sacctmgr lists: {listing}")
    for key, name in wanted.items():
        rule = key.split(".", 1)[1].split(":")[0] if key.startswith("set-resources") else None
        scores = rule == "score" or (rule is None and not per_rule.get("score", {}).get("slurm_partition"))
        needs = {**largest, "gpu": largest["gpu"] if scores and per_rule.get("score", {}).get("gpu") != "0" else 0}
        refusal = sbatch_refusal(name or None, account, needs)
        said = f"; sbatch --test-only says: {refusal}" if refusal else ""
        if name and name not in known:
            problems.append(f"{where}: field '{key}': partition {name!r} does not exist on this cluster"
                            f"{did_you_mean(name, known, cutoff=0.5)}; sinfo lists: {', '.join(sorted(known))}{said}")
            continue
        part = known.get(name) if name else None
        if part is not None and needs["gpu"] and not part.gpus:
            problems.append(f"{where}: field '{key}': partition {name!r} has no GPU, but COMET scoring asks for "
                            f"one; add `set-resources: [score:gpu=0]` or a GPU partition for rule score{said}")
        elif part is not None and part.time_limit_min is not None and needs["runtime"] > part.time_limit_min:
            problems.append(f"{where}: field '{key}': partition {name!r} allows {part.time_limit_min:g} minutes, "
                            f"a rule asks for runtime={needs['runtime']}{said}")
        elif part is not None and part.memory_mb is not None and needs["mem_mb"] > part.memory_mb:
            problems.append(f"{where}: field '{key}': partition {name!r} nodes have {part.memory_mb} MB, a rule "
                            f"asks for mem_mb={needs['mem_mb']}{said}")
        elif refusal:
            problems.append(f"{where}: field '{key}': sbatch --test-only refuses a job with partition "
                            f"{name or '(default)'!s}{f', account {account}' if account else ''}: {refusal}")
        elif not name:
            notes.append(f"{where}: no partition set; jobs go to the cluster's default partition")
    if profile.get("groups"):
        group_problems, group_notes = group_time_problems(profile, project, known, wanted, per_rule, where)
        problems += group_problems
        notes += group_notes
    wait_problems, wait_notes = status_wait_problems(profile, executor, where)
    return problems + wait_problems, notes + wait_notes


def group_time_problems(profile: dict, project: Path, known: dict[str, Partition], wanted: dict[str, str | None],
                        per_rule: dict[str, dict], where: str) -> tuple[list[str], list[str]]:
    """(problems, notes) of the job groups' run times. A job group asks SLURM for its jobs' summed run time
    (`lyss.commands.cluster_groups`), which can pass a partition's limit that each of its rules fits. A group
    goes to its rules' partition when they all name the same one, else to the default; only partitions with a
    time limit need the (3–5 s) dry run."""
    default = wanted.get("default-resources.slurm_partition") or None
    limited = {name for name in wanted.values() if name in known and known[name].time_limit_min is not None}
    if not limited:
        return [], []
    groups = dict(str(item).split("=", 1) for item in profile["groups"])
    components = {group: int(n) for group, n in (str(item).split("=", 1) for item in
                                                 profile.get("group-components") or [])}
    cores = int(profile.get("cores") or 1)
    try:
        planned = cluster_groups.planned_groups(project, groups, components, cores)
    except InputError as err:
        return [], [f"{where}: job groups' run times not checked: {err}"]
    asked: dict[tuple[str, str], tuple[int, int]] = {}
    for group, jobs in planned:
        named = {per_rule.get(job.rule, {}).get("slurm_partition") for job in jobs}
        partition = named.pop() if len(named) == 1 and None not in named else default
        minutes = cluster_groups.requested_runtime(jobs, cores)
        if partition in limited and minutes > asked.get((group, partition), (0, 0))[0]:
            asked[(group, partition)] = (minutes, len(jobs))
    return [f"{where}: field 'groups': job group {group!r} ({n_jobs} jobs) asks for runtime={minutes}, Snakemake's "
            f"sum of its jobs' runtimes on cores: {cores}; partition {partition!r} allows "
            f"{known[partition].time_limit_min:g} minutes: take rules out of the group, lower its group-components, "
            "or use a partition with a longer limit"
            for (group, partition), (minutes, n_jobs) in sorted(asked.items())
            if minutes > known[partition].time_limit_min], []


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "cluster", help="check a Snakemake SLURM profile against the cluster (sinfo, sacctmgr)",
        description="Check the partitions, account and resources of a Snakemake SLURM profile against the "
        "cluster before submitting anything; see docs/cluster.md.")
    sub = parser.add_subparsers(dest="action", required=True)
    check = sub.add_parser("check", help="check PROFILE (a folder with config.yaml), e.g. profiles/slurm")
    check.add_argument("profile", type=Path)
    check.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if shutil.which("sinfo") is None:
        raise InputError("sinfo", "not found on PATH: run `lyss cluster check` on a SLURM login node")
    problems, notes = check_profile(args.profile)
    for note in notes:
        print(f"lyss: note: {note}", file=sys.stderr)
    for problem in problems:
        print(f"lyss: error: {problem}", file=sys.stderr)
    if problems:
        return 2
    print(f"{args.profile}: partitions, account and resources fit this cluster")
    return 0

"""A real single-node SLURM cluster on localhost for tests: munged, slurmctld and slurmd (Debian packages
`munge slurmctld slurmd`), no systemd. Everything (munge key and socket, slurm.conf, gres.conf, state,
spool, logs) lives in one temporary folder; the controller and node daemons listen on free ports, so a
system SLURM, if any, is left alone.

Choices: no accounting (no slurmdbd/MariaDB): two more daemons and a database to initialise would
cost more start-up time than the whole test run, and nothing here needs job history. Without
accounting the Snakemake SLURM plugin must query job states with `squeue`, which only sees a job for
`MinJobAge` seconds after it ends, so MinJobAge stays well above 3 × the plugin's initial status
wait; it is an hour (not SLURM's 300 s) because the test counts every job of the run with `squeue -t all`,
and on a loaded machine the run lasts longer than 5 minutes (the first job then left squeue: 15 of 16 seen).
The node advertises one GPU (`gres/gpu`, File=/dev/null) so a COMET job's `--gpus=1` request is
scheduled rather than rejected; CPUs and memory are shared between jobs (`cons_tres`, CR_CPU_Memory,
DefMemPerCPU), `proctrack/linuxproc` and `task/none` need no cgroups.
"""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

DAEMONS = ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scancel", "srun")


class ClusterUnavailable(Exception):
    """The cluster cannot be started here; the message says why (the test is skipped with it)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _short_hostname() -> str:
    return subprocess.run(["hostname", "-s"], capture_output=True, text=True, check=True).stdout.strip()


SLURM_CONF = """\
ClusterName=lyss
SlurmctldHost={host}
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={base}/munge/munge.socket
CredType=cred/munge
StateSaveLocation={base}/state
SlurmdSpoolDir={base}/spool
SlurmctldPidFile={base}/slurmctld.pid
SlurmdPidFile={base}/slurmd.pid
SlurmctldLogFile={base}/log/slurmctld.log
SlurmdLogFile={base}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
DefMemPerCPU=500
MinJobAge=3600
ReturnToService=2
SlurmdTimeout=60
MailProg=/bin/true
GresTypes=gpu
NodeName={host} CPUs={cpus} RealMemory={memory} Gres=gpu:1 State=UNKNOWN
PartitionName=lyss Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""


@dataclass
class Cluster:
    base: Path
    host: str
    partition: str = "lyss"
    processes: dict = field(default_factory=dict)

    @property
    def env(self) -> dict:
        """What a client (sbatch, squeue, the Snakemake plugin, the jobs) needs to find this cluster.

        The job-step plugin drops every SLURM_* variable, SLURM_CONF included, before its nested `srun`;
        on a real cluster srun then finds /etc/slurm/slurm.conf (or asks a configless slurmd), here it
        would find nothing, so `bin/` on PATH holds an `srun` that sets SLURM_CONF and runs the real one."""
        return {"SLURM_CONF": str(self.base / "slurm.conf"), "PATH": f"{self.base / 'bin'}:{os.environ['PATH']}"}

    def client(self, *argv, timeout=30) -> subprocess.CompletedProcess:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env={**os.environ, **self.env})

    def logs(self) -> str:
        parts = []
        for path in sorted(self.base.glob("log/*")):
            parts.append(f"--- {path.name}\n" + "\n".join(path.read_text(errors="replace").splitlines()[-30:]))
        return "\n".join(parts)

    def stop(self) -> None:
        """Cancel leftover jobs, then stop slurmd, slurmctld and munged (in that order); SIGKILL stragglers."""
        if "slurmctld" in self.processes and self.processes["slurmctld"].poll() is None:
            try:
                self.client("scancel", "--full", "--partition", self.partition, timeout=10)
            except (OSError, subprocess.SubprocessError):
                pass
        for name in ("slurmd", "slurmctld", "munged"):
            process = self.processes.get(name)
            if process is None or process.poll() is not None:
                continue
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
        # slurmstepd processes of jobs still running at shutdown are children of slurmd's session
        for pid_file in self.base.glob("spool/*.pid"):
            pid_file.unlink(missing_ok=True)


def _start(cluster: Cluster, name: str, argv: list[str], **kwargs) -> None:
    log = open(cluster.base / "log" / f"{name}.out", "wb")
    cluster.processes[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                               start_new_session=True, **kwargs)
    log.close()


def _wait(cluster: Cluster, what: str, ready, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for name, process in cluster.processes.items():
            if process.poll() is not None:
                raise ClusterUnavailable(f"{name} exited with {process.returncode} while waiting for {what}:\n"
                                         f"{cluster.logs()}")
        if ready():
            return
        time.sleep(0.2)
    raise ClusterUnavailable(f"timed out after {timeout:g} s waiting for {what}:\n{cluster.logs()}")


def start_cluster(base: Path | None = None, cpus: int | None = None, memory_mb: int = 8000) -> Cluster:
    """Start munged, slurmctld and slurmd; return when the node is idle. Raise ClusterUnavailable (after
    stopping whatever started) when a binary is missing, we are not root, or a daemon does not come up."""
    missing = [d for d in DAEMONS if shutil.which(d) is None and not Path("/usr/sbin", d).exists()]
    if missing:
        raise ClusterUnavailable(f"not installed: {', '.join(missing)} (Debian: slurmctld slurmd munge)")
    if os.geteuid() != 0:
        raise ClusterUnavailable("starting SLURM daemons needs root")
    try:
        import pwd

        pwd.getpwnam("munge")
    except KeyError:
        raise ClusterUnavailable("no 'munge' user (install the Debian munge package)") from None
    # munged checks that every directory above its socket is traversable; pytest's tmp dirs are 0700
    base = Path(tempfile.mkdtemp(prefix="lyss-slurm-", dir=base))
    base.chmod(0o755)
    for sub in ("state", "spool", "log", "bin"):
        (base / sub).mkdir()
    srun = base / "bin" / "srun"
    srun.write_text(f'#!/bin/sh\nSLURM_CONF={base}/slurm.conf exec {shutil.which("srun")} "$@"\n')
    srun.chmod(0o755)
    munge_dir = base / "munge"
    munge_dir.mkdir(mode=0o711)
    shutil.chown(munge_dir, "munge", "munge")
    cluster = Cluster(base, _short_hostname())
    try:
        subprocess.run(["mungekey", "--create", "--keyfile", str(munge_dir / "munge.key")], user="munge",
                       group="munge", check=True, capture_output=True, timeout=30)
        _start(cluster, "munged", [
            "munged", "--foreground", "--force", f"--key-file={munge_dir}/munge.key",
            f"--socket={munge_dir}/munge.socket", f"--pid-file={munge_dir}/munged.pid",
            f"--seed-file={munge_dir}/munged.seed", f"--log-file={munge_dir}/munged.log",
        ], user="munge", group="munge", extra_groups=[])
        _wait(cluster, "the munge socket", (munge_dir / "munge.socket").exists, 15)
        conf = SLURM_CONF.format(host=cluster.host, base=base, ctld_port=_free_port(), slurmd_port=_free_port(),
                                 cpus=cpus or os.cpu_count() or 1, memory=memory_mb)
        (base / "slurm.conf").write_text(conf)
        (base / "gres.conf").write_text(f"NodeName={cluster.host} Name=gpu Count=1 File=/dev/null\n")
        env = {**os.environ, **cluster.env}
        _start(cluster, "slurmctld", ["slurmctld", "-D", "-f", str(base / "slurm.conf")], env=env)
        _wait(cluster, "slurmctld", lambda: cluster.client("sinfo", "-h").returncode == 0, 30)
        _start(cluster, "slurmd", ["slurmd", "-D", "-f", str(base / "slurm.conf"), "-N", cluster.host], env=env)

        def node_idle() -> bool:
            state = cluster.client("sinfo", "-h", "-N", "-o", "%T").stdout.strip()
            return state.startswith("idle") and not state.endswith("*")

        _wait(cluster, "the node to become idle", node_idle, 45)
    except ClusterUnavailable:
        cluster.stop()
        shutil.rmtree(base, ignore_errors=True)
        raise
    except (OSError, subprocess.SubprocessError) as err:
        logs = cluster.logs()
        cluster.stop()
        shutil.rmtree(base, ignore_errors=True)
        raise ClusterUnavailable(f"{type(err).__name__}: {err}\n{logs}") from None
    return cluster

"""DVC remotes share datasets and pipeline outputs between machines: a project whose dataset is tracked
by DVC (`dvc add`) and whose outputs come from `dvc repro` is pushed to a remote, cloned fresh with git,
and `dvc pull` restores everything; then `dvc repro` has nothing to do, and neither has `snakemake all`
once `snakemake --touch` has recorded the restored files as up to date (see check_restored).

Two remotes: a local directory, and SSH (dvc-ssh) to an sshd this test starts on 127.0.0.1 with a
generated host key and key-only login (the `ssh` marker; skipped, with the reason, when sshd cannot start).
"""

import getpass
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
from scratch_project import DATASET, make_project, run_card, sh, without_timing

pytestmark = pytest.mark.slow

N_ENTRIES = 12
METRICS = ["exact_match_rate", "chrf_plus_plus", "bleu", "length_ratio"]
GIT = ("git", "-c", "user.name=lyss-test", "-c", "user.email=test@example.org")


@pytest.fixture(scope="module")
def origin(tmp_path_factory):
    """The first machine: dataset under DVC, pipeline run by `dvc repro`, committed to git."""
    work = make_project(tmp_path_factory.mktemp("origin") / "project", N_ENTRIES, metrics=METRICS, validation=True)
    sh(work, "dvc", "add", "-q", f"data/corpora/{DATASET}")
    sh(work, "dvc", "repro", timeout=600)
    sh(work, "git", "add", "-A")
    sh(work, *GIT, "commit", "-qm", "dataset and pipeline outputs")
    return work


# What holds the machine's own speed or push times: rebuilt by Snakemake, never versioned (docs/settings.md).
UNVERSIONED = ("results/runs/", "results/leaderboard.", "results/lyss.sqlite", "results/timings")


def tracked_files(work: Path) -> dict[str, bytes]:
    """Every file DVC restores: the dataset and the stage outputs (not logs, Snakemake's own state, or what
    holds this machine's timings)."""
    folders = [work / "data/corpora" / DATASET, work / "results"]
    files = {str(p.relative_to(work)): p for folder in folders for p in sorted(folder.rglob("*"))
             if p.is_file() and "logs" not in p.relative_to(work).parts}
    return {name: path.read_bytes() for name, path in files.items() if not name.startswith(UNVERSIONED)}


def push_clone_pull(origin: Path, clone: Path, remote_url: str, *remote_options: tuple[str, str]) -> Path:
    sh(origin, "dvc", "remote", "add", "-f", "-d", "shared", remote_url)
    for key, value in remote_options:
        sh(origin, "dvc", "remote", "modify", "--local", "shared", key, value)
    sh(origin, "dvc", "push", timeout=300)
    sh(origin, *GIT, "commit", "-qm", "DVC remote", ".dvc/config")
    sh(clone.parent, "git", "clone", "-q", str(origin), clone.name)
    for key, value in remote_options:  # credentials stay out of git: `.dvc/config.local`
        sh(clone, "dvc", "remote", "modify", "--local", "shared", key, value)
    # nothing but git's files before the pull
    assert not (clone / "data/corpora" / DATASET / "corpus.jsonl").exists() and not (clone / "results/runs").exists()
    sh(clone, "dvc", "pull", timeout=300)
    return clone


def check_restored(origin: Path, clone: Path) -> None:
    restored = tracked_files(clone)
    expected = tracked_files(origin)
    missing = sorted(set(expected) - set(restored))
    assert not missing, (f"not restored by `dvc pull`: {missing[:10]} (an output with `cache: false` in dvc.yaml "
                         "never reaches a remote)")
    assert {k: restored[k] for k in expected} == expected
    status = sh(clone, "dvc", "status").stdout
    assert "Data and pipelines are up to date" in status, status
    repro = sh(clone, "dvc", "repro", timeout=300).stdout
    assert "Running stage" not in repro, repro
    # Snakemake decides by mtimes plus the input checksums it keeps in .snakemake/metadata. A fresh clone
    # has no metadata, and `dvc pull` writes files in no particular order, so inputs can look newer than
    # outputs. DVC has just checked every output against its inputs' hashes, so mark them up to date once,
    # then let Snakemake rebuild what is not versioned (cards, leaderboards, database) from the pulled files:
    sh(clone, "snakemake", "--touch", "--cores", "1", "all")
    sh(clone, "snakemake", "--cores", "1", "all")
    clone_card, origin_card = run_card(clone, "apertium"), run_card(origin, "apertium")
    assert without_timing(clone_card) == without_timing(origin_card)
    assert clone_card["scores"]["entries_per_minute"] is None  # measured on the origin, not here: says so
    assert "restored from a cache" in clone_card["null_reasons"]["entries_per_minute"]
    assert "Nothing to be done" in sh(clone, "snakemake", "-n", "--cores", "1", "all").stdout
    assert "Data and pipelines are up to date" in sh(clone, "dvc", "status").stdout
    assert tracked_files(clone) == restored  # neither DVC nor Snakemake changed a versioned byte


def test_local_directory_remote_restores_datasets_and_outputs(origin, tmp_path):
    clone = push_clone_pull(origin, tmp_path / "clone", str(tmp_path / "remote"))
    check_restored(origin, clone)


# ---------------------------------------------------------------------------------------------- SSH


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SSHD_CONFIG = """\
Port {port}
ListenAddress 127.0.0.1
HostKey {base}/host_ed25519
PidFile {base}/sshd.pid
AuthorizedKeysFile {base}/authorized_keys
AuthenticationMethods publickey
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
Subsystem sftp internal-sftp
"""


@pytest.fixture
def sshd(tmp_path):
    """An sshd on 127.0.0.1:<free port> accepting only a generated key; yields (port, user, key file)."""
    sshd_bin = shutil.which("sshd") or "/usr/sbin/sshd"
    if not (os.access(sshd_bin, os.X_OK) and shutil.which("ssh-keygen")):
        pytest.skip("SSH remote test skipped: sshd/ssh-keygen not installed (Debian: openssh-server)")
    base = tmp_path / "sshd"
    base.mkdir()
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(base / "host_ed25519")], check=True)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(base / "client_key")], check=True)
    shutil.copy(base / "client_key.pub", base / "authorized_keys")
    port = _free_port()
    (base / "sshd_config").write_text(SSHD_CONFIG.format(port=port, base=base))
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's compiled-in privilege-separation dir
    log = open(base / "sshd.log", "wb")
    process = subprocess.Popen([sshd_bin, "-D", "-e", "-f", str(base / "sshd_config")], stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
    log.close()
    try:
        deadline = time.monotonic() + 60  # readiness, not a timing check: generous for a busy machine
        while True:
            if process.poll() is not None:
                pytest.skip(f"SSH remote test skipped: sshd exited with {process.returncode}: "
                            f"{(base / 'sshd.log').read_text()[-1000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.skip("SSH remote test skipped: sshd did not listen within 60 s")
                time.sleep(0.1)
        yield port, getpass.getuser(), base / "client_key"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.mark.ssh
def test_ssh_remote_restores_datasets_and_outputs(origin, sshd, tmp_path):
    port, user, key = sshd
    store = tmp_path / "ssh-store"
    store.mkdir()
    clone = push_clone_pull(origin, tmp_path / "clone", f"ssh://127.0.0.1{store}", ("port", str(port)),
                            ("user", user), ("keyfile", str(key)))
    assert any(store.rglob("*")), "nothing reached the SSH remote"
    check_restored(origin, clone)

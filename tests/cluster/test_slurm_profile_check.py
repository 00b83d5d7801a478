"""Cluster misconfiguration surfaces (issue 11): on a real one-node SLURM cluster (slurm_cluster.py), the
shipped profile's placeholder partition makes `snakemake --profile profiles/slurm` end by itself with
sbatch's own message and nothing queued, and `lyss cluster check` names the profile key before anything
is submitted; the corrected profile passes the check."""

import os
import shutil
import sys
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from scratch_project import ROOT, make_project, sh  # noqa: E402

pytestmark = [pytest.mark.slurm, pytest.mark.slow]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    work = make_project(tmp_path_factory.mktemp("cluster_check"), 3, methods={"copy_source": {"kind": "copy_source"}},
                        metrics=["exact_match_rate"])
    shutil.copytree(ROOT / "profiles", work / "profiles")
    return work


def lyss(work, cluster, *argv):
    env = {"PYTHONPATH": os.environ.get("PYTHONPATH", ""), **cluster.env}
    return sh(work, sys.executable, "-m", "lyss.cli", *argv, check=False, timeout=120, env_extra=env)


def test_shipped_placeholder_partition_stops_the_run(project, cluster):
    """The run stops by itself with nothing queued. The shipped profile submits job groups, and the SLURM
    plugin (2.6) reports a group that sbatch refuses as "Error in group …" without sbatch's message: that
    message comes from `lyss cluster check` (next test), which docs/cluster.md says to run first."""
    done = sh(project, "snakemake", "--profile", "profiles/slurm", "all", check=False, timeout=240,
              env_extra=cluster.env)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output[-3000:]  # ended by itself: `timeout` would give 124 or 137
    assert "Error in group corpus" in output and "At least one job did not complete successfully" in output
    assert cluster.client("squeue", "-h", "-t", "all").stdout.strip() == ""


def test_cluster_check_names_the_placeholder_partition(project, cluster):
    done = lyss(project, cluster, "cluster", "check", "profiles/slurm")
    assert done.returncode == 2, done.stdout + done.stderr
    assert ("lyss: error: profiles/slurm/config.yaml: field 'default-resources.slurm_partition': partition 'main' "
            "does not exist on this cluster; sinfo lists: lyss; sbatch --test-only says: sbatch: error: invalid "
            "partition specified: main") in done.stderr


def test_cluster_check_passes_the_corrected_profile(project, cluster):
    profile = yaml.safe_load((project / "profiles/slurm/config.yaml").read_text())
    profile["default-resources"] = {"slurm_partition": cluster.partition}
    profile["lyss-slurm-no-account"] = True
    profile["lyss-slurm-status-command"] = "squeue"  # this cluster has no accounting; its MinJobAge is 3600 s
    (project / "profiles/fixed").mkdir(exist_ok=True)
    (project / "profiles/fixed/config.yaml").write_text(yaml.safe_dump(profile))
    done = lyss(project, cluster, "cluster", "check", "profiles/fixed")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "profiles/fixed: partitions, account and resources fit this cluster" in done.stdout
    assert "MinJobAge" not in done.stderr  # read from the real `scontrol show config`


def test_cluster_check_reads_the_clusters_minjobage(project, cluster):
    """A first status wait of 1,500 s: below 3 × that, the cluster's MinJobAge (3600 s here), the SLURM plugin asks
    sacct instead of squeue, and this cluster has no accounting."""
    profile = yaml.safe_load((project / "profiles/slurm/config.yaml").read_text())
    profile.update({"default-resources": {"slurm_partition": cluster.partition}, "lyss-slurm-no-account": True,
                    "lyss-slurm-status-command": "squeue", "lyss-slurm-init-seconds-before-status-checks": 1500})
    (project / "profiles/slow-polls").mkdir(exist_ok=True)
    (project / "profiles/slow-polls/config.yaml").write_text(yaml.safe_dump(profile))
    done = lyss(project, cluster, "cluster", "check", "profiles/slow-polls")
    assert done.returncode == 2, done.stdout + done.stderr
    assert ("lyss: error: profiles/slow-polls/config.yaml: field 'lyss-slurm-init-seconds-before-status-checks': the "
            "cluster's MinJobAge is 3600 s, below 3 × 1500 s, so the SLURM plugin asks sacct instead of squeue; set "
            "lyss-slurm-init-seconds-before-status-checks to at most 1200") in done.stderr

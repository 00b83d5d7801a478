"""The one-node SLURM cluster the tests in this folder run on (slurm_cluster.py), started once per module."""

import shutil

import pytest
from slurm_cluster import ClusterUnavailable, start_cluster


@pytest.fixture(scope="module")
def cluster():
    try:
        cluster = start_cluster()
    except ClusterUnavailable as err:
        pytest.skip(f"SLURM test skipped: the local cluster cannot start: {err}")
    yield cluster
    cluster.stop()
    shutil.rmtree(cluster.base, ignore_errors=True)
    assert {name: p.poll() is not None for name, p in cluster.processes.items()} == dict.fromkeys(
        ("munged", "slurmctld", "slurmd"), True), "a daemon outlived the test"

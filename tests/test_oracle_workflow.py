"""The reference oracle in the workflow: every dataset gets the `reference` method's translation, metric
files and run card without configuration, and aggregation reads the oracle's metric files; the name is
reserved. Checked on Snakemake's dry-run plan of a scratch project (nothing is computed)."""

import re

import pytest
import yaml
from scratch_project import DATASET, make_project, read_params, sh, write_params

METRICS = ["exact_match_rate", "chrf_plus_plus"]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return make_project(tmp_path_factory.mktemp("oracle"), 6, metrics=METRICS)


def test_every_dataset_gets_the_oracle_and_each_card_reads_its_metric_files(project):
    plan = sh(project, "snakemake", "-n", "--cores", "1", "-p", "all").stdout
    for path in [f"results/translations/{DATASET}/reference.jsonl", f"results/runs/{DATASET}/reference.json",
                 *(f"results/metrics/{DATASET}/reference/{m}.parquet" for m in METRICS)]:
        assert path in plan, path
    # the apertium card's job lists the oracle's metric files among its inputs
    job = re.search(rf"rule aggregate:\n    input: ([^\n]*)\n    output: results/runs/{DATASET}/apertium.json", plan)
    assert job is not None
    assert all(f"results/metrics/{DATASET}/reference/{m}.parquet" in job.group(1) for m in METRICS)


def test_the_name_reference_is_reserved(project):
    params = read_params(project)
    original = yaml.safe_dump(params)
    params["methods"]["reference"] = {"kind": "copy_source"}
    write_params(project, params)
    try:
        done = sh(project, "snakemake", "-n", "--cores", "1", "all", check=False)
    finally:
        (project / "params.yaml").write_text(original, encoding="utf-8")
    assert done.returncode != 0
    assert ("params.yaml: field 'methods.reference': the method name 'reference' is reserved for the reference "
            "oracle") in done.stdout + done.stderr

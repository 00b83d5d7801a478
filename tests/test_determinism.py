"""Identical bytes on any machine (docs/settings.md, "Committed results are deterministic"): every float a
versioned output holds is written at lyss.io.SIGNIFICANT_DIGITS, so a last-bit difference between two CPUs
(another SIMD width, BLAS kernel or thread count) does not reach dvc.lock. The unit tests hold each writer to
hand-computed bytes; the workflow test runs a small rated demo twice, once as a one-core machine and once as
another CPU (OpenBLAS's Haswell kernels, NumPy without AVX-512, two threads), and compares the bytes of
everything dvc.yaml versions. The same project then shows that a `dvc repro` failing on a params typo
deletes nothing."""

import csv
import hashlib
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest
import yaml
from scratch_project import DATASET, make_project, read_params, sh, write_params

from lyss.errors import InputError
from lyss.io import SIGNIFICANT_DIGITS, fixed, write_json_atomic, write_jsonl_atomic
from lyss.metrics.base import MetricResult
from lyss.metrics.files import read_metric_result, write_metric_result
from lyss.report.plots import _csv
from lyss.tables import csv_text

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------------------ the precision


def test_floats_are_rounded_to_ten_significant_digits():
    assert SIGNIFICANT_DIGITS == 10
    assert fixed(0.1 + 0.2) == 0.3 and 0.1 + 0.2 != 0.3
    assert fixed(2 / 3) == 0.6666666667
    assert fixed(123456789012.5) == 123456789000.0
    assert fixed(-1.234567890123e-12) == -1.23456789e-12
    assert fixed(65.33) == 65.33 and fixed(1.0) == 1.0 and fixed(0.0) == 0.0
    assert math.isnan(fixed(math.nan)) and fixed(math.inf) == math.inf


def test_containers_and_numpy_values_become_plain_rounded_json():
    value = {"a": (np.float64(1 / 3), np.float32(0.1)), "n": np.int64(7), "ok": np.bool_(True),
             "rows": np.array([[0.5, 1 / 7]]), "text": "x", "none": None, "count": 3, "flag": False}
    assert fixed(value) == {"a": [0.3333333333, 0.1000000015], "n": 7, "ok": True,
                            "rows": [[0.5, 0.1428571429]], "text": "x", "none": None, "count": 3, "flag": False}
    assert [type(v) for v in fixed([np.float64(0.5), np.int64(1), np.bool_(False)])] == [float, int, bool]


def test_json_and_jsonl_writers_give_the_same_bytes_for_values_that_differ_in_their_last_bits(tmp_path):
    near = [0.1 + 0.2, 0.3, np.nextafter(0.3, 1.0)]  # three different doubles, equal to 10 digits
    outputs = []
    for i, value in enumerate(near):
        write_json_atomic(tmp_path / f"{i}.json", {"score": value, "ci": [value / 3, np.float64(value)]})
        write_jsonl_atomic(tmp_path / f"{i}.jsonl", [{"score": value}])
        outputs.append(((tmp_path / f"{i}.json").read_bytes(), (tmp_path / f"{i}.jsonl").read_bytes()))
    assert outputs[0] == outputs[1] == outputs[2]
    assert outputs[0] == (b'{\n  "score": 0.3,\n  "ci": [\n    0.1,\n    0.3\n  ]\n}\n', b'{"score": 0.3}\n')


def test_csv_writers_print_numpy_floats_as_numbers_at_the_fixed_precision():
    """NumPy 2 spells a float64's repr `np.float64(0.5)`; both CSV writers print `0.5`."""
    rows = [{"metric": "m", "value": np.float64(0.5), "p": np.float64(1 / 3), "n": np.int64(4)}]
    assert csv_text(["metric", "value", "p", "n"], rows) == "metric,value,p,n\nm,0.5,0.3333333333,4\n"
    assert _csv(["metric", "value", "p", "n"], rows) == "metric,value,p,n\nm,0.5,0.3333333333,4\n"
    assert list(csv.reader(io.StringIO(_csv(["value"], [{"value": 0.1 + 0.2}])))) == [["value"], ["0.3"]]


def metric_result(values, corpus_value) -> MetricResult:
    return MetricResult(metric="chrf_plus_plus", values=np.asarray(values), corpus_value=corpus_value,
                        stats=np.asarray([[v, 2.0] for v in values]), counts={"total": len(values)},
                        signature="test", details={"spread": corpus_value / 7})


def test_metric_files_hold_the_same_bytes_for_values_that_differ_in_their_last_bits(tmp_path):
    """Parquet keeps every bit of a double, so the values are rounded before they are written."""
    exact = [0.3, 2 / 3, 41.0]
    noisy = [0.1 + 0.2, np.nextafter(2 / 3, 0.0), 41.0]
    write_metric_result(tmp_path / "a.parquet", metric_result(exact, 0.3), ["e1", "e2", "e3"])
    write_metric_result(tmp_path / "b.parquet", metric_result(noisy, 0.1 + 0.2), ["e1", "e2", "e3"])
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()
    result, ids = read_metric_result(tmp_path / "b.parquet")
    assert ids == ["e1", "e2", "e3"]
    assert result.values.tolist() == [0.3, 0.6666666667, 41.0] and result.corpus_value == 0.3
    assert result.details == {"spread": 0.04285714286}


def test_a_metric_file_gives_back_its_columns_as_written(tmp_path):
    """Text with a missing value, numbers with an undefined one, sufficient statistics and ids with non-ASCII
    letters, through Arrow buffers both ways (tests/test_faults.py flips their bits)."""
    result = MetricResult("bleu", np.array([0.5, np.nan, 1.0]), 0.75, stats=np.array([[1, 2], [np.nan, 3], [4, 5.0]]),
                          columns={"verdict": ["exact", None, "miss"], "cos": [0.25, None, np.nan]})
    write_metric_result(tmp_path / "bleu.parquet", result, ["e1", "é2", "e3"])
    back, ids = read_metric_result(tmp_path / "bleu.parquet")
    assert ids == ["e1", "é2", "e3"]
    assert np.array_equal(back.values, [0.5, np.nan, 1.0], equal_nan=True)
    assert np.array_equal(back.stats, [[1, 2], [np.nan, 3], [4, 5]], equal_nan=True)
    assert back.columns["verdict"] == ["exact", None, "miss"]
    assert back.columns["cos"][0] == 0.25 and all(math.isnan(v) for v in back.columns["cos"][1:])


def test_number_columns_are_read_from_their_buffers_in_slices_and_chunks():
    """Arrow hands a column over as chunks, each possibly a slice of a larger buffer (its offset): the values and
    their nulls must come from the slice, whatever the chunking."""
    import pyarrow as pa

    from lyss.metrics.files import _numbers, to_table

    values = np.arange(10.0)
    values[[3, 8]] = np.nan
    column = to_table(MetricResult("bleu", values, 1.0), [str(i) for i in range(10)]).column("value").chunk(0)
    expected = [0, 1, 2, np.nan, 4, 5, 6, 7, np.nan, 9]
    assert np.array_equal(_numbers(pa.chunked_array([column.slice(0, 4), column.slice(4)])), expected, equal_nan=True)
    assert np.array_equal(_numbers(pa.chunked_array([column.slice(5)])), expected[5:], equal_nan=True)
    assert _numbers(pa.chunked_array([column.slice(10)])).shape == (0,)


def test_a_consistent_metric_file_without_an_id_column_is_refused_by_name(tmp_path):
    """Rows and metadata that match their checksums but no `id` column first (a file made by hand): a clear
    InputError naming the file, not a KeyError."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from lyss.metrics import files

    table = pa.table({"key": ["e1"], "value": [0.3]})
    meta = {"metric": "bleu", "corpus_value": 0.3, "available": True, "reason": None, "counts": {},
            "signature": None, "details": {}, "extra_columns": [], "n_entries": 1, "columns": ["key", "value"],
            "rows_sha256": files._checksum(table)}
    meta["meta_checksum"] = files._meta_checksum(meta)
    pq.write_table(table.replace_schema_metadata({"lyss": json.dumps(meta)}), tmp_path / "bleu.parquet")
    with pytest.raises(InputError, match=r"bleu\.parquet.*id column"):
        read_metric_result(tmp_path / "bleu.parquet")


def test_a_metric_file_of_the_pandas_checksum_era_is_refused_with_what_to_do(tmp_path):
    """Files written before the rows were checksummed through pyarrow (`checksum`, no `rows_sha256`) name the
    step that writes them again, not a corruption."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    meta = {"metric": "bleu", "corpus_value": 0.3, "counts": {}, "signature": None, "reason": None, "details": {},
            "extra_columns": [], "n_entries": 1, "checksum": "0" * 64}
    table = pa.table({"id": ["e1"], "value": [0.3]}).replace_schema_metadata({"lyss": json.dumps(meta)})
    pq.write_table(table, tmp_path / "bleu.parquet")
    with pytest.raises(InputError, match=r"bleu\.parquet.*older LYSS.*score step"):
        read_metric_result(tmp_path / "bleu.parquet")


# ------------------------------------------------------------------------------------------ in the workflow

METRICS = ["chrf_plus_plus", "bleu", "ter", "length_ratio", "semantic_score", "hallucination_rate"]
ONE_CORE = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def another_cpu() -> dict:
    """Environment under which NumPy and OpenBLAS compute as on a different CPU: OpenBLAS's Haswell kernels
    and NumPy's dispatch without the AVX-512 (or else AVX2) code paths this CPU has, on two threads."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # NumPy 1.x
        from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    available = [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]
    wider = [f for f in available if f.startswith("AVX512")] or [f for f in available if f in ("AVX2", "FMA3")]
    return {"OMP_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "2", "MKL_NUM_THREADS": "2",
            "OPENBLAS_CORETYPE": "Haswell", "NPY_DISABLE_CPU_FEATURES": " ".join(wider)}


def rated_demo(work: Path) -> Path:
    """A 12-entry demo with two methods, human scores of both (made up here: the agreement's value does
    not matter, its bytes do) and the human-judgment study."""
    make_project(work, 12, methods={"apertium": {"kind": "apertium", "postprocess": ["restore_placeholders"]},
                                    "copy_source": {"kind": "copy_source"}}, metrics=METRICS, validation=True)
    corpus = work / "data/corpora" / DATASET
    ids = [json.loads(line)["id"] for line in (corpus / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    rows = [f"{method},{entry_id},{(k * 7 + shift) % 5 - 4}.5,3" for shift, method in ((0, "apertium"),
            (3, "copy_source")) for k, entry_id in enumerate(ids)]
    (corpus / "human_scores.csv").write_text("method,id,human,annotators\n" + "\n".join(rows) + "\n",
                                             encoding="utf-8")
    params = read_params(work)
    params["datasets"][DATASET]["human_scores"] = f"data/corpora/{DATASET}/human_scores.csv"
    params["validation"]["labels"]["args"]["resamples"] = 1000  # quicker; the same code path
    write_params(work, params)
    return work


def versioned_files(work: Path) -> dict[str, str]:
    """sha256 of every file under every output dvc.yaml versions."""
    stages = yaml.safe_load((work / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    outs = [next(iter(o)) if isinstance(o, dict) else o for s in stages.values()
            for o in [*s.get("outs", []), *s.get("metrics", [])]]
    files = {}
    for out in outs:
        path = work / out
        for f in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if f.is_file():
                files[str(f.relative_to(work))] = hashlib.sha256(f.read_bytes()).hexdigest()
    return files


@pytest.fixture(scope="module")
def one_core(tmp_path_factory):
    """The rated demo built from scratch as on a one-core machine (`taskset -c 0`, one thread everywhere)."""
    work = rated_demo(tmp_path_factory.mktemp("one_core"))
    own = {"PYTHONPATH": str(work / "src"), **ONE_CORE}
    sh(work, "taskset", "-c", "0", "snakemake", "--cores", "1", "all", env_extra=own, timeout=1800)
    return work


@pytest.mark.slow
def test_another_cpu_and_thread_count_give_the_same_versioned_bytes(one_core, tmp_path):
    work = rated_demo(tmp_path / "other")
    sh(work, "snakemake", "--cores", "2", "all", env_extra={"PYTHONPATH": str(work / "src"), **another_cpu()},
       timeout=1800)
    first, second = versioned_files(one_core), versioned_files(work)
    assert any(name.startswith("results/evidence/") for name in first)
    assert any(name.startswith("results/validation/") for name in first)
    assert any(name.startswith("results/embeddings/") for name in first)
    assert sorted(n for n in first if first[n] != second.get(n)) == [] and first.keys() == second.keys()


@pytest.mark.slow
def test_a_dvc_repro_failing_on_a_params_typo_deletes_no_output(one_core):
    """DVC deletes a stage's outputs before it runs unless they persist; a typo in `stats` makes the
    evidence stage run, and Snakemake then stops at load, so without `persist` the evidence would be gone."""
    own = {"PYTHONPATH": str(one_core / "src")}
    sh(one_core, "dvc", "commit", "--force", "--quiet", env_extra=own)
    before = versioned_files(one_core)
    params = read_params(one_core)
    params["stats"]["alph"] = params["stats"].pop("alpha")
    write_params(one_core, params)
    try:
        done = sh(one_core, "dvc", "repro", check=False, env_extra=own)
    finally:
        params["stats"]["alpha"] = params["stats"].pop("alph")
        write_params(one_core, params)
    assert done.returncode != 0
    assert "params.yaml: field 'stats.alph': unknown key (did you mean 'alpha'?)" in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr and 'File "' not in done.stdout + done.stderr
    assert versioned_files(one_core) == before

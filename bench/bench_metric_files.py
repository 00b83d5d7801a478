"""The metric files every score job writes and every aggregate, evidence and significance job reads
(`lyss.metrics.files`, pyarrow alone) against the same work through pandas, as the module did it before
2026-12-07: every float at lyss.io's fixed precision, a DataFrame, its rows hashed (`hash_pandas_object`),
`pa.Table.from_pandas` → Parquet; `pq.read_table` → `to_pandas`, the rows hashed again. In one process,
alternated, best of `--repeats`. Then each side's import cost in a fresh interpreter: a job pays it at every
start.

    .venv/bin/python bench/bench_metric_files.py [--rows 20000] [--repeats 5]
"""

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def metric_result(rows: int):
    """chrF++-shaped: values with undefined entries, 12 sufficient statistics, a text column."""
    from lyss.metrics.base import MetricResult

    rng = np.random.default_rng(0)
    values = rng.random(rows)
    values[::7] = np.nan
    return MetricResult("chrf_plus_plus", values, 0.5, stats=rng.integers(0, 60, (rows, 12)).astype(float),
                        columns={"verdict": [("exact", "miss", "equivalent")[i % 3] for i in range(rows)]})


def with_pandas(path: Path, result, ids: list[str]) -> None:
    import hashlib

    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    from lyss.io import fixed

    frame = pd.DataFrame({"id": ids, "value": result.values})
    for i in range(result.stats.shape[1]):
        frame[f"stat_{i}"] = result.stats[:, i]
    frame["verdict"] = result.columns["verdict"]
    frame = frame.apply(lambda column: column.map(fixed))
    hashlib.sha256(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes()).hexdigest()
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
    back = pq.read_table(path).to_pandas()
    hashlib.sha256(pd.util.hash_pandas_object(back, index=False).to_numpy().tobytes()).hexdigest()
    back["value"].to_numpy(), back[[f"stat_{i}" for i in range(12)]].to_numpy(), back["verdict"].tolist()


def with_lyss(path: Path, result, ids: list[str]) -> None:
    from lyss.metrics.files import read_metric_result, write_metric_result

    write_metric_result(path, result, ids)
    read_metric_result(path)


def best(function, repeats: int, *args) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def import_seconds(statement: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", statement], check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    result, ids = metric_result(args.rows), [f"seg-{i}" for i in range(args.rows)]
    with tempfile.TemporaryDirectory() as tmp:
        lyss = pandas = float("inf")
        for _ in range(2):  # alternated: a busy machine slows both alike
            lyss = min(lyss, best(with_lyss, args.repeats, Path(tmp, "a.parquet"), result, ids))
            pandas = min(pandas, best(with_pandas, args.repeats, Path(tmp, "b.parquet"), result, ids))
    print(f"write + read, {args.rows:,} rows × 15 columns: lyss.metrics.files {lyss:.3f} s, pandas {pandas:.3f} s, "
          f"the same work: {lyss / pandas:.2f}× the time")
    ours = min(import_seconds("import lyss.metrics.files") for _ in range(3))
    theirs = min(import_seconds("import lyss.metrics.files, pandas") for _ in range(3))
    print(f"a job's import: lyss.metrics.files {ours:.2f} s, with pandas {theirs:.2f} s: {ours / theirs:.2f}× the time")


if __name__ == "__main__":
    main()

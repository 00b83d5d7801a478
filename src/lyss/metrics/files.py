"""Per-metric Parquet files (`results/metrics/<dataset>/<method>/<metric>.parquet`).

Rows are entries (`id`, `value`, `stat_<i>` sufficient statistics, extra per-entry columns); the
file's schema metadata holds the corpus value, counts, signature and availability. A checksum over
the rows lets a reader refuse a corrupted or truncated file instead of producing wrong numbers.
"""

import hashlib
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from lyss.errors import InputError
from lyss.io import atomic_path, fixed
from lyss.metrics.base import MetricResult

META_KEY = b"lyss"
_META_KEYS = {"metric", "corpus_value", "counts", "signature", "reason", "details", "extra_columns", "n_entries",
              "columns", "rows_sha256", "meta_checksum"}


def _checksum(table: pa.Table) -> str:
    """SHA-256 over every column's name and values, so that any changed digit, row or column name is caught:
    a number column's float64 bytes (NaN where null), a text column's JSON. Computed from the Arrow table both
    when writing and reading: no pandas in the jobs that write or read metric files (importing it costs 0.3 s)."""
    digest = hashlib.sha256()
    for name, column in zip(table.column_names, table.columns, strict=True):
        if pa.types.is_floating(column.type):
            digest.update(json.dumps([name, "float64", len(column)]).encode() + _numbers(column).tobytes())
        else:
            digest.update(json.dumps([name, column.to_pylist()], ensure_ascii=False).encode())
    return digest.hexdigest()


def _meta_checksum(meta: dict) -> str:
    """Covers the corpus value, counts and row checksum, so a changed digit there is caught too."""
    body = {k: v for k, v in meta.items() if k != "meta_checksum"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _column(values) -> pa.Array:
    """A per-entry column: text (None where missing) stays text; anything else is a number (float64, NaN where
    undefined, stored as null), at lyss.io's fixed precision."""
    values = list(values)
    texts = [v for v in values if v is not None]
    if texts and all(isinstance(v, str) for v in texts):
        return _strings(values)
    return _floats(np.asarray(fixed(values), dtype=np.float64))


# Arrays are assembled from their buffers: `pa.array` asks pandas whether its argument is a Series, and so
# imports it (0.3 s of every score job).

def _strings(values: list[str | None]) -> pa.Array:
    encoded = [b"" if v is None else v.encode("utf-8") for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    if offsets[-1] >= 2**31:
        raise ValueError(f"a text column of {offsets[-1]:,} bytes: Arrow strings hold less than 2 GiB")
    return pa.Array.from_buffers(pa.string(), len(encoded), [_validity([v is not None for v in values]),
                                                             pa.py_buffer(offsets.astype(np.int32).tobytes()),
                                                             pa.py_buffer(b"".join(encoded))])


def _validity(defined) -> pa.Buffer | None:
    """Arrow's validity bitmap (bit i set: row i holds a value); None when every row does."""
    defined = np.asarray(defined, dtype=bool)
    return None if defined.all() else pa.py_buffer(np.packbits(defined, bitorder="little").tobytes())


def _floats(values: np.ndarray) -> pa.Array:
    data = pa.py_buffer(np.ascontiguousarray(values, "<f8").tobytes())
    return pa.Array.from_buffers(pa.float64(), len(values), [_validity(~np.isnan(values)), data])


def to_table(result: MetricResult, ids: list[str]) -> pa.Table:
    """Rows: `id`, `value`, `stat_<i>`, then the extra columns in the result's order."""
    columns = {"id": _strings(list(ids)), "value": _column(np.asarray(result.values, dtype=float))}
    if result.stats is not None:
        for i in range(result.stats.shape[1]):
            columns[f"stat_{i}"] = _column(result.stats[:, i])
    for name, column in result.columns.items():
        columns[name] = _column(column)
    return pa.Table.from_arrays(list(columns.values()), names=list(columns))


def write_metric_result(path, result: MetricResult, ids: list[str], stamp: str | None = None) -> None:
    """Rows and metadata with their floats at lyss.io's fixed precision: Parquet keeps a float's every bit, so
    a last-bit difference between two machines would otherwise change the file. `stamp`: what the result was
    computed from (lyss.metrics.score.metric_stamp), so that a grouped score job can tell which of its files
    are still current and leave those alone."""
    table = to_table(result, ids)
    meta = {
        "metric": result.metric,
        "corpus_value": result.corpus_value,
        "available": result.available,
        "reason": result.reason,
        "counts": result.counts,
        "signature": result.signature,
        "details": result.details,
        "extra_columns": list(result.columns),
        "n_entries": table.num_rows,
        "columns": table.column_names,
        "rows_sha256": _checksum(table),
    }
    if stamp is not None:
        meta["stamp"] = stamp
    meta = fixed(meta)
    meta["meta_checksum"] = _meta_checksum(meta)
    table = table.replace_schema_metadata({META_KEY: json.dumps(meta).encode()})
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp)


def read_stamp(path) -> str | None:
    """The stamp a metric file was written with, from its footer alone (no rows are read); None when the file
    is missing, unreadable or has none: it is then computed again."""
    try:
        raw = (pq.read_schema(path).metadata or {}).get(META_KEY)
        meta = json.loads(raw) if raw else {}
    except Exception:  # noqa: BLE001 — a damaged file is simply not current
        return None
    if not isinstance(meta, dict) or meta.get("meta_checksum") != _meta_checksum(meta):
        return None
    return meta.get("stamp")


def read_metric_result(path) -> tuple[MetricResult, list[str]]:
    """Read a metric file back; raise InputError if it is unreadable, truncated, altered or written by a LYSS
    before its rows were checksummed without pandas (the score step writes it again)."""
    try:
        table = pq.ParquetFile(path).read()  # pq.read_table goes through pyarrow.dataset, which imports pandas
        raw = (table.schema.metadata or {}).get(META_KEY)
        if raw is None:
            raise InputError(path, "not a LYSS metric file (no 'lyss' metadata)")
        meta = json.loads(raw)
        rows = _checksum(table)
    except InputError:
        raise
    except FileNotFoundError:
        raise InputError(path, "metric file does not exist") from None
    except Exception as err:  # noqa: BLE001 — damaged bytes fail in pyarrow, JSON or UTF-8 alike
        raise InputError(path, f"unreadable or truncated Parquet file ({type(err).__name__}: {err})") from None
    if isinstance(meta, dict) and "checksum" in meta and "rows_sha256" not in meta:
        raise InputError(path, "metric file written by an older LYSS (pandas row checksum); run its score step "
                         "again (`snakemake --forcerun score`, or delete the file)")
    if not isinstance(meta, dict) or not _META_KEYS <= meta.keys() or meta["meta_checksum"] != _meta_checksum(meta):
        raise InputError(path, "metric file is corrupted: its metadata do not match their recorded checksum")
    names = table.column_names
    if names != meta["columns"]:
        raise InputError(path, f"metric file is corrupted: columns {names} differ from the recorded {meta['columns']}")
    if table.num_rows != meta["n_entries"] or rows != meta["rows_sha256"]:
        raise InputError(path, "metric file is corrupted: rows do not match their recorded checksum")
    if names[:2] != ["id", "value"] or table.schema.field("id").type != pa.string() or table.column("id").null_count:
        raise InputError(path, "metric file is corrupted: it does not begin with an id column of strings and values")
    stat_cols = sorted((c for c in names if c.startswith("stat_")), key=lambda c: int(c[5:]))
    result = MetricResult(
        metric=meta["metric"],
        values=_numbers(table.column("value")),
        corpus_value=meta["corpus_value"],
        stats=np.column_stack([_numbers(table.column(c)) for c in stat_cols]) if stat_cols else None,
        counts=meta["counts"],
        signature=meta["signature"],
        reason=meta["reason"],
        details=meta["details"],
        columns={c: _values(table.column(c)) for c in meta["extra_columns"]},
    )
    return result, table.column("id").to_pylist()


def _numbers(column: pa.ChunkedArray) -> np.ndarray:
    """A float64 column as an array, NaN where null, read from its buffers (Arrow's `to_numpy` imports pandas;
    a list of Python floats is 5× slower on a WMT-sized file)."""
    array = column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
    start, n = array.offset, len(array)
    validity, data = array.buffers()
    values = np.frombuffer(data, dtype="<f8", count=n, offset=8 * start).copy() if n else np.zeros(0)
    if array.null_count:
        defined = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), count=start + n, bitorder="little")
        values[defined[start:] == 0] = np.nan
    return values


def _values(column: pa.ChunkedArray) -> list:
    """An extra column as written: numbers with NaN where undefined, text as text."""
    return _numbers(column).tolist() if pa.types.is_floating(column.type) else column.to_pylist()

"""Per-metric Parquet files (`results/metrics/<dataset>/<method>/<metric>.parquet`).

Rows are entries (`id`, `value`, `stat_<i>` sufficient statistics, extra per-entry columns); the
file's schema metadata holds the corpus value, counts, signature and availability. A checksum over
the rows lets a reader refuse a corrupted or truncated file instead of producing wrong numbers.
"""

import hashlib
import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from lyss.errors import InputError
from lyss.io import atomic_path, fixed
from lyss.metrics.base import MetricResult

META_KEY = b"lyss"
_META_KEYS = {"metric", "corpus_value", "counts", "signature", "reason", "details", "extra_columns", "n_entries",
              "checksum"}


def _checksum(frame: pd.DataFrame) -> str:
    hashed = pd.util.hash_pandas_object(frame, index=False).to_numpy()
    return hashlib.sha256(hashed.tobytes()).hexdigest()


def _meta_checksum(meta: dict) -> str:
    """Covers the corpus value, counts and row checksum, so a changed digit there is caught too."""
    body = {k: v for k, v in meta.items() if k != "meta_checksum"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def to_frame(result: MetricResult, ids: list[str]) -> pd.DataFrame:
    frame = pd.DataFrame({"id": ids, "value": np.asarray(result.values, dtype=float)})
    if result.stats is not None:
        for i in range(result.stats.shape[1]):
            frame[f"stat_{i}"] = result.stats[:, i]
    for name, column in result.columns.items():
        frame[name] = list(column)
    return frame


def write_metric_result(path, result: MetricResult, ids: list[str], stamp: str | None = None) -> None:
    """Rows and metadata with their floats at lyss.io's fixed precision: Parquet keeps a float's every bit, so
    a last-bit difference between two machines would otherwise change the file. `stamp`: what the result was
    computed from (lyss.metrics.score.metric_stamp), so that a grouped score job can tell which of its files
    are still current and leave those alone."""
    frame = to_frame(result, ids).apply(lambda column: column.map(fixed))
    meta = {
        "metric": result.metric,
        "corpus_value": result.corpus_value,
        "available": result.available,
        "reason": result.reason,
        "counts": result.counts,
        "signature": result.signature,
        "details": result.details,
        "extra_columns": list(result.columns),
        "n_entries": len(frame),
        "columns": list(frame.columns),
        "checksum": _checksum(frame),
    }
    if stamp is not None:
        meta["stamp"] = stamp
    meta = fixed(meta)
    meta["meta_checksum"] = _meta_checksum(meta)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), META_KEY: json.dumps(meta).encode()})
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
    """Read a metric file back; raise InputError if it is unreadable, truncated or altered."""
    try:
        table = pq.read_table(path)
        raw = (table.schema.metadata or {}).get(META_KEY)
        if raw is None:
            raise InputError(path, "not a LYSS metric file (no 'lyss' metadata)")
        meta = json.loads(raw)
        frame = table.to_pandas()
    except InputError:
        raise
    except FileNotFoundError:
        raise InputError(path, "metric file does not exist") from None
    except Exception as err:  # noqa: BLE001 — damaged bytes fail in pyarrow, JSON, UTF-8 or pandas alike
        raise InputError(path, f"unreadable or truncated Parquet file ({type(err).__name__}: {err})") from None
    # files written before `meta_checksum` existed are checked on their rows only
    if not isinstance(meta, dict) or not _META_KEYS <= meta.keys() or (
            "meta_checksum" in meta and meta["meta_checksum"] != _meta_checksum(meta)):
        raise InputError(path, "metric file is corrupted: its metadata do not match their recorded checksum")
    if list(frame.columns) != meta.get("columns", list(frame.columns)):
        raise InputError(path, f"metric file is corrupted: columns {list(frame.columns)} differ from the recorded "
                         f"{meta['columns']}")
    if len(frame) != meta["n_entries"] or _checksum(frame) != meta["checksum"]:
        raise InputError(path, "metric file is corrupted: rows do not match their recorded checksum")
    if not all(isinstance(i, str) for i in frame["id"]):
        raise InputError(path, "metric file is corrupted: the id column does not hold strings")
    stat_cols = sorted((c for c in frame.columns if c.startswith("stat_")), key=lambda c: int(c[5:]))
    result = MetricResult(
        metric=meta["metric"],
        values=frame["value"].to_numpy(dtype=float),
        corpus_value=meta["corpus_value"],
        stats=frame[stat_cols].to_numpy(dtype=float) if stat_cols else None,
        counts=meta["counts"],
        signature=meta["signature"],
        reason=meta["reason"],
        details=meta["details"],
        columns={c: frame[c].tolist() for c in meta["extra_columns"]},
    )
    return result, frame["id"].tolist()

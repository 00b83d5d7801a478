"""Atomic file writes and JSONL reading: a killed job never leaves a half-written file behind."""

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lyss.errors import InputError


@contextmanager
def atomic_path(path):
    """Yield a temporary path beside `path`; rename it over `path` only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_text_atomic(path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json_atomic(path, obj) -> None:
    write_text_atomic(path, json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=False) + "\n")


def write_jsonl_atomic(path, rows) -> None:
    write_text_atomic(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


def iter_jsonl(path) -> Iterator[tuple[int, dict]]:
    """Yield (line number, object) for each non-blank line; malformed lines raise InputError."""
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as err:
                raise InputError(path, f"malformed JSON ({err.msg} at column {err.colno})", line=number) from None
            if not isinstance(obj, dict):
                raise InputError(path, "expected a JSON object", line=number)
            yield number, obj


def read_json(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except json.JSONDecodeError as err:
        raise InputError(path, f"malformed JSON ({err.msg})", line=err.lineno) from None

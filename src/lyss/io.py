"""Atomic file writes and JSONL reading: a killed job never leaves a half-written file behind; every float
written at a fixed precision, so the same inputs give the same bytes on any machine."""

import glob
import hashlib
import json
import math
import os
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lyss.errors import InputError, unreadable


@contextmanager
def atomic_path(path):
    """Yield a temporary path beside `path`; rename it over `path` only if the block succeeds.

    The temporary name carries host and pid (`.<name>.<host>-<pid>.<random>.tmp`): a writer killed with
    SIGKILL cannot remove its own, so a later successful write of the same file removes those left by
    dead processes of this host, and no stray file stays inside a DVC-tracked output folder."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{_HOST}-{os.getpid()}.", suffix=".tmp", dir=path.parent)
    os.fchmod(fd, _FILE_MODE)  # mkstemp makes 0600; results are shared (other users, nodes, DVC remotes)
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
        _remove_orphans(path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_umask()
_HOST = socket.gethostname().replace(".", "_").replace("-", "_")


def _remove_orphans(path: Path) -> None:
    """Delete temporary files of `path` left by killed writers (same host, process no longer running)."""
    prefix = f".{path.name}.{_HOST}-"
    for candidate in path.parent.glob(f"{glob.escape(prefix)}*.tmp"):
        pid = candidate.name[len(prefix):].split(".", 1)[0]
        if pid.isdigit() and not _running(int(pid)):
            candidate.unlink(missing_ok=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# Identical bytes on any machine (docs/results.md, "Fixed precision"): a sum taken in another order (another
# CPU's SIMD width, BLAS or ONNX Runtime thread count) changes a float's last bits, and a DVC output written at
# full precision would then hash differently. Ten significant digits keep far more than any score, interval or
# p-value means, and sit far above those last bits.
SIGNIFICANT_DIGITS = 10


def fixed(value, digits: int = SIGNIFICANT_DIGITS):
    """`value` with every float rounded to `digits` significant digits, through dicts, lists and tuples (tuples
    become lists, as in JSON); NumPy scalars and arrays become Python numbers and lists, which also keeps
    NumPy 2's `np.float64(0.5)` repr out of text files. Rounding goes through Python's correctly rounded
    decimal formatting, which is the same on every platform; NaN and infinities stay as they are."""
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float):
        return float(f"{value:.{digits}g}") if math.isfinite(value) else float(value)
    if isinstance(value, dict):
        return {k: fixed(v, digits) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [fixed(v, digits) for v in value]
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):  # without importing NumPy here
        return fixed(value.tolist(), digits)
    return value


def write_text_atomic(path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json_atomic(path, obj) -> None:
    """JSON with its floats at SIGNIFICANT_DIGITS (`fixed`)."""
    write_text_atomic(path, json.dumps(fixed(obj), ensure_ascii=False, indent=2, sort_keys=False) + "\n")


def write_jsonl_atomic(path, rows) -> None:
    """One JSON object a line, floats at SIGNIFICANT_DIGITS (`fixed`)."""
    write_text_atomic(path, "".join(json.dumps(fixed(r), ensure_ascii=False) + "\n" for r in rows))


def iter_jsonl(path) -> Iterator[tuple[int, dict]]:
    """Yield (line number, object) for each non-blank line; a line that is not UTF-8 or not JSON (including
    numbers past Python's 4300-digit limit and nesting past the recursion limit) raises InputError."""
    try:
        handle = open(path, "rb")
    except OSError as err:
        raise unreadable(path, err) from None
    with handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as err:
                raise InputError(path, f"not valid UTF-8 (byte {err.start + 1} of the line)", line=number) from None
            if not line.strip():
                continue
            text = line.rstrip("\r\n")  # so that a line cut short is an error at its end, not on "line 2"
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as err:
                where = "at the end of the line" if err.pos >= len(text.rstrip()) else f"at column {err.colno}"
                raise InputError(path, f"malformed JSON ({err.msg} {where})", line=number) from None
            except (ValueError, RecursionError) as err:
                raise InputError(path, f"malformed JSON ({str(err).split(';')[0]})", line=number) from None
            if not isinstance(obj, dict):
                raise InputError(path, "expected a JSON object", line=number)
            yield number, obj


def read_json(path):
    """A JSON file's value; a file that cannot be read or parsed is one InputError naming it (and the line)."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except json.JSONDecodeError as err:
        raise InputError(path, f"malformed JSON ({err.msg})", line=err.lineno) from None
    except UnicodeDecodeError as err:
        raise InputError(path, f"not valid UTF-8 (byte {err.start + 1})") from None
    except OSError as err:
        raise unreadable(path, err) from None


def file_digest(path) -> str:
    """SHA-256 of a file's bytes, read in blocks."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()

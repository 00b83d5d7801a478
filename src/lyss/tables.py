"""CSV in and out for the evidence, the studies, the community review and the human-scores check of config.

Rows keep the line number they came from, so that every complaint about a value can name the file,
the line (1-based, the header is line 1) and the column, which is what `InputError` promises.
"""

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lyss.errors import InputError, did_you_mean, unreadable
from lyss.io import fixed, write_text_atomic


@dataclass
class CsvTable:
    path: str
    header: list[str]
    rows: list[list[str]]
    lines: list[int]

    def require(self, *names: str) -> None:
        """Fail on the first column that the header lacks, listing what it does have."""
        for name in names:
            if name not in self.header:
                hint, have = did_you_mean(name, self.header), ", ".join(self.header)
                raise InputError(self.path, f"missing column '{name}'{hint} (columns: {have})", line=1, field=name)

    def strings(self, name: str) -> list[str]:
        self.require(name)
        index = self.header.index(name)
        return [row[index] for row in self.rows]

    def rows_with_values(self, names: list[str], group: str | None = None) -> tuple["CsvTable", dict[str, int]]:
        """The table without the rows that leave a cell of `names` empty (an unrated translation, a metric
        that could not score it), and per column how many rows had it empty: such rows are no evidence
        either way, and keeping every column on the same rows keeps paired comparisons paired. With a
        `group` column (the item), a group with such a row goes whole, so every system keeps the same items."""
        self.require(*names, *([group] if group else []))
        indices = [self.header.index(n) for n in names]
        complete = [all(row[i].strip() for i in indices) for row in self.rows]
        if group:
            at = self.header.index(group)
            broken = {row[at] for row, whole in zip(self.rows, complete, strict=True) if not whole}
            complete = [row[at] not in broken for row in self.rows]
        keep = [k for k, whole in enumerate(complete) if whole]
        empty = {n: sum(not row[i].strip() for row in self.rows) for n, i in zip(names, indices, strict=True)}
        table = CsvTable(self.path, self.header, [self.rows[k] for k in keep], [self.lines[k] for k in keep])
        return table, {n: count for n, count in empty.items() if count}

    def numbers(self, name: str) -> np.ndarray:
        """The column as floats; an empty, non-numeric or infinite cell is an error at its line."""
        values = np.empty(len(self.rows))
        for k, (text, line) in enumerate(zip(self.strings(name), self.lines, strict=True)):
            try:
                value = float(text)
            except ValueError:
                raise InputError(self.path, f"not a number: {text!r}", line=line, field=name) from None
            if not math.isfinite(value):
                raise InputError(self.path, f"not a finite number: {text!r}", line=line, field=name)
            values[k] = value
        return values


def read_csv(path) -> CsvTable:
    """Read a headed CSV file; blank lines are skipped, ragged rows and repeated headers are errors."""
    path = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise unreadable(path, err) from None
    try:  # decoded whole, so that a bad byte is reported at its own line
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise InputError(path, f"not valid UTF-8 (byte 0x{data[err.start]:02x})", line=line) from None
    with io.StringIO(text, newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            raise InputError(path, "empty file, expected a header line", line=1)
        header = [name.strip() for name in header]
        for name in header:
            if header.count(name) > 1:
                raise InputError(path, f"column '{name}' appears twice in the header", line=1, field=name)
        rows, lines = [], []
        for row in reader:
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise InputError(path, f"expected {len(header)} fields, found {len(row)}", line=reader.line_num)
            rows.append([cell.strip() for cell in row])
            lines.append(reader.line_num)
    if not rows:
        raise InputError(path, "no data rows after the header", line=1)
    return CsvTable(path, header, rows, lines)


def check_unique(table: CsvTable, keys, field: str, describe) -> None:
    """Refuse a key seen on an earlier line, at the line that repeats it; `describe(key)` names the key
    in the message ("… twice (first on line N)")."""
    seen: dict = {}
    for key, line in zip(keys, table.lines, strict=True):
        if key in seen:
            raise InputError(table.path, f"{describe(key)} twice (first on line {seen[key]})", line=line, field=field)
        seen[key] = line


def format_value(value) -> str:
    """Floats at lyss.io's fixed precision (the same bytes on any machine), empty for missing values, yes/no
    for booleans."""
    if value is None:
        return ""
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        return "" if math.isnan(value) else repr(fixed(float(value)))
    return str(value)


def csv_text(header: list[str], rows: list[dict]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow([format_value(row.get(name)) for name in header])
    return buffer.getvalue()


def write_csv(path, header: list[str], rows: list[dict]) -> None:
    write_text_atomic(path, csv_text(header, rows))


def parse_name_list(text: str) -> list[str]:
    """Split a comma-separated command-line list, dropping blanks."""
    return [name.strip() for name in text.split(",") if name.strip()]


def json_ready(value):
    """Replace NaN by None (JSON null) and numpy scalars by Python ones, recursively."""
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return None if math.isnan(value) else float(value)
    return value

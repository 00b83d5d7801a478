"""One error type for bad user input, so every message names the file, the line and the field."""


def _printable(text: str) -> str:
    """A key as one line: control characters (a dataset name ending in a newline) spelled as escapes, so the
    message stays the single line a person reads, under Snakemake too."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


class InputError(ValueError):
    """Bad user input. The message always says where: file, line (when the format has lines), field."""

    def __init__(self, path, problem: str, line: int | None = None, field: str | None = None):
        self.path = str(path)
        self.line = line
        self.field = field
        self.problem = problem
        where = self.path + (f":{line}" if line is not None else "")
        what = f"field '{_printable(field)}': " if field else ""
        super().__init__(f"{where}: {what}{problem}")

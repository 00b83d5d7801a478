"""One error type for bad user input, so every message names the file, the line and the field."""

import difflib


def _printable(text: str) -> str:
    """A key as one line: control characters (a dataset name ending in a newline) spelled as escapes, so the
    message stays the single line a person reads, under Snakemake too."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def did_you_mean(word, choices, cutoff: float = 0.6) -> str:
    """" (did you mean 'x'?)" for the choice closest to a mistyped `word`, or "" when none is close: the one hint
    every "unknown …" message gives (difflib's ratio; 0.6 is its default, a lower `cutoff` reaches further)."""
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=cutoff)
    return f" (did you mean {close[0]!r}?)" if close else ""


def unknown(what: str, value, known) -> str:
    """"unknown dataset 'x' (did you mean 'y'?); known: a, b": a name that is not among `known`, with the
    closest and the whole list, so the person can copy the right one."""
    return f"unknown {what} {value!r}{did_you_mean(value, known)}; known: {', '.join(map(str, known))}"


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


def unreadable(path, err: OSError) -> InputError:
    """The error for a file the system would not open or read (missing, a folder, no permission): its path and
    the system's reason, in the same words for every reader."""
    return InputError(path, f"cannot read file ({err.strerror or err})")

"""Support for the thin Snakemake scripts: logs go to the rule's log file, and bad input ends the job
with one clear line (file, line, field) instead of a traceback."""

import sys
from contextlib import contextmanager
from pathlib import Path

from lyss.errors import InputError


@contextmanager
def logged(log_path):
    Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    original = sys.stderr
    with open(log_path, "w", encoding="utf-8") as log:
        sys.stderr = log
        try:
            yield
        except InputError as err:
            log.write(f"error: {err}\n")
            original.write(f"lyss: error: {err}\n")
            sys.stderr = original
            sys.exit(1)
        finally:
            sys.stderr = original


def option_flags(options: dict) -> list[str]:
    """{"scale": [-3, 3], "group_by_item": True, "seed": 1} → ["--scale", "-3", "3", "--group-by-item", "--seed", "1"];
    lists give several values, True a bare flag, False/None nothing."""
    argv = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            argv.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, list):
            argv += [flag, *map(str, value)]
        else:
            argv += [flag, str(value)]
    return argv

"""The files a language card names for the metrics (an FST analyzer, a spelling dictionary): installed by Debian
packages outside the project, so the project's own files do not show when one is installed, upgraded or missing.

Metrics declare the card fields they read (`card_files`, lyss.metrics.base). A metric file's stamp carries the
bytes of those files (`card_file_digests`, lyss.metrics.score), so a change recomputes exactly those metrics; and a
run card warns when a named file is absent (`missing_card_files`), since a metric that only uses it as extra
evidence (the code-switching rate with a dictionary) still gives a value without it.
"""

import functools

from lyss.io import file_digest
from lyss.metrics import analyzers, declaration, spelling

# What each `card_files` field names on disk, and which Debian package installs it.
CARD_FILES = {"fst_analyzer": analyzers.card_files, "spelling_dictionary": spelling.card_files}


def card_file_digests(card: dict, fields) -> list[str]:
    """`<field>:<sha256>` for each file the target card names under `fields`, `<field>:absent` for one that is not
    on this machine: a metric computed before a dictionary or analyzer was installed (or upgraded) is stale."""
    return [f"{field}:{_digest(str(path), path.stat().st_size, path.stat().st_mtime_ns)}"
            if path.is_file() else f"{field}:absent" for field in fields for path in CARD_FILES[field](card)]


@functools.lru_cache(maxsize=32)
def _digest(path: str, size: int, mtime_ns: int) -> str:
    """`file_digest`, once per process and version of the file: five metrics of a job may read one analyzer."""
    return file_digest(path)


def missing_card_files(card: dict, metric_ids) -> list[str]:
    """One line per card field that `metric_ids` read and whose files are not all on this machine."""
    lines = []
    for field in dict.fromkeys(f for m in metric_ids for f in declaration(m, "card_files")):
        absent = [p for p in CARD_FILES[field](card) if not p.is_file()]
        if absent:
            package = card[field].get("package")
            install = f" (Debian package {package})" if package else ""
            readers = ", ".join(m for m in metric_ids if field in declaration(m, "card_files"))
            lines.append(f"language {card.get('code', '?')!r}: {field} {str(absent[0])!r} is not installed{install}; "
                         f"{readers} ran without it")
    return lines

"""Versioned, dialect-aware migrations of the run-card store (src/lyss/store.py).

Each migration is a module `mNNNN_<name>.py` in this package exposing `upgrade(dialect) -> list[str]`
(SQL statements for "sqlite" or "postgresql"). `lyss_schema_migrations` records which versions a
database has; `store.migrate` applies the missing ones in order, each in its own transaction. A change of
the table's shape is a new module, never an edit of an old one. A new metric's column needs none: after the
migrations, `Store.add_metric_columns` adds a `real` column for each registered metric's `db_column` the table
lacks (spec §9.1 asks for numbered migrations; the registry is the one place a metric is declared).
"""

import importlib
import pkgutil
import re
from dataclasses import dataclass
from types import ModuleType

NAME = re.compile(r"^m(\d{4})_(\w+)$")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    module: ModuleType

    def statements(self, dialect: str) -> list[str]:
        return self.module.upgrade(dialect)


def all_migrations() -> list[Migration]:
    """The migrations of this package, by version; versions must be 1, 2, 3, … without gaps."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        match = NAME.match(info.name)
        if match:
            found.append(Migration(int(match.group(1)), match.group(2),
                                   importlib.import_module(f"{__name__}.{info.name}")))
    found.sort(key=lambda m: m.version)
    if [m.version for m in found] != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migration versions must run 1..n without gaps: {[m.version for m in found]}")
    return found

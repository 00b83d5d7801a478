"""Run cards into a database (spec §9.1): SQLite by default (one file, no set-up), PostgreSQL when a DSN
is configured (`database.url` in params.yaml, or `LYSS_DATABASE_URL`, which wins).

Both hold the same table, `run_cards`: the full card (jsonb in PostgreSQL, JSON text in SQLite) plus the
§9.1 columns copied out of it for sorting and filtering, with the §9.1 indexes. The schema is created and
migrated by the numbered migrations in `lyss.migrations`, then given a column for any registered metric that
declares one the table lacks (`Store.add_metric_columns`).

Versions. A row is one version of the run of a method on a dataset, keyed by the card's fingerprint:
pushing the same fingerprint again updates that row in place (the same card twice leaves one row); a new
fingerprint for the same dataset × method adds version n + 1 and keeps the older rows. The version pushed
last is the current one (`is_current`), which is what the leaderboard shows.

Every statement takes its values as parameters; identifiers come only from the fixed list below and the metric
classes' declared `db_column` (checked to be plain identifiers). A DSN's
password never reaches a message: `mask_url` is used wherever a DSN is shown, and driver errors are
scrubbed of it.
"""

import json
import os
import re
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import unquote

import jsonschema
import numpy as np

from lyss.aggregate.runcard import validate_run_card
from lyss.errors import InputError
from lyss.io import read_json
from lyss.metrics import db_columns
from lyss.migrations import Migration, all_migrations

DEFAULT_SQLITE = "results/lyss.sqlite"
ENV_VAR = "LYSS_DATABASE_URL"
MIGRATIONS_TABLE = "lyss_schema_migrations"
MASK = "***"

# Spec §9.1 columns that are not metrics: column ← card field (a path of keys). The metric columns come
# from the registry (lyss.metrics.db_columns: each metric class declares its `db_column`) and sit after the
# first two, as in the spec.
FIELD_COLUMNS: list[tuple[str, tuple[str, ...]]] = [
    ("composite_score", ("scores", "composite")),
    ("quality_tier", ("scores", "quality_tier")),
    ("total_cost_usd", ("totals", "total_cost_usd")),
    ("cost_per_entry_usd", ("totals", "cost_per_entry_usd")),
    ("cost_per_source_char", ("totals", "cost_per_source_char")),
    ("avg_latency_seconds", ("scores", "avg_latency_seconds")),
    ("model_slug", ("model_slug",)),
    ("condition", ("condition",)),
    ("dataset_id", ("dataset", "id")),
    ("language_pair", ("dataset", "language_pair")),
    ("fingerprint_hash", ("fingerprint", "hash")),
    ("tokens_per_second", ("scores", "tokens_per_second")),
    ("entries_per_minute", ("scores", "entries_per_minute")),
    ("elapsed_seconds", ("elapsed_seconds",)),
]
TEXT_COLUMNS = {"quality_tier", "model_slug", "condition", "dataset_id", "language_pair", "fingerprint_hash"}
IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]*$")


def card_columns() -> list[tuple[str, tuple[str, ...]]]:
    """Every column copied out of a card: column ← card field."""
    metrics = [(column, ("scores", metric)) for column, metric in db_columns()]
    return [*FIELD_COLUMNS[:2], *metrics, *FIELD_COLUMNS[2:]]


def column_names() -> list[str]:
    return [name for name, _ in card_columns()]


def real_columns() -> list[str]:
    return [name for name in column_names() if name not in TEXT_COLUMNS]


def query_columns() -> list[str]:
    return ["dataset_id", "method_name", "version", "is_current", "pushed_at",
            *[c for c in column_names() if c != "dataset_id"]]


# `lyss db query --sort`: key → (column, direction). Cheaper and faster rank first; nulls always last.
SORTS = {
    "composite": ("composite_score", "DESC"),
    "cost_per_entry_usd": ("cost_per_entry_usd", "ASC"),
    "avg_latency_seconds": ("avg_latency_seconds", "ASC"),
}


class StoreError(RuntimeError):
    """A database that cannot be opened, migrated or written; the message never holds a password."""


# ---------------------------------------------------------------------------------------------- DSNs

def configured_url(section: dict | None, environ=None) -> str | None:
    """The configured database: `LYSS_DATABASE_URL` if set, else params.yaml `database.url`, else None."""
    environ = os.environ if environ is None else environ
    env = (environ.get(ENV_VAR) or "").strip()
    if env:
        return env
    url = (section or {}).get("url")
    if url is None:
        return None
    return str(url).strip() or None


def is_postgres(url: str) -> bool:
    """A postgres:// or postgresql:// URL, or a libpq keyword DSN (`host=… dbname=…`)."""
    return url.startswith(("postgresql://", "postgres://")) or (
        "=" in url and not url.startswith("sqlite:") and re.match(r"^\s*\w+\s*=", url) is not None)


def sqlite_path(url: str) -> Path:
    """`sqlite:///relative/file`, `sqlite:////absolute/file`, or a plain file path."""
    if url.startswith("sqlite:///"):
        return Path(url[len("sqlite:///"):])
    if url.startswith("sqlite:"):
        raise StoreError(f"unsupported SQLite URL {url!r}; write sqlite:///path/to/file or a plain path")
    return Path(url)


_KEYWORD_PASSWORD = re.compile(r"(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", re.IGNORECASE)
_QUERY_PASSWORD = re.compile(r"([?&]password=)([^&#]*)", re.IGNORECASE)


def _split_userinfo(url: str) -> tuple[str, str | None, str]:
    """(scheme://user, raw password or None, @host… remainder) of a URL DSN. The last '@' ends the
    user information, so a password holding '/', '?', '#' or '@' is still found whole."""
    scheme, rest = url.split("://", 1)
    at = rest.rfind("@")
    if at == -1:
        return f"{scheme}://", None, rest
    userinfo, remainder = rest[:at], rest[at:]
    user, colon, password = userinfo.partition(":")
    return f"{scheme}://{user}", password if colon else None, remainder


def mask_url(url: str | None) -> str | None:
    """The DSN with any password replaced by ***; safe to print, log or store."""
    if url is None:
        return None
    if url.startswith(("postgresql://", "postgres://")):
        head, password, remainder = _split_userinfo(url)
        masked = head + (f":{MASK}" if password is not None else "") + remainder
        return _QUERY_PASSWORD.sub(lambda m: m.group(1) + MASK, masked)
    return _KEYWORD_PASSWORD.sub(lambda m: m.group(1) + MASK, url)


def _secrets(url: str) -> list[str]:
    """The password of a DSN, in every spelling a driver message might echo."""
    if url.startswith(("postgresql://", "postgres://")):
        found = [m.group(2) for m in _QUERY_PASSWORD.finditer(url)]
        password = _split_userinfo(url)[1]
        if password:
            found.append(password)
    else:
        found = [m.group(2).strip("'") for m in _KEYWORD_PASSWORD.finditer(url)]
    expanded = [spelling for secret in found for spelling in (secret, unquote(secret))]
    return sorted({s for s in expanded if s}, key=len, reverse=True)


def scrub(message: str, url: str) -> str:
    """`message` with the DSN's password (if any) replaced by ***."""
    for secret in _secrets(url):
        message = message.replace(secret, MASK)
    return message


# ---------------------------------------------------------------------------------------------- cards

def _field(card: dict, path: tuple[str, ...]):
    value = card
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def card_row(card: dict) -> dict:
    """The §9.1 columns of a card (plus `method_name`), as stored."""
    row = {name: _field(card, path) for name, path in card_columns()}
    row["method_name"] = card["method"]["name"]
    return row


def check_card(card, source="<card>") -> None:
    """Raise InputError (naming the source and the field) unless `card` is a valid run card."""
    if not isinstance(card, dict):
        raise InputError(source, "a run card must be a JSON object")
    try:
        validate_run_card(card)
    except jsonschema.ValidationError as err:
        field = ".".join(str(p) for p in err.absolute_path) or None
        raise InputError(source, f"not a valid run card: {err.message}", field=field) from None


def load_card(path) -> dict:
    card = read_json(path)
    check_card(card, path)
    return card


def canonical_json(card: dict, source="<card>") -> str:
    try:
        return json.dumps(card, sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except ValueError:
        raise InputError(source, "holds NaN or Infinity, which JSON databases cannot store") from None


@dataclass(frozen=True)
class PushResult:
    dataset: str
    method: str
    version: int
    # "added": a new version; "updated": same fingerprint, card changed, row updated in place;
    # "unchanged": nothing written; "restored": an older version, pushed again, is current again.
    status: str
    fingerprint: str

    def describe(self) -> str:
        return f"{self.dataset}/{self.method}: {self.status} (version {self.version}, {self.fingerprint[:12]})"


# ---------------------------------------------------------------------------------------------- store

class Store:
    """One open database. Use `Store.open(url)` as a context manager."""

    def __init__(self, connection, dialect: str, label: str, url: str):
        self.connection, self.dialect, self.label, self._url = connection, dialect, label, url

    # -- opening ---------------------------------------------------------------------------------------
    @classmethod
    def open(cls, url: str | os.PathLike | None = None, migrate: bool = True) -> "Store":
        """Open (and by default create or migrate) the database at `url` (None → results/lyss.sqlite)."""
        url = str(url) if url is not None else DEFAULT_SQLITE
        if is_postgres(url):
            store = cls._open_postgres(url)
        else:
            path = sqlite_path(url)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                connection = sqlite3.connect(path, isolation_level=None, timeout=30)
            except (OSError, sqlite3.Error) as err:
                raise StoreError(f"cannot open the SQLite database {path}: {err}") from None
            store = cls(connection, "sqlite", str(path), url)
        if migrate:
            try:
                store.migrate()
            except BaseException:
                store.close()
                raise
        return store

    @classmethod
    def _open_postgres(cls, url: str) -> "Store":
        try:
            import psycopg
        except ImportError:
            raise StoreError("PostgreSQL needs the psycopg package: pip install 'psycopg[binary]'") from None
        try:
            connection = psycopg.connect(url, autocommit=True, connect_timeout=10)
        except psycopg.Error as err:
            raise StoreError(f"cannot connect to {mask_url(url)}: {scrub(str(err).strip(), url)}") from None
        return cls(connection, "postgresql", mask_url(url), url)

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- plumbing --------------------------------------------------------------------------------------
    def _sql(self, statement: str) -> str:
        """Statements are written with `?` placeholders; psycopg wants `%s`."""
        return statement.replace("?", "%s") if self.dialect == "postgresql" else statement

    def _execute(self, statement: str, params: Iterable = ()):
        try:
            return self.connection.execute(self._sql(statement), tuple(params))
        except _driver_errors() as err:
            raise StoreError(f"{self.label}: {scrub(str(err).strip(), self._url)}") from None

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        if self.dialect == "sqlite":
            self._execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self.connection.execute("ROLLBACK")
                raise
            self._execute("COMMIT")
        else:
            with self.connection.transaction():
                yield

    def _json_param(self, card: dict, source="<card>"):
        text = canonical_json(card, source)
        if self.dialect == "postgresql":
            from psycopg.types.json import Jsonb
            return Jsonb(json.loads(text))
        return text

    def _bool(self, value: bool):
        return value if self.dialect == "postgresql" else int(value)

    def _load_card(self, value) -> dict:
        return json.loads(value) if isinstance(value, str) else value

    # -- migrations ------------------------------------------------------------------------------------
    def schema_version(self) -> int:
        self._execute(f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} (version integer PRIMARY KEY, "
                      "name text NOT NULL, applied_at text NOT NULL)")
        row = self._execute(f"SELECT MAX(version) FROM {MIGRATIONS_TABLE}").fetchone()
        return row[0] or 0

    def migrate(self, migrations: list[Migration] | None = None) -> list[int]:
        """Apply the migrations this database lacks, in order, each in one transaction; returns their
        versions. A database newer than this code is refused rather than guessed at."""
        migrations = all_migrations() if migrations is None else migrations
        current = self.schema_version()
        known = max((m.version for m in migrations), default=0)
        if current > known:
            raise StoreError(f"{self.label}: schema version {current} is newer than this lyss knows ({known}); "
                             "upgrade lyss")
        applied = []
        for migration in migrations:
            if migration.version <= current:
                continue
            with self._transaction():
                if self.dialect == "postgresql":  # concurrent migrators wait here, then see the new version
                    self._execute(f"LOCK TABLE {MIGRATIONS_TABLE} IN EXCLUSIVE MODE")
                    done = self._execute(f"SELECT 1 FROM {MIGRATIONS_TABLE} WHERE version = ?",
                                         [migration.version]).fetchone()
                    if done:
                        continue
                for statement in migration.statements(self.dialect):
                    self._execute(statement)
                self._execute(f"INSERT INTO {MIGRATIONS_TABLE} (version, name, applied_at) VALUES (?, ?, ?)",
                              [migration.version, migration.name, _now().isoformat()])
            applied.append(migration.version)
        self.add_metric_columns()
        return applied

    def _table_columns(self) -> set[str]:
        if self.dialect == "postgresql":
            rows = self._execute("SELECT column_name FROM information_schema.columns "
                                 "WHERE table_name = 'run_cards' AND table_schema = current_schema()").fetchall()
            return {r[0] for r in rows}
        return {r[1] for r in self._execute("PRAGMA table_info(run_cards)").fetchall()}

    def add_metric_columns(self) -> list[str]:
        """After the numbered migrations (frozen snapshots): a `real` column for each registered metric that
        declares a `db_column` the table lacks, so a new metric needs no migration of its own."""
        missing = [c for c, _ in db_columns() if c not in self._table_columns()]
        for column in missing:
            if not IDENTIFIER.match(column):
                raise StoreError(f"metric column {column!r} is not a plain lower-case SQL identifier")
            with self._transaction():
                self._execute(f"ALTER TABLE run_cards ADD COLUMN {column} real")
        return missing

    # -- writing ---------------------------------------------------------------------------------------
    def push(self, card: dict, source="<card>") -> PushResult:
        """Upsert one card by its fingerprint (see the module docstring) and make it current."""
        check_card(card, source)
        row = card_row(card)
        dataset, method, fingerprint = row["dataset_id"], row["method_name"], row["fingerprint_hash"]
        document = self._json_param(card, source)
        now = _now()
        stamp = now if self.dialect == "postgresql" else now.isoformat()
        with self._transaction():
            if self.dialect == "postgresql":  # versions are numbered one writer at a time
                self._execute("LOCK TABLE run_cards IN SHARE ROW EXCLUSIVE MODE")
            existing = self._execute(
                "SELECT version, is_current, run_card FROM run_cards "
                "WHERE dataset_id = ? AND method_name = ? AND fingerprint_hash = ?",
                [dataset, method, fingerprint]).fetchone()
            if existing is None:
                version = self._execute("SELECT COALESCE(MAX(version), 0) + 1 FROM run_cards "
                                        "WHERE dataset_id = ? AND method_name = ?", [dataset, method]).fetchone()[0]
                status = "added"
            else:
                version = existing[0]
                same = canonical_json(self._load_card(existing[2])) == canonical_json(card)
                if same and existing[1]:
                    return PushResult(dataset, method, version, "unchanged", fingerprint)
                status = "restored" if same else "updated"
            self._execute("UPDATE run_cards SET is_current = ? "
                          "WHERE dataset_id = ? AND method_name = ? AND fingerprint_hash <> ? AND is_current = ?",
                          [self._bool(False), dataset, method, fingerprint, self._bool(True)])
            columns = column_names()
            names = ["method_name", "version", "is_current", "created_at", "pushed_at", *columns, "run_card"]
            values = [method, version, self._bool(True), stamp, stamp, *(row[c] for c in columns), document]
            keep = {"dataset_id", "method_name", "fingerprint_hash", "version", "created_at"}
            updates = ", ".join(f"{n} = excluded.{n}" for n in names if n not in keep)
            self._execute(
                f"INSERT INTO run_cards ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)}) "
                f"ON CONFLICT (dataset_id, method_name, fingerprint_hash) DO UPDATE SET {updates}",
                values)
        return PushResult(dataset, method, version, status, fingerprint)

    def push_all(self, cards: Iterable[tuple[str, dict]]) -> list[PushResult]:
        """Push (source, card) pairs in order."""
        return [self.push(card, source) for source, card in cards]

    # -- reading ---------------------------------------------------------------------------------------
    def query(self, dataset: str | None = None, sort: str = "composite", history: bool = False,
              method: str | None = None) -> list[dict]:
        """Rows as dicts (query_columns() + `run_card`) per dataset: the current version of each method ordered
        by `sort` (nulls last, then by name); with `history`, every version, by method and newest first."""
        if sort not in SORTS:
            raise StoreError(f"unknown sort {sort!r}; choose from {', '.join(SORTS)}")
        column, direction = SORTS[sort]
        where, params = [], []
        if not history:
            where.append("is_current = ?")
            params.append(self._bool(True))
        if dataset is not None:
            where.append("dataset_id = ?")
            params.append(dataset)
        if method is not None:
            where.append("method_name = ?")
            params.append(method)
        clause = f"WHERE {' AND '.join(where)} " if where else ""
        order = ("method_name, version DESC" if history else f"{column} {direction} NULLS LAST, method_name")
        selected = query_columns()
        statement = (f"SELECT {', '.join(selected)}, run_card FROM run_cards {clause}"
                     f"ORDER BY dataset_id, {order}")
        rows = self._execute(statement, params).fetchall()
        out = []
        for values in rows:
            record = dict(zip([*selected, "run_card"], values, strict=True))
            record["is_current"] = bool(record["is_current"])
            record["run_card"] = self._load_card(record["run_card"])
            if self.dialect == "postgresql":  # `real` is float4 there: give its shortest decimal form
                for name in real_columns():
                    if record[name] is not None:
                        record[name] = float(str(np.float32(record[name])))
            if isinstance(record["pushed_at"], datetime):
                record["pushed_at"] = record["pushed_at"].isoformat()
            out.append(record)
        return out

    def datasets(self) -> list[str]:
        return [r[0] for r in self._execute("SELECT DISTINCT dataset_id FROM run_cards ORDER BY dataset_id")]

    def count(self) -> int:
        return self._execute("SELECT COUNT(*) FROM run_cards").fetchone()[0]


def _driver_errors() -> tuple[type[Exception], ...]:
    try:
        import psycopg
    except ImportError:
        return (sqlite3.Error,)
    return (sqlite3.Error, psycopg.Error)


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def push_cards(card_paths, url: str | None = None) -> tuple[str, list[PushResult]]:
    """Validate every card first (nothing is written if one is bad), then push them all to `url`; returns
    the printable (masked) database label and the results."""
    cards = [(str(p), load_card(p)) for p in card_paths]
    with Store.open(url) as store:
        return store.label, store.push_all(cards)

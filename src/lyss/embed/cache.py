"""A content-addressed store of sentence vectors on disk, one per embedder, shared by every process.

`lyss score`, `lyss compare` and the workflow's embed jobs all ask the same embedder for the same texts (the
source and reference of a test set above all); with this store each text is embedded once per machine,
whichever command asked first. A row's key is SHA-256 of the embedder's identity and the text, where the
identity (`Backend.cache_id`) names the weights, the code and runtime that compute the vector and the CPU's
instruction set: anything that could change one bit of a vector changes the key, so a stored vector is the
one an uncached run would compute, stored as the float32 bytes the model returned.

Where: `$LYSS_CACHE_DIR/embeddings/<embedder>/vectors.sqlite` (default `$XDG_CACHE_HOME/lyss`, else
`~/.cache/lyss`). Bounded: past `$LYSS_EMBEDDING_CACHE_MB` (default 2048) per embedder the least recently used
rows are dropped; `LYSS_EMBEDDING_CACHE_MB=0` turns the store off. SQLite because several jobs fill one store
at once: each write is one transaction under SQLite's file lock, a reader sees whole rows or none, and a
killed job leaves no torn row. Its locks need a local disk: on a cluster, point `LYSS_CACHE_DIR` at one.
"""

import hashlib
import os
import re
import sqlite3
import sys
import time
from pathlib import Path

import numpy as np

from lyss.cachedir import cache_root

DEFAULT_MB = 2048
KEEP_AFTER_EVICTION = 0.8  # an eviction brings the store down to this share of the bound, not just under it
CHUNK = 500  # keys per SQL statement (SQLite allows 32,766 parameters; smaller statements lock for less time)
BUSY_SECONDS = 120  # how long a writer waits for another job's transaction before it gives up
OPEN_RETRY_SECONDS = 0.02  # pause between attempts to open a store another job is creating


def bound_bytes() -> int:
    raw = os.environ.get("LYSS_EMBEDDING_CACHE_MB", str(DEFAULT_MB))
    try:
        megabytes = float(raw)
    except ValueError:
        raise ValueError(f"LYSS_EMBEDDING_CACHE_MB: expected a number of megabytes, got {raw!r}") from None
    return int(megabytes * 2**20)


def open_cache(name: str, identity: str | None) -> "VectorCache | None":
    """The store of embedder `name` (a folder name) for vectors computed as `identity` says; None when the
    embedder declares no identity (it cannot say when its vectors change) or the store is turned off."""
    bound = bound_bytes()
    if identity is None or bound <= 0:
        return None
    cache = VectorCache(cache_root() / "embeddings" / re.sub(r"[^A-Za-z0-9._-]+", "_", name), identity, bound)
    try:
        cache.db  # noqa: B018 - open now: a store that cannot be opened is skipped, the run goes on
    except (OSError, sqlite3.Error) as err:
        print(f"lyss: warning: embedding cache {cache.path} not used ({err})", file=sys.stderr)
        return None
    return cache


def open_shared(path: Path, statements: list[str]) -> sqlite3.Connection:
    """A connection to the SQLite file that several jobs share, after `statements` (its pragmas and schema).
    Jobs that create the file at the same moment: SQLite answers "database is locked" at once to the switch to
    WAL, without its busy wait (4 threads, 200 fresh stores: 15 of 800 opens), so the opening is retried for up
    to BUSY_SECONDS."""
    path.parent.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + BUSY_SECONDS
    while True:
        db = sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)
        try:
            for statement in statements:
                db.execute(statement)
            return db
        except sqlite3.Error as err:
            db.close()
            if "locked" not in str(err) or time.monotonic() > deadline:
                raise
            time.sleep(OPEN_RETRY_SECONDS)


class VectorCache:
    """get(texts) → {text: vector} for the stored ones; put(texts, vectors) stores new ones."""

    def __init__(self, folder: Path, identity: str, bound: int):
        self.path = Path(folder) / "vectors.sqlite"
        self.identity = identity.encode("utf-8")
        self.bound = bound
        self._db: sqlite3.Connection | None = None

    def key(self, text: str) -> bytes:
        return hashlib.sha256(self.identity + b"\0" + text.encode("utf-8", "surrogatepass")).digest()

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = open_shared(self.path, [
                "PRAGMA page_size = 16384",  # a 1.5 kB vector per row: ten rows a page, little slack
                "PRAGMA journal_mode=WAL",  # readers do not wait for a writer
                "CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL, "
                "used INTEGER NOT NULL)",
                "CREATE INDEX IF NOT EXISTS by_use ON vectors (used)"])
        return self._db

    def get(self, texts: list[str]) -> dict[str, np.ndarray]:
        by_key = {self.key(t): t for t in texts}
        keys, found = list(by_key), {}
        for start in range(0, len(keys), CHUNK):
            chunk = keys[start:start + CHUNK]
            rows = self.db.execute(f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(chunk))})",
                                   chunk).fetchall()
            found.update((by_key[k], np.frombuffer(v, dtype="<f4").copy()) for k, v in rows)
        if found:
            self._touch([self.key(t) for t in found])
        return found

    def put(self, texts: list[str], vectors: np.ndarray) -> None:
        vectors = np.asarray(vectors)
        if vectors.dtype != np.float32:
            raise TypeError(f"the cache stores vectors exactly as computed: float32, not {vectors.dtype}")
        now = time.time_ns()
        rows = [(self.key(t), v.astype("<f4").tobytes(), now) for t, v in zip(texts, vectors, strict=True)]
        try:
            with self._transaction() as db:
                db.executemany("INSERT OR IGNORE INTO vectors (key, vector, used) VALUES (?, ?, ?)", rows)
            self._evict()
        except sqlite3.OperationalError as err:  # a full disk, a lock held past BUSY_SECONDS: the run goes on
            print(f"lyss: warning: embedding cache {self.path}: {len(rows)} vectors not stored ({err})",
                  file=sys.stderr)

    def _touch(self, keys: list[bytes]) -> None:
        """Mark rows as used now (for eviction); skipped when another job holds the lock: it is bookkeeping."""
        now = time.time_ns()
        try:
            with self._transaction(wait=False) as db:
                for start in range(0, len(keys), CHUNK):
                    chunk = keys[start:start + CHUNK]
                    db.execute(f"UPDATE vectors SET used = ? WHERE used < ? AND key IN ({','.join('?' * len(chunk))})",
                               [now, now, *chunk])
        except sqlite3.OperationalError:
            pass

    def size(self) -> int:
        """Bytes the rows take (pages in use; freed pages are reused before the file grows)."""
        page_size, pages, free = (self.db.execute(f"PRAGMA {p}").fetchone()[0]
                                  for p in ("page_size", "page_count", "freelist_count"))
        return page_size * (pages - free)

    def _evict(self) -> None:
        size = self.size()
        if size <= self.bound:
            return
        with self._transaction() as db:
            count = db.execute("SELECT count(*) FROM vectors").fetchone()[0]
            drop = count - int(count * KEEP_AFTER_EVICTION * self.bound / size)
            db.execute("DELETE FROM vectors WHERE key IN (SELECT key FROM vectors ORDER BY used LIMIT ?)", (drop,))

    def _transaction(self, wait: bool = True):
        return _Transaction(self.db, wait)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


class _Transaction:
    """BEGIN IMMEDIATE … COMMIT (ROLLBACK on error): the write lock is taken at the start, so two jobs never
    both read, then both write. `wait=False` gives up at once if another job holds it."""

    def __init__(self, db: sqlite3.Connection, wait: bool):
        self.db, self.wait = db, wait

    def __enter__(self) -> sqlite3.Connection:
        if not self.wait:
            self.db.execute("PRAGMA busy_timeout = 0")
        try:
            self.db.execute("BEGIN IMMEDIATE")
        finally:
            if not self.wait:
                self.db.execute(f"PRAGMA busy_timeout = {BUSY_SECONDS * 1000}")
        return self.db

    def __exit__(self, kind, error, traceback) -> None:
        self.db.execute("ROLLBACK" if kind else "COMMIT")

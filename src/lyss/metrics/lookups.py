"""Answers of the word lists and the language identifier on disk, shared by every process.

The code-switching and orthography metrics ask wordfreq for the Zipf frequency of each word they judge,
and lingua for the language of each word and of some outputs. The answers are few (the words of a corpus) but
getting the first one is not: wordfreq imports its language data and reads two frequency lists (≈ 1 s), lingua
loads the n-gram models of the pair (≈ 0.5 s), in every `lyss score`, `lyss compare` and pipeline job. Here each
answer is kept on disk once computed, so a process that judges words judged before imports neither.

A namespace names the tool, its installed version and the question (`wordfreq 3.1.1 zipf de`); a key is the word
or text asked about; a value is the tool's answer as JSON (a float's repr, so the same float comes back). An
answer depends on nothing but namespace and key (wordfreq's lists and lingua's models ship inside their
packages), so a stored answer is the one the tool gives. tests/test_lookups.py checks each against the tool and
that `lyss score` prints the same bytes with the store empty, full, or off.

Where: `$LYSS_CACHE_DIR/lookups.sqlite` (beside the embedding store, `lyss.embed.cache`); `LYSS_LOOKUP_CACHE=0`
turns it off. A namespace is read whole on first use; new answers are written in one transaction at the end of
the metric that asked (and at exit), so concurrent jobs can share the file. Bounded: past MAX_ROWS rows the
oldest half goes.

Pipeline jobs on Snakemake's threads (lyss.scripting) share one store per namespace: a lock keeps one thread's
answers from changing under another's flush.
"""

import atexit
import json
import os
import sqlite3
import sys
import threading

from lyss.cachedir import cache_root
from lyss.embed.cache import open_shared

MAX_ROWS = 2_000_000  # ≈ 200 MB: the words of hundreds of corpora in dozens of languages


def enabled() -> bool:
    return os.environ.get("LYSS_LOOKUP_CACHE", "1") != "0"


class LookupStore:
    """A dict of one namespace's answers: `get(key)` (None when not stored), `put(key, value)`, `flush()`."""

    def __init__(self, namespace: str):
        self.namespace = namespace
        self.path = cache_root() / "lookups.sqlite"
        self._known: dict[str, object] | None = None
        self._new: dict[str, object] = {}
        self._lock = threading.RLock()

    def get(self, key: str):
        return self._answers().get(key)

    def put(self, key: str, value) -> None:
        with self._lock:
            self._answers()[key] = value
            self._new[key] = value

    def _answers(self) -> dict:
        with self._lock:
            if self._known is None:
                self._known = {}
                if enabled():
                    try:
                        rows = self._db().execute("SELECT key, value FROM answers WHERE namespace = ?",
                                                  (self.namespace,)).fetchall()
                        self._known.update((k, json.loads(v)) for k, v in rows)
                    except (OSError, sqlite3.Error) as err:
                        print(f"lyss: warning: lookup cache {self.path} not read ({err})", file=sys.stderr)
            return self._known

    def _db(self) -> sqlite3.Connection:
        return open_shared(self.path, [
            "PRAGMA journal_mode=WAL",
            "CREATE TABLE IF NOT EXISTS answers (namespace TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, "
            "PRIMARY KEY (namespace, key))"])

    def flush(self) -> None:
        """Write the answers computed since the last flush (one transaction); a store that cannot be written
        is skipped with a warning: the answers were computed, the run goes on."""
        with self._lock:
            rows = [(self.namespace, k, json.dumps(v)) for k, v in self._new.items()] if enabled() else []
            self._new.clear()
        if not rows:
            return
        try:
            db = self._db()
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany("INSERT OR IGNORE INTO answers (namespace, key, value) VALUES (?, ?, ?)", rows)
                count = db.execute("SELECT max(rowid) - min(rowid) FROM answers").fetchone()[0] or 0
                if count > MAX_ROWS:
                    db.execute("DELETE FROM answers WHERE rowid < (SELECT min(rowid) FROM answers) + ?",
                               (count // 2,))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            finally:
                db.close()
        except (OSError, sqlite3.Error) as err:
            print(f"lyss: warning: lookup cache {self.path}: {len(rows)} answers not stored ({err})",
                  file=sys.stderr)


_STORES: dict[str, LookupStore] = {}
_STORES_LOCK = threading.Lock()


def store(namespace: str) -> LookupStore:
    """The process's store of `namespace` (one per namespace, flushed at exit if a caller did not)."""
    with _STORES_LOCK:
        if namespace not in _STORES:
            if not _STORES:
                atexit.register(flush_all)
            _STORES[namespace] = LookupStore(namespace)
        return _STORES[namespace]


def flush_all() -> None:
    with _STORES_LOCK:
        kept = list(_STORES.values())
    for one in kept:
        one.flush()

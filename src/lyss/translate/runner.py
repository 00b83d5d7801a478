"""Runs a translation method over a corpus so that no answer is bought twice.

Every record is appended to a record store (a JSONL file) the moment it exists. The store lives outside
the job's declared output, because Snakemake deletes the outputs of a job it considers incomplete
(`--rerun-incomplete`, `--forcerun`) and any output it is about to rebuild; records kept there would be
lost with them. A later run reuses every successful record whose entry is unchanged and asks the method
only for the rest. The output JSONL is written atomically, in corpus order, once every entry has a record.

Methods that cost money or time per call (`keeps_records = True` on the translator, e.g.
`openai_compatible`) keep their store after a complete run, so an output deleted by Snakemake is rebuilt
without a single request; the others (local commands, files) drop it once nothing failed, so a forced
re-run runs them again, e.g. after an upgrade of the tool.

How long the method took is not part of what it answered: the output holds no wall-clock field, and the
timing (`elapsed_seconds`, each entry's `latency_s`) goes to a file of its own (`timing_path`), which the
workflow keeps outside every versioned folder (results/timings/). So the same corpus translated on two
machines gives byte-identical outputs, and `dvc status` stays clean on a fresh clone.
"""

import fcntl
import hashlib
import json
import time
from pathlib import Path

from lyss.io import write_json_atomic, write_jsonl_atomic
from lyss.progress import Progress
from lyss.translate.base import TranslationRecord

TIMING_FIELDS = ("latency_s",)


def partial_path(out_path) -> Path:
    """The default record store of an output: `<output>.partial`."""
    out_path = Path(out_path)
    return out_path.with_name(out_path.name + ".partial")


def timing_sidecar(out_path) -> Path:
    """The default timing file of an output: `<output stem>.timing.json`."""
    out_path = Path(out_path)
    return out_path.with_name(out_path.stem + ".timing.json")


def settings_key(settings) -> str:
    """A stable hash of everything that changes what the method is asked (kind, options, language pair)."""
    return hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()


def entry_key(entry: dict) -> str:
    """A hash of the entry as the method sees it: an edited entry is translated again, the others not."""
    return hashlib.sha256(json.dumps(entry, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def _parse(line: str):
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return None


class RecordStore:
    """An append-only JSONL file: a header `{"settings": <key>}`, then one record per line, each with the
    `input` hash of its entry. Held under an exclusive lock while a job writes it, so a job orphaned by a
    killed Snakemake and its re-run never ask for the same entry at once: the second waits, then reuses."""

    def __init__(self, path, key: str):
        self.path = Path(path)
        self.key = key
        self.handle = None

    def __enter__(self) -> "RecordStore":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.handle = open(self.path, "a+", encoding="utf-8")
        fcntl.flock(self.handle, fcntl.LOCK_EX)
        self.handle.seek(0)
        header = _parse(self.handle.readline())
        if header != {"settings": self.key}:  # new, or made under other settings: start over
            self.handle.truncate(0)
            self.handle.write(json.dumps({"settings": self.key}) + "\n")
        elif not self._ends_with_newline():  # a torn last line: never glue the next record to it
            self.handle.write("\n")
        self.handle.flush()
        return self

    def __exit__(self, *exc) -> None:
        self.handle.close()  # releases the lock

    def _ends_with_newline(self) -> bool:
        self.handle.seek(0, 2)
        size = self.handle.tell()
        if size == 0:
            return True
        with open(self.path, "rb") as raw:
            raw.seek(size - 1)
            return raw.read(1) == b"\n"

    def finished(self, entries: list[dict]) -> dict[str, dict]:
        """Successful records of unchanged entries (later lines win); failed ones are redone."""
        wanted = {e["id"]: entry_key(e) for e in entries}
        found = {}
        self.handle.seek(0)
        self.handle.readline()
        for line in self.handle:
            record = _parse(line)
            if (isinstance(record, dict) and record.get("error") is None
                    and wanted.get(record.get("id")) == record.get("input")):
                found[record["id"]] = {k: v for k, v in record.items() if k != "input"}
        return found

    def add(self, record: dict, entry: dict) -> None:
        self.handle.write(json.dumps({**record, "input": entry_key(entry)}, ensure_ascii=False) + "\n")
        self.handle.flush()

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


def translate_corpus(translator, entries: list[dict], out_path, store_path=None, settings: str = "",
                     label: str = "translate", timing_path=None) -> dict:
    """Translate what the store does not hold yet, write `out_path` and the timing file, return run metadata.

    `store_path` defaults to `<out_path>.partial`, `timing_path` to `<out_path stem>.timing.json`;
    `settings` identifies the method settings, and a store written under other settings is started afresh.
    """
    store_path = Path(store_path) if store_path else partial_path(out_path)
    timing_path = Path(timing_path) if timing_path else timing_sidecar(out_path)
    by_id = {e["id"]: e for e in entries}
    with RecordStore(store_path, settings) as store:
        records = store.finished(entries)
        resumed = len(records)
        resumed_seconds = sum(r.get("latency_s", 0.0) for r in records.values())
        todo = [e for e in entries if e["id"] not in records]
        started = time.perf_counter()
        progress = Progress(len(todo), label)
        for record in translator.translate(todo) if todo else ():
            row = record.to_dict()
            store.add(row, by_id[record.id])
            records[record.id] = row
            progress.advance()
        progress.close()
        for entry_id in by_id.keys() - records.keys():
            records[entry_id] = TranslationRecord(entry_id, None, None, error="the method returned no output").to_dict()
        ordered = [records[e["id"]] for e in entries]
        write_json_atomic(timing_path, {
            # wall time of this run plus the recorded latency of entries finished by earlier runs
            "elapsed_seconds": time.perf_counter() - started + resumed_seconds,
            "latency_s": {r["id"]: r.get("latency_s", 0.0) for r in ordered},
        })
        write_jsonl_atomic(out_path, [{k: v for k, v in r.items() if k not in TIMING_FIELDS} for r in ordered])
        errors = sum(r["error"] is not None for r in ordered)
        if not errors and not getattr(translator, "keeps_records", False):
            store.remove()
    return {
        "entries": len(entries),
        "resumed": resumed,
        "translated": len(todo),
        "errors": errors,
    }

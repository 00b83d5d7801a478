"""Runs a translation method over a corpus with resume: every record is appended to
`<output>.partial` as soon as it exists; a re-run keeps the successful ones and redoes the rest.
The final JSONL is written atomically, in corpus order, only when every entry has a record.
"""

import json
import time
from pathlib import Path

from lyss.io import write_jsonl_atomic
from lyss.progress import Progress
from lyss.translate.base import TranslationRecord


def partial_path(out_path) -> Path:
    out_path = Path(out_path)
    return out_path.with_name(out_path.name + ".partial")


def load_finished(path: Path, wanted_ids: set[str], settings_key: str) -> dict[str, dict]:
    """Successful records from an earlier run with the same settings; a torn last line, failed
    entries, and everything written under other settings (a changed model or prompt) are redone."""
    finished = {}
    if not path.exists():
        return finished
    with open(path, encoding="utf-8") as handle:
        header = handle.readline()
        if _parse(header) != {"settings": settings_key}:
            return finished
        for line in handle:
            record = _parse(line)
            if isinstance(record, dict) and record.get("id") in wanted_ids and record.get("error") is None:
                finished[record["id"]] = record
    return finished


def _parse(line: str):
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return None


def apply_hooks(record: TranslationRecord, entry: dict, hooks, target_card: dict) -> None:
    if record.prediction is None:
        return
    text = record.prediction
    for name, hook in hooks:
        repaired = hook(entry, text, target_card)
        if repaired != text:
            record.hooks_applied.append(name)
        text = repaired
    record.prediction = text


def translate_corpus(translator, entries: list[dict], out_path, hooks=(), target_card=None,
                     label: str = "translate", settings_key: str = "") -> dict:
    """Translate what is not done yet, write `out_path`, return run metadata (elapsed, counts).

    `settings_key` identifies the method settings; records in the partial file made under other
    settings are discarded. The partial file is kept while entries have errors, so a forced re-run
    (`snakemake --forcerun translate`) retries only those.
    """
    partial = partial_path(out_path)
    partial.parent.mkdir(parents=True, exist_ok=True)
    by_id = {e["id"]: e for e in entries}
    records = load_finished(partial, set(by_id), settings_key)
    resumed = len(records)
    resumed_seconds = sum(r.get("latency_s", 0.0) for r in records.values())
    todo = [e for e in entries if e["id"] not in records]
    started = time.perf_counter()
    progress = Progress(len(todo), label)
    if not records:
        partial.write_text(json.dumps({"settings": settings_key}) + "\n", encoding="utf-8")
    with open(partial, "a", encoding="utf-8") as sink:
        for record in translator.translate(todo):
            apply_hooks(record, by_id[record.id], hooks, target_card or {})
            row = record.to_dict()
            sink.write(json.dumps(row, ensure_ascii=False) + "\n")
            sink.flush()
            records[record.id] = row
            progress.advance()
    progress.close()
    for entry_id in by_id.keys() - records.keys():
        records[entry_id] = TranslationRecord(entry_id, None, None, error="the method returned no output").to_dict()
    ordered = [records[e["id"]] for e in entries]
    write_jsonl_atomic(out_path, ordered)
    errors = sum(r["error"] is not None for r in ordered)
    if not errors:
        partial.unlink()
    return {
        # wall time of this run plus the recorded latency of entries finished by earlier runs
        "elapsed_seconds": time.perf_counter() - started + resumed_seconds,
        "entries": len(entries),
        "resumed": resumed,
        "translated": len(todo),
        "errors": errors,
    }

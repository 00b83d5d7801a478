"""Baselines and outputs made elsewhere: `copy_source` and `precomputed`."""

import time
from pathlib import Path

from lyss.errors import InputError
from lyss.io import iter_jsonl
from lyss.translate.base import MethodContext, TranslationRecord


class CopySource:
    """Returns the source unchanged: what a system that does nothing scores."""

    def __init__(self, context: MethodContext):
        self.context = context

    def translate(self, entries):
        for entry in entries:
            yield TranslationRecord(entry["id"], entry["source"], entry["source"])


class Precomputed:
    """Reads system outputs made elsewhere: a text file with one line per corpus entry (in corpus
    order) or a JSONL file of `{"id": …, "prediction": …}` objects."""

    def __init__(self, context: MethodContext):
        path = context.options.get("path")
        if not path:
            raise InputError(context.source, "precomputed method needs 'path'", field=f"methods.{context.name}.path")
        self.path = Path(path)
        self.context = context

    def _load(self) -> dict[str, str]:
        if not self.path.exists():
            raise InputError(self.path, "precomputed output file does not exist")
        if self.path.suffix == ".jsonl":
            outputs = {}
            for line, obj in iter_jsonl(self.path):
                for key in ("id", "prediction"):
                    if key not in obj:
                        raise InputError(self.path, "missing required field", line=line, field=key)
                if str(obj["id"]) in outputs:
                    raise InputError(self.path, f"duplicate id {obj['id']!r}", line=line, field="id")
                outputs[str(obj["id"])] = obj["prediction"]
            return outputs
        lines = self.path.read_text(encoding="utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        ids = self.context.corpus_ids
        if len(lines) != len(ids):
            raise InputError(self.path, f"has {len(lines)} lines but the corpus has {len(ids)} entries")
        return dict(zip(ids, lines, strict=True))

    def translate(self, entries):
        started = time.perf_counter()
        outputs = self._load()
        latency = (time.perf_counter() - started) / max(len(entries), 1)
        for entry in entries:
            text = outputs.get(entry["id"])
            error = None if text is not None else f"no output for id {entry['id']!r} in {self.path}"
            yield TranslationRecord(entry["id"], text, text, latency_s=latency, error=error)

"""Baselines and outputs made elsewhere: `copy_source` and `precomputed`."""

import hashlib
import time
from pathlib import Path

from lyss.errors import InputError
from lyss.io import iter_jsonl
from lyss.translate.base import MethodContext, TranslationRecord


def precomputed_path(options: dict, dataset: str, source: str, method: str) -> str:
    """The file `paths` names for `dataset`; an InputError naming the key when there is none."""
    paths = options.get("paths")
    if "path" in options:
        raise InputError(source, "a precomputed method takes `paths: {<dataset>: <file>}` (one file per dataset)",
                         field=f"methods.{method}.path")
    if not isinstance(paths, dict) or not paths:
        raise InputError(source, "precomputed method needs `paths: {<dataset>: <file>}`",
                         field=f"methods.{method}.paths")
    if dataset not in paths:
        raise InputError(source, f"no file for dataset {dataset!r}", field=f"methods.{method}.paths")
    if not isinstance(paths[dataset], str) or not paths[dataset]:
        raise InputError(source, "expected a file path", field=f"methods.{method}.paths.{dataset}")
    return paths[dataset]


def read_precomputed(path, corpus_ids: list[str]) -> dict[str, str | None]:
    """{entry id: output} from a precomputed file: JSONL of `{"id", "prediction"}` objects, or text with one
    line per corpus entry, in corpus order. In JSONL a `null` prediction or an absent id is an entry the
    system failed on (counted as an error, as a method's failed call is); a prediction that is not text, or an
    id the corpus does not have (outputs of another corpus), is a mistake. Bad files are an InputError at
    their line, which the workflow also raises before its first job (lyss.config.check_inputs)."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, "precomputed output file does not exist")
    if path.suffix == ".jsonl":
        known, outputs = set(corpus_ids), {}
        for line, obj in iter_jsonl(path):
            for key in ("id", "prediction"):
                if key not in obj:
                    raise InputError(path, "missing required field", line=line, field=key)
            entry_id = str(obj["id"])
            if entry_id in outputs:
                raise InputError(path, f"duplicate id {obj['id']!r}", line=line, field="id")
            if entry_id not in known:
                raise InputError(path, f"unknown entry id {obj['id']!r} (not in the dataset's corpus)", line=line,
                                 field="id")
            if obj["prediction"] is not None and not isinstance(obj["prediction"], str):
                raise InputError(path, f"expected text or null, got {type(obj['prediction']).__name__} "
                                 f"{obj['prediction']!r}", line=line, field="prediction")
            outputs[entry_id] = obj["prediction"]
        return outputs
    lines = [line.rstrip() for line in path.read_text(encoding="utf-8").removeprefix("\ufeff").split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) != len(corpus_ids):
        raise InputError(path, f"has {len(lines)} lines but the corpus has {len(corpus_ids)} entries")
    return dict(zip(corpus_ids, lines, strict=True))


class CopySource:
    """Returns the source unchanged: what a system that does nothing scores."""

    field = "source"  # the entry field returned as the translation

    def __init__(self, context: MethodContext):
        self.context = context

    def translate(self, entries):
        for entry in entries:
            yield TranslationRecord(entry["id"], entry[self.field], entry[self.field])


class Precomputed:
    """Reads system outputs made elsewhere for one corpus: `paths: {<dataset>: <file>}` names, per dataset,
    a text file with one line per corpus entry (in corpus order) or a JSONL file of
    `{"id": …, "prediction": …}` objects. One file per dataset, because outputs of one corpus scored
    against another are all wrong (lyss.translate.eligibility skips datasets without a file)."""

    def __init__(self, context: MethodContext):
        self.path = Path(precomputed_path(context.options, context.dataset, context.source, context.name))
        self.context = context

    def record_settings(self) -> dict:
        """The options and the file's content: records made from an older version of the file (an entry it
        failed on, a value since corrected) are never reused once the file changes."""
        digest = hashlib.sha256(self.path.read_bytes()).hexdigest() if self.path.exists() else None
        return {**self.context.options, "file_sha256": digest}

    def translate(self, entries):
        started = time.perf_counter()
        outputs = read_precomputed(self.path, self.context.corpus_ids)
        latency = (time.perf_counter() - started) / max(len(entries), 1)
        for entry in entries:
            text = outputs.get(entry["id"])
            error = None if text is not None else f"no output for id {entry['id']!r} in {self.path}"
            yield TranslationRecord(entry["id"], text, text, latency_s=latency, error=error)

"""Corpus entries and dataset cards: loading, validation, NFC normalisation and a content fingerprint.

A corpus is JSONL, one entry per line. Validation happens here, before any expensive step, and every
problem is reported with the file, the line and the field so a user can fix it without guessing.
"""

import hashlib
import json
import unicodedata
from collections.abc import Mapping
from pathlib import Path

import yaml

from lyss.errors import InputError
from lyss.io import iter_jsonl
from lyss.languages import is_known_language
from lyss.settings import Limits

REQUIRED_FIELDS = ("id", "source", "reference")
TEXT_FIELDS = ("source", "reference", "notes", "provenance")
KNOWN_FIELDS = set(REQUIRED_FIELDS) | {
    "variants", "difficulty", "provenance", "glossary", "notes", "morphology", "human_score", "references",
}
DIFFICULTY_RANGE = (1, 5)
# params.yaml `limits` (docs/settings.md; its defaults are the schema's, lyss.settings.Limits). An entry's
# length bounds every metric's memory: sacrebleu's TER builds a word-by-word edit matrix (≈ 70 MB at 10,000
# characters, hundreds of GB at 1 MB), so an oversized entry is refused here, before any job, rather than
# killed an hour later.


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _check_string(path, line, field, value, allow_empty=False) -> str:
    if not isinstance(value, str):
        raise InputError(path, f"expected a string, got {type(value).__name__}", line=line, field=field)
    if not allow_empty and not value.strip():
        raise InputError(path, "must not be empty", line=line, field=field)
    return nfc(value)


def _check_length(path, line: int, raw: dict, max_chars: int) -> None:
    """Every text of the entry (source, reference, variants, notes, glossary terms…) within the limit."""
    def texts(value, field):
        if isinstance(value, str):
            yield field, value
        elif isinstance(value, list):
            for item in value:
                yield from texts(item, field)
        elif isinstance(value, dict):
            for item in value.values():
                yield from texts(item, field)

    for field, value in raw.items():
        for name, text in texts(value, field):
            if len(text) > max_chars:
                raise InputError(path, f"{len(text):,} characters, over the limit of {max_chars:,} "
                                 "(params.yaml limits.max_entry_chars; split the entry or raise the limit)",
                                 line=line, field=name)


def morphology_problem(annotations) -> str | None:
    """Why a `morphology` field is malformed, or None. Format: a list of {"analysis": str, "form"?: str};
    each item asks that some word of the prediction (the word `form`, when given) has that analysis."""
    if not isinstance(annotations, list):
        return "expected a list of {analysis, form?} objects"
    for item in annotations:
        if not isinstance(item, dict) or not isinstance(item.get("analysis"), str) or not item["analysis"]:
            return "each item needs a non-empty string 'analysis'"
        if set(item) - {"analysis", "form"} or not isinstance(item.get("form", ""), str):
            return "items may only have 'analysis' and an optional string 'form'"
    return None


def validate_entry(path, line: int, raw: dict, max_chars: int | None = None) -> dict:
    """Return a normalised copy of one corpus entry or raise InputError naming the faulty field."""
    for field in REQUIRED_FIELDS:
        if field not in raw:
            raise InputError(path, "missing required field", line=line, field=field)
    for field in raw:
        if field not in KNOWN_FIELDS:
            raise InputError(path, f"unknown field (a misspelling?); known: {', '.join(sorted(KNOWN_FIELDS))}",
                             line=line, field=field)
    if max_chars is not None:
        _check_length(path, line, raw, max_chars)
    entry = dict(raw)
    entry_id = raw["id"]
    if isinstance(entry_id, bool) or not isinstance(entry_id, (str, int)) or str(entry_id).strip() == "":
        raise InputError(path, "must be a non-empty string or integer", line=line, field="id")
    entry["id"] = nfc(str(entry_id))
    entry["source"] = _check_string(path, line, "source", raw["source"])
    entry["reference"] = _check_string(path, line, "reference", raw["reference"], allow_empty=True)
    if "references" in raw:
        references = raw["references"]
        if not isinstance(references, list) or not references:
            raise InputError(path, "expected a non-empty list of strings (every reference, `reference` first)",
                             line=line, field="references")
        entry["references"] = [_check_string(path, line, "references", r, allow_empty=True) for r in references]
        if entry["references"][0] != entry["reference"]:
            raise InputError(path, "the first of `references` must be `reference`", line=line, field="references")
    for field in ("notes", "provenance"):
        if field in raw and raw[field] is not None:
            entry[field] = _check_string(path, line, field, raw[field], allow_empty=True)
    variants = raw.get("variants", [])
    if not isinstance(variants, list):
        raise InputError(path, "expected a list of strings", line=line, field="variants")
    entry["variants"] = [_check_string(path, line, "variants", v) for v in variants]
    difficulty = raw.get("difficulty")
    if difficulty is not None:
        low, high = DIFFICULTY_RANGE
        if isinstance(difficulty, bool) or not isinstance(difficulty, int) or not low <= difficulty <= high:
            raise InputError(path, f"must be an integer from {low} to {high}, got {difficulty!r}",
                             line=line, field="difficulty")
    entry["difficulty"] = difficulty
    glossary = raw.get("glossary", [])
    if not isinstance(glossary, list):
        raise InputError(path, "expected a list of {source, target} objects", line=line, field="glossary")
    entry["glossary"] = []
    for term in glossary:
        if not isinstance(term, dict) or not {"source", "target"} <= term.keys():
            raise InputError(path, "each term needs 'source' and 'target'", line=line, field="glossary")
        entry["glossary"].append({k: _check_string(path, line, "glossary", term[k]) for k in ("source", "target")})
    if "morphology" in raw:
        problem = morphology_problem(raw["morphology"])
        if problem:
            raise InputError(path, problem, line=line, field="morphology")
    return entry


def load_corpus(path, limits: Limits | None = None) -> list[dict]:
    """Load and validate a corpus JSONL file; duplicate ids are an error naming both lines. `limits`:
    params.yaml `limits` (None: the schema's defaults); the entry count is checked while reading, so an
    oversized file is refused without being held in memory."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, "corpus file does not exist")
    return validated_entries(path, iter_jsonl(path), limits)


def validated_entries(path, rows, limits: Limits | None = None) -> list[dict]:
    """Validate (line, raw entry) rows read from `path` (JSONL, or plain text by lyss.prep.folders)."""
    limits = limits or Limits.of()
    entries, seen = [], {}
    for line, raw in rows:
        if len(entries) == limits.max_entries:
            raise InputError(path, f"more than {limits.max_entries:,} entries (params.yaml limits.max_entries; "
                             "split the corpus or raise the limit)", line=line)
        entry = validate_entry(path, line, raw, limits.max_entry_chars)
        if entry["id"] in seen:
            raise InputError(path, f"duplicate id {entry['id']!r} (first on line {seen[entry['id']]})",
                             line=line, field="id")
        seen[entry["id"]] = line
        entries.append(entry)
    if not entries:
        raise InputError(path, "corpus has no entries")
    return entries


def load_dataset_card(path, language_cards: Mapping) -> dict:
    """Load `dataset.yaml`: id, language_pair (ISO 639-3 `src-tgt`), licence, citation."""
    path = Path(path)
    try:
        card = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(path, "dataset card does not exist") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise InputError(path, f"malformed YAML ({getattr(err, 'problem', err)})",
                         line=mark.line + 1 if mark else None) from None
    if not isinstance(card, dict):
        raise InputError(path, "expected a mapping")
    for field in ("id", "language_pair", "licence", "citation"):
        if not card.get(field):
            raise InputError(path, "missing required field", field=field)
    pair = str(card["language_pair"])
    parts = pair.split("-")
    if len(parts) != 2:
        raise InputError(path, f"expected 'src-tgt' ISO 639-3 codes, got {pair!r}", field="language_pair")
    for code in parts:
        if not is_known_language(code, language_cards):
            raise InputError(path, f"unknown language code {code!r} (not ISO 639-3 and no language card)",
                             field="language_pair")
    card["source_lang"], card["target_lang"] = parts
    return card


def fingerprint(entries: list[dict]) -> str:
    """SHA-256 of the normalised entries, independent of key order and file formatting."""
    digest = hashlib.sha256()
    for entry in entries:
        digest.update(json.dumps(entry, sort_keys=True, ensure_ascii=False).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def read_prepared(path) -> list[dict]:
    """Read a corpus that `prep` already validated (results/corpora/<dataset>.jsonl)."""
    return [obj for _, obj in iter_jsonl(path)]

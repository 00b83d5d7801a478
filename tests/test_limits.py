"""Bounded input (params.yaml `limits`): prep refuses an oversized entry or corpus with the file, line and
field, before any metric's memory can grow with it (TER's grows with the square of an entry's length)."""

import json

import pytest

from lyss.errors import InputError
from lyss.prep.corpus import load_corpus
from lyss.settings import Limits


def corpus(tmp_path, rows) -> str:
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def entry(i, text="Hello"):
    return {"id": str(i), "source": text, "reference": text}


def test_defaults_are_ten_thousand_characters_and_a_million_entries():
    assert Limits.of() == Limits(max_entry_chars=10_000, max_entries=1_000_000)


def test_an_entry_at_the_limit_passes_and_one_character_more_fails(tmp_path):
    assert len(load_corpus(corpus(tmp_path, [entry(1, "x" * 50)]), Limits.of({"max_entry_chars": 50}))) == 1
    with pytest.raises(InputError) as caught:
        load_corpus(corpus(tmp_path, [entry(1), entry(2, "x" * 51)]), Limits.of({"max_entry_chars": 50}))
    assert str(caught.value) == (f"{tmp_path / 'corpus.jsonl'}:2: field 'source': 51 characters, over the limit of "
                                 "50 (params.yaml limits.max_entry_chars; split the entry or raise the limit)")


def test_glossary_terms_and_notes_count_too(tmp_path):
    row = {**entry(1), "glossary": [{"source": "a", "target": "b" * 21}]}
    with pytest.raises(InputError, match="field 'glossary': 21 characters"):
        load_corpus(corpus(tmp_path, [row]), Limits.of({"max_entry_chars": 20}))
    with pytest.raises(InputError, match="field 'notes': 21 characters"):
        load_corpus(corpus(tmp_path, [{**entry(1), "notes": "n" * 21}]), Limits.of({"max_entry_chars": 20}))


def test_a_corpus_over_max_entries_fails_at_the_first_entry_too_many(tmp_path):
    path = corpus(tmp_path, [entry(i) for i in range(1, 5)])
    assert len(load_corpus(path, Limits.of({"max_entries": 4}))) == 4
    with pytest.raises(InputError) as caught:
        load_corpus(path, Limits.of({"max_entries": 3}))
    assert (caught.value.line, caught.value.field) == (4, None)
    assert caught.value.problem.startswith("more than 3 entries (params.yaml limits.max_entries")

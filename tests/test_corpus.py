"""Corpus and dataset-card validation: every error names the file, the line and the field."""

import json
import unicodedata

import pytest

from lyss.errors import InputError
from lyss.prep.corpus import fingerprint, load_corpus, load_dataset_card


def write_lines(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def entry(**fields):
    base = {"id": "e1", "source": "Hello.", "reference": "Hola."}
    base.update(fields)
    return json.dumps(base, ensure_ascii=False)


def error_for(tmp_path, lines) -> InputError:
    path = write_lines(tmp_path / "corpus.jsonl", lines)
    with pytest.raises(InputError) as caught:
        load_corpus(path)
    return caught.value


def test_valid_corpus_loads_with_defaults(tmp_path):
    path = write_lines(tmp_path / "corpus.jsonl", [entry(), entry(id="e2", difficulty=3, variants=["¡Hola!"])])
    entries = load_corpus(path)
    assert [e["id"] for e in entries] == ["e1", "e2"]
    assert entries[0]["variants"] == [] and entries[0]["glossary"] == [] and entries[0]["difficulty"] is None
    assert entries[1]["difficulty"] == 3


def test_malformed_json_names_line(tmp_path):
    err = error_for(tmp_path, [entry(), '{"id": "e2", "source": '])
    assert err.line == 2 and "malformed JSON" in str(err) and "corpus.jsonl:2" in str(err)
    assert "at the end of the line" in str(err)


def test_malformed_json_names_the_column_counted_from_the_line_start(tmp_path):
    # the 13th character of the line is the second string, where a comma should be
    err = error_for(tmp_path, [entry(), '{"id": "e2" "source": "a", "reference": "b"}'])
    assert err.line == 2 and "Expecting ',' delimiter at column 13" in str(err)


@pytest.mark.parametrize("field", ["id", "source", "reference"])
def test_missing_required_field(tmp_path, field):
    raw = {"id": "e1", "source": "a", "reference": "b"}
    del raw[field]
    err = error_for(tmp_path, [json.dumps(raw)])
    assert (err.line, err.field) == (1, field) and "missing required field" in str(err)


def test_duplicate_id_names_both_lines(tmp_path):
    err = error_for(tmp_path, [entry(), entry(id="e2"), entry()])
    assert err.line == 3 and err.field == "id" and "first on line 1" in str(err)


def test_empty_source(tmp_path):
    err = error_for(tmp_path, [entry(source="   ")])
    assert err.field == "source" and "empty" in str(err)


@pytest.mark.parametrize("value", [0, 6, "3", 2.5, True])
def test_difficulty_out_of_range(tmp_path, value):
    err = error_for(tmp_path, [entry(difficulty=value)])
    assert err.field == "difficulty" and err.line == 1


def test_glossary_terms_need_source_and_target(tmp_path):
    err = error_for(tmp_path, [entry(glossary=[{"source": "file"}])])
    assert err.field == "glossary"


def test_nfc_normalisation(tmp_path):
    decomposed = unicodedata.normalize("NFD", "canción")
    assert decomposed != "canción"
    path = write_lines(tmp_path / "corpus.jsonl", [entry(reference=decomposed)])
    assert load_corpus(path)[0]["reference"] == "canción"


def test_fingerprint_ignores_key_order_but_not_content(tmp_path):
    a = load_corpus(write_lines(tmp_path / "a.jsonl", ['{"id": "1", "source": "x", "reference": "y"}']))
    b = load_corpus(write_lines(tmp_path / "b.jsonl", ['{"reference": "y", "source": "x", "id": "1"}']))
    c = load_corpus(write_lines(tmp_path / "c.jsonl", ['{"id": "1", "source": "x", "reference": "z"}']))
    assert fingerprint(a) == fingerprint(b) != fingerprint(c)


def test_dataset_card_unknown_language(tmp_path):
    card = tmp_path / "dataset.yaml"
    card.write_text("id: d\nlanguage_pair: eng-xqq\nlicence: CC0-1.0\ncitation: me\n")
    with pytest.raises(InputError) as caught:
        load_dataset_card(card, {})
    assert caught.value.field == "language_pair" and "xqq" in str(caught.value)


def test_dataset_card_accepts_iso_code_without_card(tmp_path):
    card = tmp_path / "dataset.yaml"
    card.write_text("id: d\nlanguage_pair: eng-deu\nlicence: CC0-1.0\ncitation: me\n")
    assert load_dataset_card(card, {})["target_lang"] == "deu"


def test_dataset_card_missing_field_and_bad_yaml(tmp_path):
    card = tmp_path / "dataset.yaml"
    card.write_text("id: d\nlanguage_pair: eng-spa\ncitation: me\n")
    with pytest.raises(InputError, match="licence"):
        load_dataset_card(card, {})
    card.write_text("id: [d\n")
    with pytest.raises(InputError, match="malformed YAML"):
        load_dataset_card(card, {})


def test_demo_corpus_is_valid_and_large_enough():
    entries = load_corpus("data/corpora/demo_eng_spa/corpus.jsonl")
    assert len(entries) >= 150
    assert {e["difficulty"] for e in entries} == {1, 2, 3, 4, 5}
    assert sum("{" in e["source"] for e in entries) >= 10
    assert sum(bool(e["variants"]) for e in entries) >= 20
    assert sum(bool(e["glossary"]) for e in entries) >= 20


def test_malformed_morphology_is_caught_at_prep(tmp_path):
    err = error_for(tmp_path, [entry(morphology=[{"form": "perros"}])])
    assert (err.line, err.field) == (1, "morphology") and "analysis" in str(err)


def test_unknown_field_is_an_error_not_silently_ignored(tmp_path):
    err = error_for(tmp_path, [entry(), entry(id="e2", varaints=["Hola"])])
    assert (err.line, err.field) == (2, "varaints") and "unknown field" in str(err)

"""Post-translation repair hooks: each repair on hand-built strings, and the runner keeping raw + repaired."""

import json
from pathlib import Path

import pytest

from lyss.errors import InputError
from lyss.translate.hooks import (
    fix_quotes,
    quote_positions,
    remove_latin_leakage,
    resolve_hooks,
    restore_placeholders,
)
from lyss.translate.jobs import run_postprocess, run_translation

ROOT = Path(__file__).resolve().parents[1]

SPANISH = {"code": "spa", "scripts": ["Latn"], "quotes": {"primary": ["«", "»"], "secondary": ["“", "”"]}}
CREE_SYLLABICS = {"code": "xxx", "scripts": ["Cans"], "caseless": True}


def test_restore_placeholders_swaps_translated_variables_in_order():
    entry = {"source": "{name} sent {count} files."}
    assert restore_placeholders(entry, "{nombre} envió {cuenta} archivos.", {}) == "{name} envió {count} archivos."
    # a translated variable with a space inside is still a placeholder
    assert restore_placeholders(entry, "{el nombre} envió {count} archivos.", {}) == "{name} envió {count} archivos."
    assert restore_placeholders(entry, "{name} envió {count} archivos.", {}) == "{name} envió {count} archivos."


def test_fix_quotes_uses_the_card_pairs_with_nesting():
    assert fix_quotes({}, 'Pulsa "Iniciar".', SPANISH) == "Pulsa «Iniciar»."
    assert fix_quotes({}, 'Dijo: “a ‘b’ c”.', SPANISH) == "Dijo: «a “b” c»."
    assert fix_quotes({}, '"Sí," dijo, "vale."', SPANISH) == "«Sí,» dijo, «vale.»"


def test_fix_quotes_leaves_apostrophes_correct_text_and_cardless_targets_alone():
    assert fix_quotes({}, "l’eau y don't", SPANISH) == "l’eau y don't"
    assert fix_quotes({}, "Pulsa «Iniciar».", SPANISH) == "Pulsa «Iniciar»."
    assert fix_quotes({}, 'Pulsa "Iniciar".', {"code": "xxx", "scripts": ["Latn"]}) == 'Pulsa "Iniciar".'


def test_quote_positions_skip_apostrophes():
    # ’ between letters is an apostrophe; the ASCII ' is never a quotation mark
    assert quote_positions("‘it’s’ 'x'") == [0, 5]


def test_remove_latin_leakage_in_caseless_script():
    text = "ᓂᐲᐤ hello-there ᐊᒋᒧᐢ, world {name} IB3456 https://lyss.example/a ᓂᐲᐤ."
    assert remove_latin_leakage({}, text, CREE_SYLLABICS) == "ᓂᐲᐤ ᐊᒋᒧᐢ, {name} IB3456 https://lyss.example/a ᓂᐲᐤ."
    assert remove_latin_leakage({}, "ᓂᐲᐤ ok.", CREE_SYLLABICS) == "ᓂᐲᐤ."


def test_remove_latin_leakage_only_where_latin_is_foreign():
    assert remove_latin_leakage({}, "hola world", SPANISH) == "hola world"
    both = {"code": "crk", "scripts": ["Latn", "Cans"], "caseless": True}
    assert remove_latin_leakage({}, "ᓂᐲᐤ nipâw", both) == "ᓂᐲᐤ nipâw"


def test_unknown_hook_names_the_method():
    with pytest.raises(InputError, match="methods.m.postprocess"):
        resolve_hooks(["fix_quotes", "no_such_hook"], "params.yaml", "m")


def prepared_corpus(folder, entries):
    """A corpus as rule `prep` leaves it: the entries and a meta file naming the language pair."""
    (folder / "corpus.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    meta = {"dataset": {"id": "d", "source_lang": "eng", "target_lang": "spa"}}
    (folder / "corpus.meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return folder / "corpus.jsonl", folder / "corpus.meta.json"


def test_postprocess_repairs_on_top_of_the_raw_output_and_prices_it(tmp_path):
    entries = [{"id": "a", "source": 'Press "Start".'}, {"id": "b", "source": "Hi {name}"}]
    corpus, meta = prepared_corpus(tmp_path, entries)
    raw, raw_meta = tmp_path / "raw.jsonl", tmp_path / "raw.meta.json"
    run_translation(corpus, meta, "m", {"kind": "copy_source", "postprocess": ["fix_quotes"]},
                    tmp_path / "records", raw, raw_meta)
    raw_text = raw.read_text()
    out, out_meta = tmp_path / "out.jsonl", tmp_path / "out.meta.json"
    # 1,000,000 prompt tokens at $2 would cost $2; copy_source reports no tokens, so it costs nothing
    result = run_postprocess(corpus, meta, raw, raw_meta, "m", ["restore_placeholders", "fix_quotes"],
                             {"input_per_1m": 2.0}, ROOT / "data/languages", out, out_meta)
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["a"]["raw_prediction"] == 'Press "Start".'
    assert rows["a"]["prediction"] == "Press «Start»."
    assert rows["a"]["hooks_applied"] == ["fix_quotes"] and rows["a"]["cost_usd"] == 0.0
    assert rows["b"]["prediction"] == "Hi {name}" and rows["b"]["hooks_applied"] == []
    assert result["hooks_applied"] == {"restore_placeholders": 0, "fix_quotes": 1}
    assert raw.read_text() == raw_text  # the raw output is never rewritten by post-processing
    assert [json.loads(line)["prediction"] for line in raw_text.splitlines()] == ['Press "Start".', "Hi {name}"]


def test_postprocess_prices_token_counts(tmp_path):
    corpus, meta = prepared_corpus(tmp_path, [{"id": "a", "source": "x"}])
    raw, raw_meta = tmp_path / "raw.jsonl", tmp_path / "raw.meta.json"
    record = {"id": "a", "prediction": "y", "raw_prediction": "y", "prompt_tokens": 1000, "cached_tokens": 400,
              "completion_tokens": 100, "cost_usd": 0.0, "error": None}
    raw.write_text(json.dumps(record) + "\n")
    raw_meta.write_text("{}")
    price = {"input_per_1m": 2.0, "cached_per_1m": 0.5, "output_per_1m": 8.0}
    run_postprocess(corpus, meta, raw, raw_meta, "m", [], price, ROOT / "data/languages", tmp_path / "o.jsonl",
                    tmp_path / "o.meta.json")
    # 600 uncached × $2 + 400 cached × $0.5 + 100 out × $8, per million tokens = $0.0022
    assert json.loads((tmp_path / "o.jsonl").read_text())["cost_usd"] == pytest.approx(0.0022)



"""Post-translation repair hooks: each repair on hand-built strings, and the runner keeping raw + repaired."""

import json

import pytest

from lyss.errors import InputError
from lyss.translate import MethodContext, build_translator
from lyss.translate.hooks import fix_quotes, quote_positions, remove_latin_leakage, resolve_hooks, restore_placeholders
from lyss.translate.runner import translate_corpus

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


def test_runner_keeps_raw_and_repaired_output(tmp_path):
    entries = [{"id": "a", "source": 'Press "Start".'}, {"id": "b", "source": "Hi {name}"}]
    context = MethodContext("m", {}, "eng", "spa", corpus_ids=["a", "b"])
    hooks = resolve_hooks(["restore_placeholders", "fix_quotes"], "params.yaml", "m")
    out = tmp_path / "out.jsonl"
    translate_corpus(build_translator("copy_source", context), entries, out, hooks, SPANISH)
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["a"]["raw_prediction"] == 'Press "Start".'
    assert rows["a"]["prediction"] == "Press «Start»."
    assert rows["a"]["hooks_applied"] == ["fix_quotes"]
    assert rows["b"]["prediction"] == "Hi {name}" and rows["b"]["hooks_applied"] == []

"""Language cards: schema, the shipped cards, resolve_comet_model, plugin discovery, and the shared
word tokenisation (`lyss.text.words`) that every word-level metric uses."""

from pathlib import Path

import pytest
import yaml

from lyss.errors import InputError
from lyss.eval_standards.crk.metrics import CrkLinterMetric
from lyss.languages import DEFAULT_COMET_MODEL, language_plugin, load_card, load_cards, resolve_comet_model
from lyss.metrics import resolve_metric
from lyss.metrics.equivalence import EquivalentMatch
from lyss.text import words

CARDS = Path("data/languages")
AFRICOMET = "masakhane/africomet-mtl"
CRK_MODULE = "lyss.eval_standards.crk.metrics"


@pytest.fixture(scope="module")
def cards():
    return load_cards(CARDS)


def test_shipped_cards_validate_and_include_eng_spa_crk(cards):
    assert {"eng", "spa", "crk"} <= cards.keys()
    assert cards["crk"]["fst_analyzer"]["backend"] == "hfstol"
    spa_bin = "/usr/share/apertium/apertium-eng-spa/spa-eng.automorf.bin"
    assert cards["spa"]["fst_analyzer"] == {"backend": "lttoolbox", "path": spa_bin}


def test_35_african_cards_resolve_to_africomet(cards):
    african = [c for c in cards.values() if (c.get("metricModelSupport") or {}).get("comet") == AFRICOMET]
    assert len(african) == 35
    assert {"yor", "hau", "ibo", "amh", "swa", "kin", "lug", "wol"} <= {c["code"] for c in african}
    assert all(resolve_comet_model(c) == AFRICOMET for c in african)


def test_resolve_comet_model_default_and_override(cards):
    assert resolve_comet_model(cards["spa"]) == DEFAULT_COMET_MODEL == "Unbabel/wmt22-comet-da"
    assert resolve_comet_model(None) == DEFAULT_COMET_MODEL
    assert resolve_comet_model(cards["yor"], override="my/comet") == "my/comet"


def write_card(tmp_path, text, code="xyz"):
    path = tmp_path / f"{code}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_schema_rejects_unknown_backend_naming_the_field(tmp_path):
    text = "code: xyz\nname: X\nscripts: [Latn]\nfst_analyzer: {backend: foma, path: a}\n"
    path = write_card(tmp_path, text)
    with pytest.raises(InputError, match=r"fst_analyzer\.backend"):
        load_card(path)


def test_schema_rejects_inline_orthography_without_letters(tmp_path):
    path = write_card(tmp_path, "code: xyz\nname: X\nscripts: [Latn]\northography: {name: only a name}\n")
    with pytest.raises(InputError, match="orthography"):
        load_card(path)


def test_card_code_must_match_file_name(tmp_path):
    path = write_card(tmp_path, "code: abc\nname: X\nscripts: [Latn]\n", code="xyz")
    with pytest.raises(InputError, match="does not match the file name"):
        load_card(path)


def test_declared_plugin_replaces_the_generic_metric(cards):
    assert isinstance(resolve_metric("equivalent_match_rate", cards["crk"]), CrkLinterMetric)
    generic = resolve_metric("equivalent_match_rate", cards["spa"])
    assert type(generic) is EquivalentMatch
    assert type(resolve_metric("equivalent_match_rate", None)) is EquivalentMatch


def test_plugin_that_fails_to_load_is_a_hard_error_naming_card_and_module():
    plugin = {"metric": "equivalent_match_rate", "module": "lyss.no_such_module", "class": "Nope"}
    card = {"code": "zzz", "evalMetrics": [plugin]}
    with pytest.raises(InputError, match=r"language card 'zzz'.*lyss\.no_such_module"):
        resolve_metric("equivalent_match_rate", card)


def test_plugin_with_another_metric_id_is_rejected():
    plugin = {"metric": "fst_acceptance_rate", "module": CRK_MODULE, "class": "CrkLinterMetric"}
    card = {"code": "zzz", "evalMetrics": [plugin]}
    with pytest.raises(InputError, match="not a metric with id 'fst_acceptance_rate'"):
        language_plugin(card, "fst_acceptance_rate")


def test_crk_card_declares_its_plugins_as_data():
    card = yaml.safe_load((CARDS / "crk.yaml").read_text(encoding="utf-8"))
    assert card["evalMetrics"] == [{"metric": "equivalent_match_rate", "module": CRK_MODULE,
                                    "class": "CrkLinterMetric"}]


@pytest.mark.parametrize(("text", "expected"), [
    ("Hola, ¿qué tal?", ["Hola", "qué", "tal"]),
    ("{name} ha subido 3 archivos a las 14:45.", ["ha", "subido", "archivos", "a", "las"]),
    ("Vuelo IB3456, puerta B12", ["Vuelo", "puerta"]),
    ("Véase https://lyss.example/a?b=1 o escriba a ayuda@lyss.example", ["Véase", "o", "escriba", "a"]),
    ("l'homme d’affaires — bien-être", ["l'homme", "d’affaires", "bien-être"]),
    ("... !!! 42 — ¿?", []),
    ("", []),
    ("ᓂᐹᐤ ᐊᑎᒼ", ["ᓂᐹᐤ", "ᐊᑎᒼ"]),
    ("e\u0302-nipa\u0302t", ["ê-nipât"]),  # decomposed input comes out NFC
])
def test_words_default_rules(text, expected):
    assert words(text, {}) == expected


def test_words_follow_the_card():
    # crk joins with hyphens only: an apostrophe splits; extra letters count as letters.
    assert words("ê-nipât l'atim", {"word_tokenisation": {"joiners": ["-"]}}) == ["ê-nipât", "l", "atim"]
    assert words("Sḵwx̱wú7mesh 7", {"word_tokenisation": {"extra_letters": ["7"]}}) == ["Sḵwx̱wú7mesh"]
    assert words("Sḵwx̱wú7mesh", {}) == []  # without the declaration, a token with a digit is a code
    assert words("a-b", {"word_tokenisation": {"joiners": []}}) == ["a", "b"]

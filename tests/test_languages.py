"""Language cards: schema, the shipped cards, resolve_comet_model, plugin discovery, and the shared
word tokenisation (`lyss.text.words`) that every word-level metric uses."""

from pathlib import Path

import pytest
import yaml

from lyss.errors import InputError
from lyss.eval_standards.crk.metrics import CrkLinterMetric
from lyss.languages import (
    DEFAULT_COMET_MODEL,
    card_for,
    card_provenance,
    cldr_locale,
    language_plugin,
    load_card,
    load_cards,
    provenance_warning,
    resolve_comet_model,
)
from lyss.metrics import resolve_metric
from lyss.metrics.equivalence import EquivalentMatch
from lyss.text import words

CARDS = Path("data/languages")
AFRICOMET = "masakhane/africomet-mtl"
CRK_MODULE = "lyss.eval_standards.crk.metrics"


@pytest.fixture(scope="module")
def cards():
    return load_cards(CARDS)


def test_a_card_is_read_when_asked_for_and_a_broken_one_named_then(tmp_path):
    """A Snakemake start asks for its datasets' cards only; a broken card of another language stops nothing
    until it is asked for, and then names its file and field."""
    (tmp_path / "deu.yaml").write_text((CARDS / "deu.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "fra.yaml").write_text("code: fra\nscripts: 7\n", encoding="utf-8")
    cards = load_cards(tmp_path)
    assert sorted(cards) == ["deu", "fra"] and "guj" not in cards and len(cards) == 2
    assert cards["deu"]["code"] == "deu" and cards.get("guj")["code"] == "guj"  # no file: the CLDR card
    with pytest.raises(InputError, match=r"fra\.yaml"):
        cards["fra"]


def test_shipped_cards_validate_and_include_eng_spa_crk(cards):
    assert {"eng", "spa", "crk"} <= cards.keys()
    assert cards["crk"]["fst_analyzer"]["backend"] == "hfstol"
    spa_bin = "/usr/share/apertium/apertium-spa-cat/spa-cat.automorf.bin"
    assert cards["spa"]["fst_analyzer"] == {"backend": "lttoolbox", "path": spa_bin, "package": "apertium-spa-cat"}


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


def test_a_card_read_again_follows_its_file_and_is_a_copy(tmp_path):
    path = write_card(tmp_path, "code: xyz\nname: First\nscripts: [Latn]\n")
    first = load_card(path)
    first["name"] = "changed by a caller"
    assert load_card(path)["name"] == "First"  # remembered, but every caller gets its own copy
    path.write_text("code: xyz\nname: Second\nscripts: [Latn]\n", encoding="utf-8")
    assert load_card(path)["name"] == "Second"  # an edit in place is read again
    path.write_text("code: xyz\nname: [\n", encoding="utf-8")
    with pytest.raises(InputError, match="malformed YAML"):
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


# The writing systems of a dozen major languages (ISO 15924; Japanese and Korean are written in several
# Unicode scripts), casing (Latin, Cyrillic and Greek have capitals; the others none), and the primary
# quotation marks of each language's typography, as CLDR records them.
MAJOR_LANGUAGES = {
    "deu": ("German", ["Latn"], False, ["„", "“"]), "fra": ("French", ["Latn"], False, ["«", "»"]),
    "rus": ("Russian", ["Cyrl"], False, ["«", "»"]), "ara": ("Arabic", ["Arab"], True, ["”", "“"]),
    "hin": ("Hindi", ["Deva"], True, ["“", "”"]), "jpn": ("Japanese", ["Hani", "Hira", "Kana"], True, ["「", "」"]),
    "kor": ("Korean", ["Hang", "Hani"], True, ["“", "”"]), "tur": ("Turkish", ["Latn"], False, ["“", "”"]),
    "vie": ("Vietnamese", ["Latn"], False, ["“", "”"]), "ell": ("Greek", ["Grek"], False, ["«", "»"]),
    "heb": ("Hebrew", ["Hebr"], True, ["”", "”"]), "tha": ("Thai", ["Thai"], True, ["“", "”"]),
}


@pytest.mark.parametrize("code", sorted(MAJOR_LANGUAGES))
def test_a_language_without_card_file_gets_its_card_from_cldr(code, tmp_path):
    name, scripts, caseless, quotes = MAJOR_LANGUAGES[code]
    card = card_for(code, tmp_path)
    assert (card["code"], card["name"], card["scripts"], card["caseless"]) == (code, name, scripts, caseless)
    assert card["quotes"]["primary"] == quotes
    provenance = card_provenance(card)
    assert provenance["card"] == "derived from CLDR" and provenance["file"] == str(tmp_path / f"{code}.yaml")
    assert provenance["cldr"].startswith(f"{cldr_locale(code)} (CLDR ")


def test_cards_mapping_answers_every_code_without_pretending_it_has_a_file(cards):
    assert cards.get("vie")["scripts"] == ["Latn"] and cards["tha"]["scripts"] == ["Thai"]
    assert "vie" not in cards and len(cards) == len(list(CARDS.glob("*.yaml")))


def test_iso_639_3_codes_map_to_cldr_through_its_alias_table():
    # 639-3 individual language and 639-2/B codes that CLDR files under other codes
    assert {c: cldr_locale(c) for c in ("deu", "fra", "yor", "sme", "arb", "swh", "ger", "crk")} == {
        "deu": "de", "fra": "fr", "yor": "yo", "sme": "se", "arb": "ar", "swh": "sw", "ger": "de", "crk": "crk"}
    assert cldr_locale("qaa") is None  # reserved for local use: no CLDR data


def test_card_file_is_merged_over_cldr_and_says_which_facts_came_from_where(cards):
    yor = cards["yor"]
    assert yor["metricModelSupport"]["comet"] == AFRICOMET and yor["quotes"]["primary"] == ["“", "”"]
    assert card_provenance(yor) == {"card": "file", "file": "data/languages/yor.yaml",
                                    "cldr": yor["provenance"]["cldr"],
                                    "note": "card file data/languages/yor.yaml, with quotes from CLDR"}
    crk = cards["crk"]  # the file's own facts win: SRO and syllabics, not CLDR's likely script alone
    assert crk["scripts"] == ["Latn", "Cans"] and crk["provenance"]["note"] == "card file data/languages/crk.yaml"


def test_language_cldr_does_not_know_gets_a_card_that_says_so(tmp_path):
    card = card_for("qaa", tmp_path)
    assert "scripts" not in card and "quotes" not in card
    assert card_provenance(card) == {
        "card": "none", "file": str(tmp_path / "qaa.yaml"), "cldr": None,
        "note": f"no card file {tmp_path / 'qaa.yaml'} and CLDR does not know 'qaa': script, casing and "
                "quotation marks are unknown"}
    assert provenance_warning("qaa", card) == f"language 'qaa': {card['provenance']['note']}"
    assert provenance_warning("yor", card_for("yor", CARDS)) is None

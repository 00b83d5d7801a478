"""Methods per dataset (`datasets.<name>.methods`, lyss.translate.eligibility): the default is every
method that can serve the dataset's pair, the others are skipped with a reason; an explicit list that asks
for the impossible is a configuration error naming the key."""

import pytest

from lyss.errors import InputError
from lyss.translate.eligibility import installed_apertium_modes, mode_pair, select_methods

METHODS = {
    "apertium": {"kind": "apertium"},
    "copy_source": {"kind": "copy_source"},
    "llm": {"kind": "openai_compatible", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
}


def precomputed(tmp_path, dataset="spa_set"):
    path = tmp_path / "outputs.txt"
    path.write_text("uno\n")
    return {"kind": "precomputed", "paths": {dataset: str(path)}}


def test_installed_modes_are_listed_without_translating():
    # the test machine has apertium-eng-spa (tests/test_translate_methods.py translates with it)
    assert "eng-spa" in installed_apertium_modes()


@pytest.mark.parametrize(("mode", "pair"), [("eng-spa", "eng-spa"), ("spa-cat_valencia", "spa-cat"),
                                            ("eng-spa-tagger", "eng-spa"), ("spa-eng_US", "spa-eng")])
def test_mode_pair(mode, pair):
    assert mode_pair(mode) == pair


def test_default_skips_apertium_for_a_pair_it_does_not_have():
    french = select_methods(METHODS, "fra_set", {}, "eng-fra")
    assert french.methods == ["copy_source", "llm"]
    assert list(french.skipped) == ["apertium"]
    assert "'eng-fra' is not installed" in french.skipped["apertium"]
    spanish = select_methods(METHODS, "spa_set", {}, "eng-spa")
    assert spanish.methods == ["apertium", "copy_source", "llm"] and spanish.skipped == {}


def test_explicit_apertium_mode_serves_only_its_own_pair():
    methods = {"apertium": {"kind": "apertium", "mode": "eng-spa"}}
    assert select_methods(methods, "fra_set", {}, "eng-fra").skipped == {
        "apertium": "Apertium mode 'eng-spa' translates eng-spa, not eng-fra"}


def test_precomputed_serves_only_the_datasets_it_has_a_file_for(tmp_path):
    methods = {**METHODS, "pre": precomputed(tmp_path)}
    assert "pre" in select_methods(methods, "spa_set", {}, "eng-spa").methods
    other = select_methods(methods, "other_spa_set", {}, "eng-spa")
    assert "pre" not in other.methods
    assert other.skipped["pre"] == "no file for this dataset in methods.pre.paths (files were given for: spa_set)"


def test_precomputed_file_that_does_not_exist_is_a_config_error(tmp_path):
    methods = {"pre": {"kind": "precomputed", "paths": {"spa_set": str(tmp_path / "missing.txt")}}}
    with pytest.raises(InputError) as caught:
        select_methods(methods, "spa_set", {}, "eng-spa")
    assert caught.value.field == "methods.pre.paths.spa_set" and "does not exist" in str(caught.value)


def test_explicit_list_keeps_its_order_and_skips_nothing(tmp_path):
    chosen = select_methods(METHODS, "spa_set", {"methods": ["llm", "apertium"]}, "eng-spa")
    assert chosen.methods == ["llm", "apertium"] and chosen.skipped == {}


@pytest.mark.parametrize(("listed", "message"), [
    (["apertium"], "method 'apertium' cannot translate eng-fra: Apertium mode 'eng-fra' is not installed"),
    (["copy_sauce"], "unknown method 'copy_sauce' (did you mean 'copy_source'?); known: apertium, copy_source, llm"),
    (["llm", "llm"], "method 'llm' is listed twice"),
    ("llm", "expected a list of method names"),
])
def test_explicit_list_errors_name_the_key(listed, message):
    with pytest.raises(InputError) as caught:
        select_methods(METHODS, "fra_set", {"methods": listed}, "eng-fra")
    assert caught.value.field == "datasets.fra_set.methods" and message in str(caught.value)

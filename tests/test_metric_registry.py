"""The metric class is the single source of truth (issue 13): a toy metric written as one new module and
registered follows the whole path — score → run card (schema-valid) → CI → significance → leaderboard →
results/metrics.json → database column — with no other file edited; and no metric id is restated across
the source tree."""

import importlib.util
import re
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pytest
import yaml

from lyss import metrics
from lyss.aggregate.card import CardInput, Dataset, Method, Translation, build_card
from lyss.aggregate.runcard import validate_run_card
from lyss.config import vocabulary
from lyss.metrics import REGISTRY, ScoringInput, get_metric
from lyss.report import leaderboard_markdown, summary
from lyss.settings import Settings
from lyss.significance import compare_methods
from lyss.store import Store

ROOT = Path(__file__).resolve().parent.parent
PARAMS = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
TOY_ID = "first_word_match_rate"
TOY_MODULE = f'''
"""A toy metric: 1 when the output's first word equals the reference's, else 0."""
import numpy as np

from lyss.metrics.base import COUNT, MetricResult


class FirstWordMatch:
    id = "{TOY_ID}"
    direction = "higher"
    ideal = 1.0
    card_position = 50
    companions = {{"first_word_matches": (None, COUNT)}}
    has_ci = True
    significance = True
    binary = True
    db_column = "toy_first_word"
    label = "first word"
    decimals = 3
    leaderboard_position = 4

    def score(self, data):
        values = np.array([float(p is not None and p.split()[:1] == r.split()[:1])
                           for p, r in zip(data.predictions, data.references)])
        return MetricResult(self.id, values, float(values.mean()),
                            counts={{"first_word_matches": int(values.sum())}})
'''

REFERENCES = ["the cat sat", "a dog ran", "my house is red", "we went home", "it rains", "she sings well"]
SYSTEM_A = ["the cat sits", "one dog ran", "my home is red", "we go home", "it rains", "he sings well"]
SYSTEM_B = ["a cat sat", "a dog runs", "my house is red", "they went home", "rain falls", "she sang"]
# By hand, first words equal: A = [1, 0, 1, 1, 1, 0] → 4/6; B = [0, 1, 1, 0, 0, 1] → 3/6.
# McNemar's discordant pairs: A only right on entries 1, 4, 5 (3); B only right on 2, 6 (2).
ENTRIES = [{"id": str(i), "source": f"s{i}", "reference": r, "difficulty": 1 + i % 2}
           for i, r in enumerate(REFERENCES)]


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The toy metric's module, written to a temporary folder, imported and registered (undone afterwards,
    with the names params.yaml may use, which lyss.config.vocabulary reads from the registry once per process:
    kept, they let a later test's settings accept the toy, or list it among the known metrics)."""
    path = tmp_path / "toy_metric.py"
    path.write_text(TOY_MODULE, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("toy_metric", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "toy_metric", module)
    spec.loader.exec_module(module)
    monkeypatch.setitem(REGISTRY, TOY_ID, module.FirstWordMatch)
    vocabulary.cache_clear()
    yield module.FirstWordMatch
    vocabulary.cache_clear()


def _results(predictions):
    data = ScoringInput(ENTRIES, predictions, predictions, "eng", "eng")
    return {m: get_metric(m).score(data) for m in (TOY_ID, "chrf_plus_plus")}


def _card(results, name):
    """The run card as rule `aggregate` builds it (lyss.aggregate.card.build_card), with its intervals."""
    composite = {**PARAMS["composite"], "min_entries": 1, "min_coverage": 0.0, "min_weight_share": 0.0}
    records = [{"id": e["id"], "prediction": p, "latency_s": 1.0} for e, p in zip(ENTRIES, SYSTEM_A, strict=True)]
    stats = {**PARAMS["stats"], "bootstrap_resamples": 200, "seed": 3}
    settings = Settings.from_mapping({**PARAMS, "composite": composite, "stats": stats}, vocabulary())
    return build_card(CardInput(
        dataset=Dataset("toyset", "eng", "eng", "f"), method=Method(name, {"kind": "copy_source"}),
        results=results, reference_results=_results(REFERENCES), entries=ENTRIES,
        translation=Translation(records, 1.0), settings=settings, cards={"eng": None}))


def test_a_toy_metric_in_one_module_goes_end_to_end(toy, tmp_path):
    results_a, results_b = _results(SYSTEM_A), _results(SYSTEM_B)
    assert results_a[TOY_ID].corpus_value == pytest.approx(4 / 6)

    # Run card: the value and its companion, after the spec's keys; the schema requires and bounds them.
    card = _card(results_a, "alpha")
    keys = list(card["scores"])
    assert card["scores"][TOY_ID] == pytest.approx(4 / 6, abs=1e-6)
    assert card["scores"]["first_word_matches"] == 4
    assert keys.index("repair_effectiveness") < keys.index(TOY_ID) < keys.index("exact_matches")
    validate_run_card(card)
    for broken in ({TOY_ID: 1.5}, {"first_word_matches": -1}):
        with pytest.raises(jsonschema.ValidationError):
            validate_run_card({**card, "scores": {**card["scores"], **broken}})
    without = {k: v for k, v in card["scores"].items() if k != TOY_ID}
    with pytest.raises(jsonschema.ValidationError, match=TOY_ID):
        validate_run_card({**card, "scores": without})

    # CI: a percentile interval of a mean of 0/1 values over 6 entries: multiples of 1/6 around 4/6.
    interval = card["scores"]["confidence_intervals"][TOY_ID]
    assert interval["ci_lower"] <= 4 / 6 <= interval["ci_upper"]
    for bound in (interval["ci_lower"], interval["ci_upper"]):
        assert bound * 6 == pytest.approx(round(bound * 6), abs=1e-5)

    # Significance: compared by the paired tests, and by McNemar with the hand-counted discordant pairs.
    compared = compare_methods({"a": results_a, "b": results_b}, {"chrf_plus_plus": 1.0}, {},
                               n_bootstrap=200, n_trials=200, seed=7)
    row = next(r for r in compared["comparisons"] if r["metric"] == TOY_ID)
    assert (row["baseline_score"], row["score"]) == (pytest.approx(4 / 6), pytest.approx(3 / 6))
    mcnemar = next(r for r in compared["mcnemar"] if r["metric"] == TOY_ID)
    assert (mcnemar["baseline_only"], mcnemar["system_only"]) == (3, 2)
    assert mcnemar["p_value"] == pytest.approx(1.0)  # exact binomial, 2 of 5 discordant: two-sided p = 1

    # Leaderboard (Markdown) column with its label, CI and declared decimals; results/metrics.json.
    table = leaderboard_markdown([card], {})
    assert "| first word [95% CI] |" in table
    assert f"| 0.667 [{interval['ci_lower']:.3f}, {interval['ci_upper']:.3f}] |" in table
    assert summary([card])["toyset"]["alpha"][TOY_ID] == pytest.approx(4 / 6, abs=1e-6)

    # Database: its declared column, added to a database created before the metric existed.
    url = f"sqlite:///{tmp_path / 'cards.sqlite'}"
    REGISTRY.pop(TOY_ID)
    Store.open(url).close()
    REGISTRY[TOY_ID] = toy
    with Store.open(url) as store:
        store.push(card)
        (row,) = store.query("toyset")
    assert row["toy_first_word"] == pytest.approx(4 / 6, abs=1e-6)


def test_registry_lists_keep_the_spec_card_order():
    """§9 order of the metric keys, typed in from the spec (the order a run card shows them in)."""
    assert metrics.card_metric_keys() == [
        "exact_match_rate", "equivalent_match_rate", "chrf_plus_plus", "bleu", "ter", "length_ratio",
        "fst_acceptance_rate", "morphological_accuracy", "orthographic_accuracy", "semantic_score",
        "comet_score", "code_switching_rate", "hallucination_rate", "terminology_adherence", "consistency_score",
        "compliance_index", "repair_effectiveness"]
    assert list(metrics.companion_keys()) == ["exact_matches", "equivalent_matches", "fst_accepted", "comet_model"]
    # §9.1 names BLEU's column corpus_bleu; every other metric column is the metric id.
    assert dict(metrics.db_columns())["corpus_bleu"] == "bleu"


# Where a metric id may appear besides its module, and why (the rule the test below enforces):
# - src/lyss/migrations/m*.py: a migration is a frozen snapshot of the table it created;
# - src/lyss/eval_standards/: a language's plugin says which metric it replaces, and its rule data;
# - *.yaml under src/: data (the packaged default params.yaml holds the spec's weight tables).
EXEMPT = (re.compile(r"^src/lyss/migrations/m\d{4}_\w+\.py$"), re.compile(r"^src/lyss/eval_standards/"),
          re.compile(r"\.ya?ml$"))
SOURCE_SUFFIXES = {".py", ".smk", ".json", ".yaml", ".yml"}


def _source_files():
    for folder in ("src", "rules", "scripts"):
        for path in sorted((ROOT / folder).rglob("*")):
            relative = path.relative_to(ROOT).as_posix()
            if path.suffix in SOURCE_SUFFIXES and not any(rule.search(relative) for rule in EXEMPT):
                yield relative, path.read_text(encoding="utf-8", errors="replace")


def test_every_metric_id_is_written_in_at_most_two_source_files():
    """A metric id as a whole word (not part of a longer identifier or a dotted module path such as
    sacrebleu.metrics.bleu) appears in at most two files under src/, rules/, scripts/: its module and one
    mention (a CLI help or a docstring), outside the exemptions above."""
    files = list(_source_files())
    crowded = {}
    for metric_id in REGISTRY:
        word = re.compile(rf"(?<![\w.]){re.escape(metric_id)}(?!\w)")
        where = [name for name, text in files if word.search(text)]
        module = sys.modules[REGISTRY[metric_id].__module__].__file__
        assert Path(module).relative_to(ROOT).as_posix() in where, metric_id
        if len(where) > 2:
            crowded[metric_id] = where
    assert crowded == {}


def test_a_new_metric_is_in_the_derived_lists_and_nowhere_by_hand(toy):
    assert metrics.card_metric_keys()[-1] == TOY_ID
    assert TOY_ID in metrics.ci_metrics() and TOY_ID in metrics.binary_metrics()
    assert metrics.significance_metrics()[-2:] == [TOY_ID, "composite"]
    assert metrics.leaderboard_metrics()[-1] == TOY_ID
    assert ("toy_first_word", TOY_ID) in metrics.db_columns()
    assert np.isclose(metrics.declaration(TOY_ID, "corpus_value")(np.array([3.0, 6.0])), 0.5)


def test_a_misspelt_declaration_is_an_error_not_a_silent_default():
    from lyss.metrics.base import check_declarations

    class Misspelt:
        id, direction, ideal = "toy_rate", "higher", 1.0
        has_cl = True  # meant has_ci

        def score(self, data):
            return None

    with pytest.raises(TypeError, match=r"'has_cl' is not a metric declaration \(did you mean 'has_ci'\?\)"):
        check_declarations(Misspelt)


def test_an_unknown_metric_id_names_the_closest_one_and_all():
    from lyss.errors import InputError

    with pytest.raises(InputError) as caught:
        get_metric("semantic_scores", source="card.yaml")
    assert str(caught.value).startswith("card.yaml: field 'metrics': unknown metric 'semantic_scores' (did you mean "
                                        "'semantic_score'?); known: bleu, chrf_plus_plus, ")
    with pytest.raises(InputError, match=r"unknown metric 'qqq'; known: bleu, "):  # nothing close: no guess
        get_metric("qqq")


def test_core_declarations_are_required_and_annotated_state_is_allowed():
    from lyss.metrics.base import check_declarations

    class NoIdeal:
        id, direction = "toy_rate", "higher"

        def score(self, data):
            return None

    with pytest.raises(TypeError, match=r"missing: ideal"):
        check_declarations(NoIdeal)

    class WithState(NoIdeal):
        ideal = 1.0
        rules: dict | None = None  # plugin state, annotated

    check_declarations(WithState)
    for plugin in REGISTRY.values():  # what the registry checks at import
        check_declarations(plugin)

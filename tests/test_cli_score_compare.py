"""`lyss score` and `lyss compare` on plain text files: numbers against sacrebleu on the same files, the
JSON shapes, language-card fallback and clear errors for bad files."""

import json
import math
import random
from pathlib import Path

import pytest
import yaml
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.significance import PairedTest

from lyss.cli import main
from lyss.commands import score as score_command
from lyss.metrics import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
WORDS = "el la de que y en un una los se del las por con para es al lo como casa perro agua libro día".split()
SURFACE = "exact_match_rate,chrf_plus_plus,bleu"
# The project's settings with both weight profiles cut to the surface metrics, so that `compare`'s
# composite does not pull in the embedding-based metrics (slow, and tested elsewhere).
FAST_WEIGHTS = {"chrf_plus_plus": 0.25, "exact_match_rate": 0.10}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """120 segments (system a close to the reference, b a little further, c far off) and the
    --params/--languages options."""
    rng = random.Random(1)
    folder = tmp_path_factory.mktemp("text")
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    params["composite"]["profiles"] = {"A": FAST_WEIGHTS, "B": FAST_WEIGHTS}
    (folder / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    common = ["--params", str(folder / "params.yaml"), "--languages", str(ROOT / "data" / "languages")]
    refs = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12))) for _ in range(120)]

    def perturb(rate):
        return [" ".join(w if rng.random() >= rate else rng.choice(WORDS) for w in r.split()) for r in refs]

    texts = {"src": refs, "ref": refs, "a": perturb(0.2), "b": perturb(0.22), "c": perturb(0.6)}
    paths = {}
    for name, lines in texts.items():
        paths[name] = folder / f"{name}.txt"
        paths[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths, texts, common


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_score_json_matches_sacrebleu(files, capsys):
    paths, texts, common = files
    code, out, _ = run(capsys, "score", "-s", str(paths["src"]), "-r", str(paths["ref"]),
                       "-i", str(paths["a"]), "-l", "eng-spa", "--metrics", SURFACE, "--json", *common)
    assert code == 0
    scores = json.loads(out)["scores"]
    refs = [texts["ref"]]
    assert scores["chrf_plus_plus"] == pytest.approx(CHRF(word_order=2).corpus_score(texts["a"], refs).score,
                                                     abs=1e-6)
    assert scores["bleu"] == pytest.approx(BLEU().corpus_score(texts["a"], refs).score, abs=1e-6)
    matches = sum(h == r for h, r in zip(texts["a"], texts["ref"], strict=True))
    assert scores["exact_matches"] == matches and scores["exact_match_rate"] == pytest.approx(matches / 120)
    assert scores["total"] == scores["evaluated"] == 120 and scores["errors"] == 0
    assert scores["composite"] is not None and scores["confidence_intervals"] == {}


def test_score_with_ci_and_text_output(files, capsys):
    paths, _, common = files
    args = ["score", "-s", str(paths["src"]), "-r", str(paths["ref"]), "-i", str(paths["a"]), "-l", "eng-spa",
            "--metrics", SURFACE, *common, "--ci", "--n", "200", "--seed", "3"]
    code, out, _ = run(capsys, *args, "--json")
    assert code == 0
    block = json.loads(out)
    intervals = block["scores"]["confidence_intervals"]
    assert set(intervals) == {"chrf_plus_plus", "exact_match_rate", "composite"}
    for metric, ci in intervals.items():
        assert ci["ci_lower"] <= block["scores"][metric] <= ci["ci_upper"]
    code, out, _ = run(capsys, *args)
    assert code == 0
    assert "chrf_plus_plus" in out and "[" in out and "signature: nrefs:1" in out


def test_language_without_card_uses_defaults_and_says_which_card(files, capsys):
    paths, _, common = files
    languages = Path(common[-1])
    code, out, err = run(capsys, "score", "-s", str(paths["src"]), "-r", str(paths["ref"]),
                         "-i", str(paths["a"]), "-l", "eng-xyz", "--metrics", SURFACE, "--json", *common)
    assert code == 0
    warning = (f"language 'xyz': no card file {languages / 'xyz.yaml'} and CLDR does not know 'xyz': "
               "script, casing and quotation marks are unknown")
    assert f"lyss: {warning}\n" in err  # beside the §4.4 note on these cut-down weight tables
    block = json.loads(out)
    assert block["warnings"] == [warning]
    assert block["language_cards"]["eng"]["card"] == "file" and block["language_cards"]["xyz"]["card"] == "none"
    assert block["composite_profile"]["profile"] == "B"
    assert "tok:13a" in block["signatures"]["bleu"]
    code, out, err = run(capsys, "score", "-s", str(paths["src"]), "-r", str(paths["ref"]),
                         "-i", str(paths["a"]), "-l", "eng-vie", "--metrics", SURFACE, "--json", *common)
    assert json.loads(out)["language_cards"]["vie"]["card"] == "derived from CLDR"
    assert "card derived from CLDR locale 'vi (CLDR" in err


def _sacrebleu(test, n, metric, texts, system):
    _, results = PairedTest([("a", texts["a"]), (system, texts[system])], {"m": metric}, [texts["ref"]],
                            test_type=test, n_samples=n)()
    key = next(k for k in results if k != "System")
    return results[key][0].score, results[key][1]


@pytest.mark.parametrize("test,n", [("bs", 1000), ("ar", 1000)])
def test_compare_json_agrees_with_sacrebleu(files, capsys, test, n):
    paths, texts, common = files
    code, out, _ = run(capsys, "compare", "-s", str(paths["src"]), "-r", str(paths["ref"]),
                       "-i", str(paths["a"]), str(paths["b"]), str(paths["c"]), "-l", "eng-spa",
                       "--metrics", "chrf_plus_plus,bleu", "--test", test, "--n", str(n), "--seed", "12345",
                       "--json", *common)
    assert code == 0
    rows = json.loads(out)
    assert [(r["system"], r["metric"]) for r in rows] == [
        (str(paths[s]), m) for s in ("b", "c") for m in ("chrf_plus_plus", "bleu")]
    assert all(set(r) == {"system", "metric", "score", "baseline_score", "delta", "ci_lo", "ci_hi", "p_value",
                          "p_holm"} for r in rows)
    metrics = {"chrf_plus_plus": lambda: CHRF(word_order=2), "bleu": BLEU}
    for r in rows:
        system = Path(r["system"]).stem
        base_score, result = _sacrebleu(test, n, metrics[r["metric"]](), texts, system)
        assert r["baseline_score"] == pytest.approx(base_score, abs=1e-9)
        assert r["score"] == pytest.approx(result.score, abs=1e-9)
        # Same seed, same draws as sacrebleu: equal up to one count from float rounding.
        assert abs(r["p_value"] - result.p_value) <= 1 / (n + 1) + 1e-12
        assert r["ci_lo"] <= r["delta"] <= r["ci_hi"]
        # Holm over the two systems of each metric: the smaller p doubles, the larger is at least that.
        assert r["p_holm"] >= r["p_value"]
    for metric in metrics:
        ps = sorted(r["p_value"] for r in rows if r["metric"] == metric)
        holms = sorted(r["p_holm"] for r in rows if r["metric"] == metric)
        assert holms[0] == pytest.approx(min(1.0, 2 * ps[0]))
    # b differs from a only a little: its chrF++ p-value is not decided at the edge of the scale.
    b_chrf = next(r for r in rows if r["metric"] == "chrf_plus_plus" and r["system"] == str(paths["b"]))
    assert not math.isclose(b_chrf["p_value"], 1 / (n + 1))


def test_compare_text_table_with_composite(files, capsys):
    paths, _, common = files
    code, out, _ = run(capsys, "compare", "-s", str(paths["src"]), "-r", str(paths["ref"]),
                       "-i", str(paths["a"]), str(paths["c"]), "-l", "eng-spa", "--n", "200", *common)
    assert code == 0
    assert "(baseline)" in out and "p (Holm)" in out and "composite over:" in out
    assert out.count("*") >= 2  # c is far worse than a: marked on several metrics (footer has one more '*')


@pytest.mark.parametrize("problem,expected", [
    ("short", "has 119 lines but"),
    ("empty", "file is empty"),
    ("missing", "cannot read file"),
    ("latin1", "not UTF-8 text"),
])
def test_bad_files_give_clear_errors(files, capsys, tmp_path, problem, expected):
    paths, texts, common = files
    bad = tmp_path / "bad.txt"
    if problem == "short":
        bad.write_text("\n".join(texts["a"][:-1]) + "\n", encoding="utf-8")
    elif problem == "empty":
        bad.write_text("", encoding="utf-8")
    elif problem == "latin1":
        bad.write_bytes("línea\n".encode("latin-1"))
    for command in (["score", "-i", str(bad), "--metrics", SURFACE], ["compare", "-i", str(paths["a"]), str(bad)]):
        code, _, err = run(capsys, *command, "-s", str(paths["src"]), "-r", str(paths["ref"]),
                           "-l", "eng-spa", *common)
        assert code == 2
        assert str(bad) in err and expected in err


def test_bad_options_give_clear_errors(files, capsys):
    paths, _, common = files
    base = ["-s", str(paths["src"]), "-r", str(paths["ref"]), *common]
    code, _, err = run(capsys, "score", *base, "-i", str(paths["a"]), "-l", "eng-spa", "--metrics", "blue")
    assert code == 2 and "unknown metric 'blue'" in err
    code, _, err = run(capsys, "score", *base, "-i", str(paths["a"]), "-l", "english", "--metrics", SURFACE)
    assert code == 2 and "SRC-TGT" in err
    code, _, err = run(capsys, "compare", *base, "-i", str(paths["a"]), "-l", "eng-spa")
    assert code == 2 and "at least two files" in err


def test_default_metrics_are_those_that_need_no_model(monkeypatch):
    class NeedsModel:
        requires_model = True

    monkeypatch.setitem(REGISTRY, "needs_a_model", NeedsModel)
    defaults = score_command.model_free_metrics()
    assert "needs_a_model" not in defaults
    assert {"exact_match_rate", "chrf_plus_plus", "bleu", "ter"} <= set(defaults)


def test_score_json_carries_caveats_and_the_gated_tier(tmp_path, capsys):
    # A system that copies the source: every segment is a source copy, so the caveat is raised and the
    # tier is held at baseline whatever the composite.
    src = tmp_path / "src.txt"
    ref = tmp_path / "ref.txt"
    src.write_text("The cat sleeps.\nI like dogs.\nOpen the file.\nGood morning.\nSee you tomorrow.\n")
    ref.write_text("El gato duerme.\nMe gustan los perros.\nAbre el archivo.\nBuenos días.\nHasta mañana.\n")
    # five segments and two of profile B's metrics: the coverage and partial bars are lowered so that the
    # composite has a tier for the gate to hold
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    params["composite"].update(min_entries=1, min_weight_share=0.0)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    assert main(["score", "--source", str(src), "--reference", str(ref), "--hypothesis", str(src),
                 "--lang-pair", "eng-spa", "--metrics", "chrf_plus_plus,exact_match_rate", "--json",
                 "--params", str(tmp_path / "params.yaml")]) == 0
    block = json.loads(capsys.readouterr().out)
    assert [c["id"] for c in block["score_caveats"]] == ["source_copy"]
    assert block["scores"]["quality_tier"] == "baseline" and block["tier_gate"]["enabled"] is True


def test_score_shows_the_oracle_and_nulls_a_metric_that_fails_its_reference_check(files, capsys, tmp_path):
    paths, texts, common = files
    # The reference scored as the hypothesis: chrF++ 100, exact match 1, length ratio 1 (their ideals).
    code, out, _ = run(capsys, "score", "-s", str(paths["src"]), "-r", str(paths["ref"]), "-i", str(paths["a"]),
                       "-l", "eng-spa", "--metrics", "chrf_plus_plus,exact_match_rate,length_ratio", "--json",
                       *common)
    assert code == 0
    block = json.loads(out)
    checks = block["oracle"]["reference_check"]
    assert {m: (c["reference_value"], c["passed"]) for m, c in checks.items()} == {
        "chrf_plus_plus": (100.0, True), "exact_match_rate": (1.0, True), "length_ratio": (1.0, True)}
    assert block["oracle"]["composite"] == 1.0
    # The oracle's own files: a hypothesis equal to the reference is fluent (not partial: FAST_WEIGHTS are
    # exactly chrF++ and exact match, 100% of the profile's weight)
    assert block["oracle"]["quality_tier"] == "fluent"
    assert block["composite_profile"]["weight_share"] == 1.0


def test_score_with_one_metric_is_a_partial_composite(files, capsys, tmp_path):
    paths, texts, common = files
    code, out, _ = run(capsys, "score", "-s", str(paths["src"]), "-r", str(paths["ref"]), "-i", str(paths["a"]),
                       "-l", "eng-spa", "--metrics", "chrf_plus_plus,bleu", *common)
    assert code == 0
    # chrF++ carries 0.25 of FAST_WEIGHTS' 0.35: 71% ≥ 50%, a full composite; drop the bar's share to check
    assert "composite over chrf_plus_plus (71% of profile A's weight)" in out
    params = yaml.safe_load(Path(common[1]).read_text(encoding="utf-8"))
    params["composite"]["min_weight_share"] = 0.8
    strict = tmp_path / "params.yaml"
    strict.write_text(yaml.safe_dump(params), encoding="utf-8")
    code, out, _ = run(capsys, "score", "-s", str(paths["src"]), "-r", str(paths["ref"]), "-i", str(paths["a"]),
                       "-l", "eng-spa", "--metrics", "chrf_plus_plus,bleu", "--json", "--params", str(strict),
                       "--languages", common[3])
    block = json.loads(out)
    assert block["scores"]["quality_tier"] == "partial"
    assert block["scores"]["composite"] == pytest.approx(
        CHRF(word_order=2).corpus_score(texts["a"], [texts["ref"]]).score / 100, abs=1e-6)


def test_score_reads_stdin_works_from_any_folder_and_prints_null_metrics_with_their_reason(
        files, capsys, monkeypatch, tmp_path):
    """`-i -` reads the hypothesis from standard input (as sacrebleu does); with no params.yaml or
    data/languages in the current folder the packaged settings and cards are used; a null metric is a
    line with its reason, not a silent gap."""
    import io

    paths, texts, _ = files
    monkeypatch.chdir(tmp_path)  # a folder without params.yaml or data/languages
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(paths["a"].read_bytes()), encoding="utf-8"))
    code, out, _ = run(capsys, "score", "-s", str(paths["src"]), "-r", str(paths["ref"]), "-i", "-",
                       "-l", "eng-spa", "--metrics", "chrf_plus_plus,morphological_accuracy")
    assert code == 0
    chrf = CHRF(word_order=2).corpus_score(texts["a"], [texts["ref"]]).score
    assert f"chrf_plus_plus          {chrf:.4f}" in out
    assert ("morphological_accuracy  —  (no corpus entry has `morphology` annotations (expected analyses per "
            "entry))") in out


def test_a_file_too_small_to_count_still_shows_what_each_metric_measured(files, capsys, tmp_path):
    """20 lines are below composite.min_entries (30): chrF++ does not count and the card shows no value,
    but a user scoring a small file sees sacrebleu's number beside the reason, and the JSON has it apart."""
    paths, texts, common = files
    small = {}
    for name in ("src", "ref", "a"):
        small[name] = tmp_path / f"{name}.txt"
        small[name].write_text("\n".join(texts[name][:20]) + "\n", encoding="utf-8")
    chrf = CHRF(word_order=2).corpus_score(texts["a"][:20], [texts["ref"][:20]]).score
    args = ["score", "-s", str(small["src"]), "-r", str(small["ref"]), "-i", str(small["a"]), "-l", "eng-spa",
            "--metrics", "chrf_plus_plus", *common]
    code, out, _ = run(capsys, *args)
    assert code == 0
    assert (f"chrf_plus_plus          —  (measured {chrf:.4f}, not counted: only 20 entries contribute a value "
            "(composite.min_entries is 30): too little evidence to weigh in the composite)") in out
    code, out, _ = run(capsys, *args, "--json")
    block = json.loads(out)
    assert block["scores"]["chrf_plus_plus"] is None
    assert block["withheld"]["chrf_plus_plus"] == pytest.approx(chrf, abs=1e-6)

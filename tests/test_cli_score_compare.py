"""`lyss score` and `lyss compare` on plain text files: numbers against sacrebleu on the same files (several
references, sentence level, tokenizers, confidence intervals: sacrebleu's own API computes every golden
value), the JSON/TSV shapes, language codes and cards, the composite over a selection, and clear one-line
errors for bad files and options."""

import hashlib
import importlib.util
import json
import math
import random
import re
import sys
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.significance import PairedTest

from lyss.aggregate.fingerprint import code_version
from lyss.cli import main
from lyss.commands import score as score_command
from lyss.metrics import REGISTRY

sys.path.insert(0, str(Path(__file__).parent))
from plain_text_files import FAST_WEIGHTS, ROOT, SURFACE, run  # noqa: E402


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
    assert set(intervals) == {"chrf_plus_plus", "exact_match_rate", "bleu", "composite"}
    for metric, ci in intervals.items():
        assert ci["ci_lower"] <= block["scores"][metric] <= ci["ci_upper"]
    code, out, _ = run(capsys, *args)
    assert code == 0
    assert "chrf_plus_plus" in out and "[" in out and "signature: nrefs:1" in out


def test_language_without_card_uses_defaults_and_says_which_card(files, capsys):
    paths, _, common = files
    languages = Path(common[-1])
    # Afitti (aft) is an ISO 639-3 language CLDR has no data for
    code, out, err = run(capsys, "score", "-s", str(paths["src"]), "-r", str(paths["ref"]),
                         "-i", str(paths["a"]), "-l", "eng-aft", "--metrics", SURFACE, "--json", *common)
    assert code == 0
    warning = (f"language 'aft': no card file {languages / 'aft.yaml'} and CLDR does not know 'aft': "
               "script, casing and quotation marks are unknown")
    assert err.count(f"lyss: warning: {warning}\n") == 1
    block = json.loads(out)
    # beside the §4.4 warnings on these cut-down weight tables
    assert [w for w in block["warnings"] if w.startswith("language")] == [warning]
    assert block["language_cards"]["eng"]["card"] == "file" and block["language_cards"]["aft"]["card"] == "none"
    assert block["composite_profile"]["profile"] == "B"
    assert "tok:13a" in block["signatures"]["bleu"]
    code, out, err = run(capsys, "score", "-s", str(paths["src"]), "-r", str(paths["ref"]),
                         "-i", str(paths["a"]), "-l", "eng-vie", "--metrics", SURFACE, "--json", *common)
    assert json.loads(out)["language_cards"]["vie"]["card"] == "derived from CLDR"
    assert "card derived from CLDR locale 'vi (CLDR" in err


@pytest.mark.parametrize("command", ["score", "compare"])
def test_a_card_folder_that_does_not_exist_is_an_error_not_cldr_cards(files, capsys, tmp_path, command):
    """A mistyped --languages would otherwise give every language the card derived from CLDR, dropping the card
    files' analyzers and dictionaries with only a warning per language."""
    paths, _, common = files
    missing = tmp_path / "languages"
    code, out, err = run(capsys, command, "-r", paths["ref"], "-i", paths["a"], paths["b"], "-l", "eng-spa",
                         "-m", "bleu", *common[:2], "--languages", missing)  # common[2:] is the real folder
    assert (code, out, err) == (2, "", f"lyss: error: --languages: {missing} is not a folder of language cards\n")


def _sacrebleu(test, n, metric, texts, system):
    _, results = PairedTest([("a", texts["a"]), (system, texts[system])], {"m": metric}, [texts["ref"]],
                            test_type=test, n_samples=n)()
    key = next(k for k in results if k != "System")
    return results[key][0].score, results[key][1]


@pytest.mark.parametrize("test,n,spelling", [("bs", 1000, "lyss"), ("ar", 1000, "lyss"),
                                            ("bs", 1000, "sacrebleu"), ("ar", 1000, "sacrebleu")])
def test_compare_json_agrees_with_sacrebleu(files, capsys, test, n, spelling):
    """Both spellings of the test: `--test ar --n N`, and sacrebleu's own `--paired-ar --paired-ar-n N`."""
    paths, texts, common = files
    how = ["--test", test, "--n", str(n)] if spelling == "lyss" else [f"--paired-{test}", f"--paired-{test}-n", str(n)]
    code, out, _ = run(capsys, "compare", "-s", str(paths["src"]), "-r", str(paths["ref"]),
                       "-i", str(paths["a"]), str(paths["b"]), str(paths["c"]), "-l", "eng-spa",
                       "--metrics", "chrf_plus_plus,bleu", *how, "--seed", "12345", "--json", *common)
    assert code == 0
    rows = json.loads(out)
    assert [(r["system"], r["file"], r["metric"]) for r in rows] == [
        (s, str(paths[s]), m) for s in ("b", "c") for m in ("chrf_plus_plus", "bleu")]
    assert all(set(r) == {"system", "file", "metric", "score", "baseline_score", "delta", "ci_lo", "ci_hi",
                          "p_value", "p_holm"} for r in rows)
    metrics = {"chrf_plus_plus": lambda: CHRF(word_order=2), "bleu": BLEU}
    for r in rows:
        system = r["system"]
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
    b_chrf = next(r for r in rows if r["metric"] == "chrf_plus_plus" and r["system"] == "b")
    assert not math.isclose(b_chrf["p_value"], 1 / (n + 1))


def test_sacrebleus_paired_counts_set_what_they_set_there(files, capsys, tmp_path):
    """With --paired-ar, --paired-bs-n is the bootstrap of the delta's interval (what params stats sets without
    it), --paired-ar-n the trials; with the bootstrap, --paired-ar-n is ignored with a warning, as sacrebleu ignores
    it; a count given twice or a test given twice is one error line."""
    paths, _, common = files
    files_and_output = ["-r", paths["ref"], "-i", paths["a"], paths["b"], "-l", "eng-spa", "-m", "chrf_plus_plus",
                        "--seed", "5", "--json"]
    base = ["compare", *files_and_output, *common]
    params = yaml.safe_load(Path(common[1]).read_text())
    params["stats"]["bootstrap_resamples"] = 200
    fewer = tmp_path / "params.yaml"
    fewer.write_text(yaml.safe_dump(params))
    code, sacrebleu_style, _ = run(capsys, *base, "--paired-ar", "--paired-ar-n", 300, "--paired-bs-n", 200)
    assert code == 0
    code, configured, _ = run(capsys, "compare", *files_and_output, "--params", fewer, *common[2:], "--test", "ar",
                              "--n", 300)
    assert code == 0 and sacrebleu_style == configured
    code, default_ar, _ = run(capsys, *base, "--paired-ar", "--paired-ar-n", 300)
    assert json.loads(default_ar)[0]["ci_lo"] != json.loads(configured)[0]["ci_lo"]  # 200 resamples, not 1000

    code, ignored, err = run(capsys, *base, "--paired-bs", "--paired-ar-n", 50, "--paired-jobs", 2)
    assert code == 0 and ignored == run(capsys, *base)[1]
    assert "--paired-ar-n counts approximate randomization's trials: ignored without --paired-ar" in err
    for twice, expected in (
            (["--n", 100, "--paired-bs-n", 100], "lyss: error: --n: give the count once: --n, or sacrebleu's"),
            (["--paired-ar", "--test", "bs"], "argument --test: given twice ('ar', then 'bs'); give it once")):
        code, out, err = run(capsys, *base, *twice)
        assert code == 2 and out == "" and expected in err and err.count("\n") == 1


def test_compare_text_table_with_composite(files, capsys):
    paths, _, common = files
    code, out, _ = run(capsys, "compare", "-s", str(paths["src"]), "-r", str(paths["ref"]),
                       "-i", str(paths["a"]), str(paths["c"]), "-l", "eng-spa", "--n", "200", *common)
    assert code == 0
    assert "(baseline)" in out and "p (Holm)" in out
    assert "composite over chrf_plus_plus, exact_match_rate (profile A" in out
    assert out.count("*") >= 2  # c is far worse than a: marked on several metrics (footer has one more '*')
    # systems by their short names, never by their paths
    assert str(paths["a"].parent) not in out and "a (baseline)" in out


def test_compare_warns_when_n_is_too_few_for_holm(files, capsys):
    """Two comparisons against the baseline: the smallest p of N resamples is 1/(N + 1), doubled by Holm, so
    --n 20 (2/21 = 0.095 > 0.05) can never show a significant difference; 2·2/0.05 − 1 = 79 resamples can."""
    paths, _, common = files
    argv = ["compare", "-s", paths["src"], "-r", paths["ref"], "-i", paths["a"], paths["b"], paths["c"],
            "-l", "eng-spa", "--metrics", "chrf_plus_plus", "--json", *common]
    code, _, err = run(capsys, *argv, "--n", "20")
    assert code == 0 and "--n 20 is too few for 2 comparisons" in err and "use at least 79" in err
    code, _, err = run(capsys, *argv, "--n", "79")
    assert code == 0 and "too few" not in err


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


@pytest.mark.parametrize("command", ["score", "compare"])
def test_an_unreadable_file_is_the_only_line_printed(files, capsys, tmp_path, command):
    """Without -s the default metrics that read the source are left out with a warning; a missing output file
    is an error before any such warning, so the error is all stderr holds. With the files readable, score's
    warning comes once (compare's default metrics, those the significance step compares, read no source)."""
    paths, _, common = files
    outputs = [str(tmp_path / "missing.txt")] + ([str(paths["a"])] if command == "compare" else [])
    code, _, err = run(capsys, command, "-r", str(paths["ref"]), "-i", *outputs, "-l", "eng-spa", *common)
    assert code == 2
    assert err.strip().splitlines() == [f"lyss: error: {outputs[0]}: cannot read file (No such file or directory)"]
    code, _, err = run(capsys, command, "-r", str(paths["ref"]), "-i", str(paths["a"]), str(paths["b"]),
                       "-l", "eng-spa", *common)
    assert code == 0 and err.count("no --source: ") == (command == "score")


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
    params["composite"].update(min_entries=1, min_weight_share=0.0, profiles={"A": FAST_WEIGHTS, "B": FAST_WEIGHTS})
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


def test_a_composite_over_a_selection_has_no_tier_and_says_so(files, capsys):
    """Issue 18 item 6: `-m` leaving out a weighted metric of the profile gives a composite over the selection,
    shown as such and without a tier; covering the profile gives the profile's composite and its tier."""
    paths, texts, common = files
    base = ["score", "-s", paths["src"], "-r", paths["ref"], "-i", paths["a"], "-l", "eng-spa", *common]
    code, out, _ = run(capsys, *base, "--metrics", "chrf_plus_plus,bleu")
    assert code == 0
    # chrF++ carries 0.25 of FAST_WEIGHTS' 0.35; exact_match_rate is left out
    assert ("composite over selection: chrf_plus_plus (71% of profile A's weight; no tier: leaves out "
            "exact_match_rate)") in out
    code, out, _ = run(capsys, *base, "--metrics", "chrf_plus_plus,bleu", "--json")
    block = json.loads(out)
    assert block["composite_profile"]["scope"] == "selection"
    assert block["composite_profile"]["left_out"] == ["exact_match_rate"]
    assert block["scores"]["quality_tier"] is None and "leaves out exact_match_rate" in \
        block["null_reasons"]["quality_tier"]
    assert block["oracle"]["quality_tier"] is None
    assert block["scores"]["composite"] == pytest.approx(
        CHRF(word_order=2).corpus_score(texts["a"], [texts["ref"]]).score / 100, abs=1e-6)
    assert "|scope:selection|weights:chrf_plus_plus=1.0000|" in block["signatures"]["composite"]
    code, out, _ = run(capsys, *base, "--metrics", "chrf_plus_plus,exact_match_rate", "--json")
    block = json.loads(out)
    assert block["composite_profile"] == {**block["composite_profile"], "scope": "profile", "left_out": []}
    assert block["scores"]["quality_tier"] not in (None, "partial")


def test_a_profile_composite_with_little_weight_available_is_partial(files, capsys, tmp_path):
    """Covering the profile is not enough for a tier: a weighted metric that is unavailable on these files
    (equivalent_match_rate without variants) leaves 62.5% of the weight, below a 0.8 bar: "partial"."""
    paths, _, common = files
    params = yaml.safe_load(Path(common[1]).read_text(encoding="utf-8"))
    weights = {"chrf_plus_plus": 0.25, "equivalent_match_rate": 0.15}
    params["composite"].update(min_weight_share=0.8, profiles={"A": weights, "B": weights})
    strict = tmp_path / "params.yaml"
    strict.write_text(yaml.safe_dump(params), encoding="utf-8")
    code, out, _ = run(capsys, "score", "-s", paths["src"], "-r", paths["ref"], "-i", paths["a"], "-l", "eng-spa",
                       "--metrics", "chrf_plus_plus,equivalent_match_rate", "--json", "--params", strict,
                       "--languages", common[3])
    block = json.loads(out)
    assert block["composite_profile"]["scope"] == "profile"
    assert block["composite_profile"]["weight_share"] == pytest.approx(0.625)
    assert block["scores"]["quality_tier"] == "partial"


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
    """20 lines are below composite.min_entries (30): chrF++ does not count in the composite and the card's
    score is null, but a user scoring a small file sees sacrebleu's number with the reason, in the text as
    in a table of systems, and the JSON has it apart."""
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
    reason = "only 20 entries contribute a value (composite.min_entries is 30): too little evidence to weigh in"
    assert f"chrf_plus_plus          {chrf:.4f}  (not in the composite: {reason} the composite)" in out
    two = [*args[:6], str(small["a"]), str(small["ref"]), *args[7:]]  # -i a ref: the reference as a system
    code, out, _ = run(capsys, *two)
    assert code == 0
    assert re.search(rf"\nchrf_plus_plus +{chrf:.4f} +100\.0000\n", out), out
    assert f"\nchrf_plus_plus: not in the composite: {reason} the composite" in out
    code, out, _ = run(capsys, *args, "--json")
    block = json.loads(out)
    assert block["scores"]["chrf_plus_plus"] is None
    assert block["withheld"]["chrf_plus_plus"] == pytest.approx(chrf, abs=1e-6)


# --- sacrebleu's conventions on real text (issue 19 items 1-2, issue 18 item 6) -------------------------------

TED = ROOT / "data" / "corpora" / "mqm_ted_ende"
N_TED = 150


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def ted(tmp_path_factory):
    """The first 150 segments of the shipped WMT21 TED English→German data as plain files: the source, the
    human reference, a second reference (Online-W's output standing in for a second translation: sacrebleu
    treats every reference stream alike) and three systems."""
    folder = tmp_path_factory.mktemp("ted")
    entries = _jsonl(TED / "corpus.jsonl")[:N_TED]

    def system(name):
        outputs = {r["id"]: r["prediction"] for r in _jsonl(TED / "systems" / f"wmt21_{name}.jsonl")}
        return [outputs[e["id"]] for e in entries]

    texts = {"src": [e["source"] for e in entries], "ref": [e["reference"] for e in entries],
             "ref2": system("online_w"), "nemo": system("nemo"), "uedin": system("uedin"),
             "facebook_ai": system("facebook_ai")}
    paths = {}
    for name, lines in texts.items():
        paths[name] = folder / f"{name}.{'en' if name == 'src' else 'de'}"
        paths[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths, texts


def one_line(err: str) -> str:
    """The single line an error prints (asserting it is one line)."""
    assert err.count("\n") == 1 and err.endswith("\n"), err
    return err


def test_two_references_give_sacrebleus_numbers(ted, files, capsys):
    """`-r A B`, `-r A -r B` and sacrebleu's `A B -i HYP` are the same two references (never the last one
    alone); chrF++, BLEU and TER equal sacrebleu's with both; exact match accepts either; length ratio says it
    used the first."""
    paths, texts = ted
    common = files[2]
    metrics = "chrf_plus_plus,bleu,ter,exact_match_rate,length_ratio"
    blocks = []
    for refs in (["-r", paths["ref"], paths["ref2"]], ["-r", paths["ref"], "-r", paths["ref2"]],
                 [paths["ref"], paths["ref2"]]):
        code, out, _ = run(capsys, "score", *refs, "-i", paths["nemo"], "-l", "en-de", "-m", metrics, "--json",
                           *common)
        assert code == 0
        blocks.append(json.loads(out))
    assert blocks[0]["scores"] == blocks[1]["scores"] == blocks[2]["scores"]
    block, hyp, refs = blocks[0], texts["nemo"], [texts["ref"], texts["ref2"]]
    scores = block["scores"]
    assert block["references"] == 2
    for metric, sacre in (("chrf_plus_plus", CHRF(word_order=2)), ("bleu", BLEU()), ("ter", TER())):
        assert scores[metric] == pytest.approx(sacre.corpus_score(hyp, refs).score, abs=1e-6)
        assert not math.isclose(scores[metric], sacre.corpus_score(hyp, refs[1:]).score, abs_tol=1e-3)
        assert block["signatures"][metric].startswith("nrefs:2|")
    matches = sum(" ".join(h.split()) in {" ".join(r.split()) for r in rs} for h, *rs in zip(hyp, *refs, strict=True))
    assert scores["exact_matches"] == matches
    assert block["signatures"]["exact_match_rate"].startswith("nrefs:2|")
    first = [len(h) / len(r) for h, r in zip(hyp, texts["ref"], strict=True)]
    assert scores["length_ratio"] == pytest.approx(sum(first) / len(first), abs=1e-6)
    assert block["metric_details"]["length_ratio"]["references"] == "scored against the first of the 2 references"
    assert block["signatures"]["length_ratio"].startswith("nrefs:1(first of 2)|")


def test_sentence_level_values_equal_sacrebleus_sentence_scores(ted, files, capsys):
    paths, texts = ted
    base = ["score", "-r", paths["ref"], paths["ref2"], "-i", paths["nemo"], "-l", "eng-deu",
            "-m", "chrF++", "BLEU", "TER", *files[2]]
    code, out, _ = run(capsys, *base, "-sl", "--json")
    assert code == 0
    rows = json.loads(out)["segments"]
    assert [r["segment"] for r in rows] == list(range(1, N_TED + 1))
    chrf, bleu, ter = CHRF(word_order=2), BLEU(effective_order=True), TER()
    for row, hyp, *refs in zip(rows, texts["nemo"], texts["ref"], texts["ref2"], strict=True):
        assert row["chrf_plus_plus"] == pytest.approx(chrf.sentence_score(hyp, refs).score, abs=1e-4)
        assert row["bleu"] == pytest.approx(bleu.sentence_score(hyp, refs).score, abs=1e-4)
        assert row["ter"] == pytest.approx(ter.sentence_score(hyp, refs).score, abs=1e-4)
    code, out, _ = run(capsys, *base, "--sentence-level", "--format", "tsv")
    lines = out.splitlines()
    # the line's composite is over the weighted metrics of the selection: chrF++ alone here, so chrF++ / 100
    assert [r["composite"] for r in rows] == pytest.approx([r["chrf_plus_plus"] / 100 for r in rows], abs=1e-6)
    assert lines[0] == "system\tsegment\tchrf_plus_plus\tbleu\tter\tcomposite" and len(lines) == N_TED + 1
    first = lines[1].split("\t")
    assert first[:2] == ["nemo", "1"] and float(first[2]) == pytest.approx(rows[0]["chrf_plus_plus"])
    code, out, _ = run(capsys, *base, "-sl")
    table = out.splitlines()
    assert table[0].split() == ["segment", "chrf_plus_plus", "bleu", "ter", "composite"]
    assert table[1].split()[:2] == ["1", f"{rows[0]['chrf_plus_plus']:.2f}"]


def test_each_lines_composite_weighs_its_normalised_values_by_the_profile(files, capsys):
    """The test profile weighs chrF++ 0.25 and exact match 0.10: a line's composite is
    (0.25 · chrF++/100 + 0.10 · exact match) / 0.35, by hand from sacrebleu's sentence chrF++."""
    paths, texts, common = files
    code, out, _ = run(capsys, "score", "-r", paths["ref"], "-i", paths["a"], "-l", "eng-spa",
                       "-m", "chrf++,exact_match_rate", "-sl", "--json", *common)
    assert code == 0
    block = json.loads(out)
    assert block["composite_profile"]["scope"] == "profile"
    chrf = CHRF(word_order=2)
    expected = [(0.25 * chrf.sentence_score(h, [r]).score / 100 + 0.10 * float(h == r)) / 0.35
                for h, r in zip(texts["a"], texts["ref"], strict=True)]
    assert [row["composite"] for row in block["segments"]] == pytest.approx(expected, abs=1e-5)
    assert any(h == r for h, r in zip(texts["a"], texts["ref"], strict=True))  # both terms are exercised


def test_several_systems_give_a_table_a_json_list_and_tsv_rows(ted, files, capsys):
    paths, texts = ted
    systems = ("nemo", "uedin", "facebook_ai")
    base = ["score", "-s", paths["src"], "-r", paths["ref"], "-l", "eng-deu", "-m", "chrf_plus_plus,bleu", *files[2]]
    code, out, _ = run(capsys, *base, "-i", *(paths[s] for s in systems), "--json")
    assert code == 0
    blocks = json.loads(out)
    assert [(b["system"], b["file"]) for b in blocks] == [(s, str(paths[s])) for s in systems]
    for block, system in zip(blocks, systems, strict=True):
        expected = CHRF(word_order=2).corpus_score(texts[system], [texts["ref"]]).score
        assert block["scores"]["chrf_plus_plus"] == pytest.approx(expected, abs=1e-6)
        assert block["scores"]["bleu"] == pytest.approx(BLEU().corpus_score(texts[system], [texts["ref"]]).score,
                                                        abs=1e-6)
    # -i a -i b extends the list as -i a b does
    code, out, _ = run(capsys, *base, "-i", paths["nemo"], "-i", paths["uedin"], paths["facebook_ai"], "--json")
    assert [b["scores"] for b in json.loads(out)] == [b["scores"] for b in blocks]
    code, out, _ = run(capsys, *base, "-i", *(paths[s] for s in systems))
    lines = out.splitlines()
    assert lines[1].split() == list(systems)
    chrf_row = next(line for line in lines if line.startswith("chrf_plus_plus "))
    assert chrf_row.split() == ["chrf_plus_plus", *(f"{b['scores']['chrf_plus_plus']:.4f}" for b in blocks)]
    assert str(paths["nemo"].parent) not in out
    assert sum(line.startswith("chrf_plus_plus signature:") for line in lines) == 1  # shared: printed once
    code, out, _ = run(capsys, *base, "-i", *(paths[s] for s in systems), "-f", "tsv")
    header, *rows = out.splitlines()
    columns = header.split("\t")
    assert columns[0] == "system" and [r.split("\t")[0] for r in rows] == list(systems)
    assert [float(r.split("\t")[columns.index("bleu")]) for r in rows] == [b["scores"]["bleu"] for b in blocks]


def _chinese(tmp_path) -> tuple[dict, dict]:
    """Unspaced Chinese text (sacrebleu's 13a keeps a whole sentence as one token; zh splits characters)."""
    rng = random.Random(7)
    chars = "我你他她们的是在有不这人中大为上个国和地到以说时要就出会可也你对生能而子那得于着下自之年过发后作"
    refs = ["".join(rng.choice(chars) for _ in range(rng.randint(8, 20))) + "。" for _ in range(60)]
    hyps = ["".join(c if rng.random() > 0.25 else rng.choice(chars) for c in r) for r in refs]
    paths = {"ref": tmp_path / "ref.zh", "hyp": tmp_path / "hyp.zh"}
    for name, lines in (("ref", refs), ("hyp", hyps)):
        paths[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths, {"ref": refs, "hyp": hyps}


@pytest.mark.parametrize("pair", ["en-zh", "eng-zho", "eng-cmn"])
def test_chinese_target_uses_sacrebleus_zh_tokenizer(files, capsys, tmp_path, pair):
    paths, texts = _chinese(tmp_path)
    code, out, _ = run(capsys, "score", "-r", paths["ref"], "-i", paths["hyp"], "-l", pair, "-m", "bleu", "--json",
                       *files[2])
    assert code == 0
    block = json.loads(out)
    chosen = BLEU(trg_lang="zh")  # sacrebleu's own choice for a Chinese target (sacrebleu -l en-zh)
    assert block["scores"]["bleu"] == pytest.approx(chosen.corpus_score(texts["hyp"], [texts["ref"]]).score,
                                                    abs=1e-6)
    assert "|tok:zh|" in block["signatures"]["bleu"]
    code, out, _ = run(capsys, "score", "-r", paths["ref"], "-i", paths["hyp"], "-l", pair, "-m", "bleu", "--json",
                       "--tokenize", "13a", *files[2])
    forced = json.loads(out)
    # 13a keeps each unspaced line as one word: the reference itself gets BLEU 0, so BLEU fails its reference
    # check and is not counted; the number it measured is sacrebleu's 13a BLEU
    assert forced["withheld"]["bleu"] == pytest.approx(
        BLEU(tokenize="13a").corpus_score(texts["hyp"], [texts["ref"]]).score, abs=1e-6)
    assert forced["scores"]["bleu"] is None and "reference check" in forced["null_reasons"]["bleu"]
    assert "|tok:13a|" in forced["signatures"]["bleu"]


def test_a_tokenizer_whose_package_is_missing_makes_bleu_null_with_the_install_line(files, capsys, tmp_path):
    if importlib.util.find_spec("MeCab") is not None:
        pytest.skip("mecab-python3 is installed: ja-mecab works here")
    paths, _ = _chinese(tmp_path)
    code, out, _ = run(capsys, "score", "-r", paths["ref"], "-i", paths["hyp"], "-l", "en-ja", "-m", "bleu,chrF++",
                       "--json", *files[2])
    assert code == 0
    block = json.loads(out)
    assert block["scores"]["bleu"] is None and block["scores"]["chrf_plus_plus"] is not None
    reason = block["null_reasons"]["bleu"]
    assert "ja-mecab" in reason and "pip install 'sacrebleu[ja]'" in reason


@pytest.mark.parametrize("names,expected", [
    (["chrF++", "BLEU", "TER"], ["chrf_plus_plus", "bleu", "ter"]),
    (["chrfpp,bleu", "ter"], ["chrf_plus_plus", "bleu", "ter"]),
    (["chrf", "--chrf-word-order", "2"], ["chrf_plus_plus"]),
    (["bleu", "bleu,BLEU"], ["bleu"]),
])
def test_sacrebleus_metric_names_are_accepted(files, capsys, names, expected):
    paths, texts, common = files
    code, out, _ = run(capsys, "score", "-r", paths["ref"], "-i", paths["a"], "-l", "eng-spa", "-m", *names,
                       "--json", *common)
    assert code == 0
    block = json.loads(out)
    assert [m for m in block["signatures"] if m != "composite"] == expected
    if "chrf_plus_plus" in expected:
        assert block["scores"]["chrf_plus_plus"] == pytest.approx(
            CHRF(word_order=2).corpus_score(texts["a"], [texts["ref"]]).score, abs=1e-6)


@pytest.mark.parametrize("names,expected", [
    (["chrf"], "'chrf' is sacrebleu's chrF of character n-grams only"),
    (["blue"], "unknown metric 'blue' (did you mean 'bleu'?); known: "),
    (["chrfp"], "unknown metric 'chrfp' (did you mean 'chrfpp'?); known: "),  # sacrebleu's aliases are names too
    (["xyz"], "unknown metric 'xyz'; known: "),  # nothing close: no guess
])
def test_a_metric_name_lyss_lacks_is_one_error_line_with_the_names(files, capsys, names, expected):
    paths, _, common = files
    code, _, err = run(capsys, "score", "-r", paths["ref"], "-i", paths["a"], "-l", "eng-spa", "-m", *names, *common)
    assert code == 2
    line = one_line(err)
    assert expected in line and "chrf_plus_plus" in line and "semantic_score" in line


def test_the_source_is_needed_only_by_metrics_that_read_it(files, capsys):
    paths, texts, common = files
    base = ["score", "-r", paths["ref"], "-i", paths["a"], "-l", "eng-spa", *common]
    code, out, _ = run(capsys, *base, "-m", "chrf_plus_plus,bleu,ter", "--json")
    assert code == 0
    scores = json.loads(out)["scores"]
    assert scores["ter"] == pytest.approx(TER().corpus_score(texts["a"], [texts["ref"]]).score, abs=1e-6)
    code, _, err = run(capsys, *base, "-m", "chrf_plus_plus,semantic_score,hallucination_rate")
    assert code == 2
    assert "semantic_score, hallucination_rate read the source: give -s SRC" in one_line(err)
    code, out, err = run(capsys, *base, "--json")
    assert code == 0
    block = json.loads(out)
    scored = [m for m in block["signatures"] if m != "composite"]
    assert scored == [m for m in score_command.model_free_metrics() if not score_command.reads_source(m)]
    assert {"chrf_plus_plus", "bleu", "ter"} <= set(scored) and "semantic_score" not in scored
    assert err.count("no --source: ") == 1 and "semantic_score" in err
    assert block["skipped_caveats"]["source_copy"] == "needs the source (--source)"


def test_confidence_intervals_for_bleu_and_ter_are_sacrebleus(ted, files, capsys, monkeypatch):
    """`--ci` (sacrebleu's --confidence) gives BLEU and TER intervals too; with sacrebleu's seed and 1,000
    resamples they are sacrebleu's own: the same draws, the same order statistics."""
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)  # sacrebleu's default seed, 12345
    paths, texts = ted
    code, out, _ = run(capsys, "score", "-r", paths["ref"], "-i", paths["nemo"], "-l", "eng-deu", "-m", "bleu",
                       "ter", "chrF++", "--confidence", "--n", "1000", "--seed", "12345", "--json", *files[2])
    assert code == 0
    scores = json.loads(out)["scores"]
    intervals = scores["confidence_intervals"]
    for metric, sacre in (("bleu", BLEU()), ("ter", TER()), ("chrf_plus_plus", CHRF(word_order=2))):
        result = sacre.corpus_score(texts["nemo"], [texts["ref"]], n_bootstrap=1000)
        ci = intervals[metric]
        assert (ci["ci_upper"] - ci["ci_lower"]) / 2 == pytest.approx(result._ci, abs=1e-4)
        assert ci["ci_lower"] <= scores[metric] <= ci["ci_upper"]
    assert "composite" in intervals


@pytest.mark.parametrize("flags,bleu_lc,chrf_lc,ter_cs", [
    ((), False, False, False),  # sacrebleu's defaults: BLEU and chrF count case, TER (as TERCOM) does not
    (("-lc",), True, False, False),
    (("--lowercase", "--chrf-lowercase", "--ter-case-sensitive"), True, True, True),
])
def test_case_flags_are_sacrebleus(files, capsys, tmp_path, flags, bleu_lc, chrf_lc, ter_cs):
    paths, texts, common = files
    rng = random.Random(7)
    shouted = [" ".join(w.upper() if rng.random() < 0.3 else w for w in line.split()) for line in texts["a"]]
    hyp = tmp_path / "shouted.txt"
    hyp.write_text("\n".join(shouted) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "score", "-r", paths["ref"], "-i", hyp, "-l", "eng-spa", "-m", "chrf++,bleu,ter",
                       "--json", *flags, *common)
    assert code == 0
    block = json.loads(out)
    refs = [texts["ref"]]
    for metric, sacre in (("bleu", BLEU(lowercase=bleu_lc)), ("chrf_plus_plus", CHRF(word_order=2, lowercase=chrf_lc)),
                          ("ter", TER(case_sensitive=ter_cs))):
        assert block["scores"][metric] == pytest.approx(sacre.corpus_score(shouted, refs).score, abs=1e-6)
        assert block["signatures"][metric] == str(sacre.get_signature())
    if bleu_lc:  # upper-casing a third of the words costs BLEU points only when case counts
        assert block["scores"]["bleu"] > BLEU().corpus_score(shouted, refs).score + 10


def test_a_sentencepiece_tokenizer_without_its_model_is_a_null_bleu_and_exit_1_not_a_download(
        files, capsys, spm_home):
    paths, _, common = files
    code, out, err = run(capsys, "score", "-r", paths["ref"], "-i", paths["a"], "-l", "eng-spa", "-m", "bleu",
                         "-tok", "flores200", "--json", *common)
    block = json.loads(out)
    assert code == 1 and block["scores"]["bleu"] is None
    reason = block["null_reasons"]["bleu"]
    assert str(spm_home / "models" / "flores200sacrebleuspm") in reason and "does not download" in reason
    assert err.strip().endswith("lyss score: bleu could not be scored (the output says why)")
    code, out, _ = run(capsys, "score", "-r", paths["ref"], "-i", paths["a"], "-l", "eng-spa",
                       "-m", "bleu,chrf++", "-tok", "flores200", "--json", *common)
    assert code == 0 and json.loads(out)["scores"]["chrf_plus_plus"] is not None  # one metric measured: 0


def test_a_sentencepiece_tokenizer_with_its_model_in_place_is_sacrebleus_bleu(files, capsys, spm_home):
    spm = pytest.importorskip("sentencepiece")
    paths, texts, common = files
    (spm_home / "models").mkdir(parents=True)
    spm.SentencePieceTrainer.train(sentence_iterator=iter(texts["ref"]), vocab_size=40, model_type="unigram",
                                   model_prefix=str(spm_home / "tiny"), minloglevel=2)
    (spm_home / "tiny.model").rename(spm_home / "models" / "flores200sacrebleuspm")
    code, out, _ = run(capsys, "score", "-r", paths["ref"], "-i", paths["a"], "-l", "eng-spa", "-m", "bleu",
                       "-tok", "flores200", "--json", *common)
    block = json.loads(out)
    assert code == 0 and "|tok:flores200|" in block["signatures"]["bleu"]
    expected = BLEU(tokenize="flores200").corpus_score(texts["a"], [texts["ref"]]).score
    assert block["scores"]["bleu"] == pytest.approx(expected, abs=1e-6)
    assert expected != pytest.approx(BLEU().corpus_score(texts["a"], [texts["ref"]]).score, abs=0.5)


@pytest.mark.parametrize("option,first,second", [
    ("-l", "eng-spa", "eng-deu"), ("--format", "json", "tsv"), ("--seed", "1", "2"), ("--tokenize", "13a", "intl"),
    ("--params", "a.yaml", "b.yaml"),
])
def test_a_single_value_option_given_twice_is_a_one_line_error(files, capsys, option, first, second):
    paths, _, common = files
    argv = ["score", "-r", paths["ref"], "-i", paths["a"], "-m", "bleu", "--languages", common[3]]
    argv += [] if option == "-l" else ["-l", "eng-spa"]
    code, out, err = run(capsys, *argv, option, first, option, second)
    assert code == 2 and out == ""
    line = one_line(err)
    assert f"given twice ('{first}', then '{second}'); give it once" in line and option in line


@pytest.mark.parametrize("pair,code_", [("eng-xyz", "xyz"), ("en-zz", "zz"), ("english-deu", "english")])
def test_an_unknown_language_code_is_a_one_line_error(files, capsys, pair, code_):
    paths, _, common = files
    code, out, err = run(capsys, "score", "-r", paths["ref"], "-i", paths["a"], "-l", pair, "-m", "bleu", *common)
    assert code == 2 and out == ""
    assert f"unknown language code '{code_}': not an ISO 639-1 or ISO 639-3 code" in one_line(err)


def test_iso_639_1_codes_resolve_to_the_iso_639_3_cards(files, capsys):
    """`-l en-es` is `-l eng-spa`: the shipped Spanish card, its FST analyzer, hence profile A (issue 19)."""
    paths, _, common = files
    analyzer = Path(yaml.safe_load((ROOT / "data/languages/spa.yaml").read_text())["fst_analyzer"]["path"])
    if not analyzer.exists():
        pytest.skip("apertium-eng-spa is not installed")
    blocks = []
    for pair in ("en-es", "eng-spa"):
        code, out, err = run(capsys, "score", "-s", paths["src"], "-r", paths["ref"], "-i", paths["a"], "-l", pair,
                             "-m", "chrf_plus_plus,fst_acceptance_rate", "--json", *common)
        assert code == 0 and "warning: language" not in err
        blocks.append(json.loads(out))
    for block in blocks:
        assert block["language_cards"]["spa"]["file"].endswith("spa.yaml")
        assert block["composite_profile"]["profile"] == "A"
        assert block["scores"]["fst_acceptance_rate"] is not None
    assert blocks[0]["scores"] == blocks[1]["scores"]


def test_each_warning_is_printed_once(files, capsys, tmp_path):
    """Two systems, a card derived from CLDR (Vietnamese has no card file) and a 20-line file under --ci: each
    warning once on stderr, none repeated in the text, all of them in every JSON block."""
    paths, texts, common = files
    small = {}
    for name in ("ref", "a", "b"):
        small[name] = tmp_path / f"{name}.txt"
        small[name].write_text("\n".join(texts[name][:20]) + "\n", encoding="utf-8")
    argv = ["score", "-r", small["ref"], "-i", small["a"], small["b"], "-l", "eng-vie", "-m", "chrf_plus_plus,bleu",
            "--ci", "--n", "100", *common]
    code, out, err = run(capsys, *argv)
    assert code == 0
    warnings = [line for line in err.splitlines() if line.startswith("lyss: warning:")]
    assert len(warnings) == len(set(warnings))
    assert any("'vie'" in w for w in warnings) and any("has 20 entries" in w for w in warnings)
    assert "warning" not in out
    code, out, _ = run(capsys, *argv, "--json")
    blocks = json.loads(out)
    assert blocks[0]["warnings"] == blocks[1]["warnings"] == [w.removeprefix("lyss: warning: ") for w in warnings]


def test_every_metric_and_the_composite_has_a_signature(files, capsys):
    paths, _, common = files
    metrics = [m for m in score_command.model_free_metrics() if not REGISTRY[m].__dict__.get("needs_embeddings")]
    code, out, _ = run(capsys, "score", "-s", paths["src"], "-r", paths["ref"], "-i", paths["a"], "-l", "en-es",
                       "-m", ",".join(metrics), "--json", *common)
    assert code == 0
    signatures = json.loads(out)["signatures"]
    assert set(signatures) == {*metrics, "composite"}
    version = code_version()
    assert version.startswith("0.1.0+") and len(version) == len("0.1.0+") + 12
    for metric in ("exact_match_rate", "fst_acceptance_rate", "orthographic_accuracy"):
        assert signatures[metric] == "nrefs:1|cards:eng=file,spa=file|version:lyss-" + version
    assert signatures["composite"] == ("profile:A|scope:profile|weights:chrf_plus_plus=0.7143,exact_match_rate=0.2857|"
                                       f"nrefs:1|cards:eng=file,spa=file|embedder:none|version:lyss-{version}")
    # code-switching's own settings join the LYSS signature; sacrebleu's stays whole
    assert signatures["code_switching_rate"].startswith(
        "nrefs:1|cards:eng=file,spa=file|langid:lingua-language-detector ")
    # … and the Spanish card's Hunspell dictionary, down to the bytes of its two files
    spanish = hashlib.sha256(b"".join(Path(f"/usr/share/hunspell/es_ES.{ext}").read_bytes() for ext in ("aff", "dic")))
    assert signatures["code_switching_rate"].endswith(
        f"|zipf:3|margin:1|spelling:es_ES.dic@{spanish.hexdigest()[:12]}|version:lyss-{version}")
    assert signatures["chrf_plus_plus"].endswith("|version:" + metadata.version("sacrebleu"))


def test_an_embedding_metric_signature_names_its_embedder():
    class Named:
        name = "multilingual-e5-small-q4"

    data = score_command.scoring_input(None, [["a"], ["b"]], ["c"], ("eng", "deu", {}, {}))
    data.embeddings = Named()
    assert score_command.lyss_signature("semantic_score", data) == (
        f"nrefs:1(first of 2)|cards:eng=none,deu=none|embedder:multilingual-e5-small-q4|version:lyss-{code_version()}")


def test_a_changed_formula_changes_the_lyss_version_in_signatures(tmp_path, monkeypatch):
    """The version LYSS signatures end with is the release plus a hash of the package's sources: one changed
    line of semantic.py (a formula edited without a release) gives another label; the same sources the same."""
    import shutil

    from lyss.aggregate import fingerprint

    package = Path(score_command.__file__).resolve().parents[1]
    copy = tmp_path / "lyss"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(fingerprint.resources, "files", lambda name: copy)
    same = fingerprint.code_version.__wrapped__()
    assert same == code_version()
    semantic = copy / "metrics" / "semantic.py"
    source = semantic.read_text(encoding="utf-8")
    assert "np.sqrt(share)" in source
    semantic.write_text(source.replace("np.sqrt(share)", "share"), encoding="utf-8")
    edited = fingerprint.code_version.__wrapped__()
    assert edited.startswith("0.1.0+") and edited != same


def test_compare_takes_two_references_and_names_systems_shortly(ted, files, capsys):
    paths, texts = ted
    refs = [texts["ref"], texts["ref2"]]
    argv = ["compare", "-r", paths["ref"], paths["ref2"], "-i", paths["nemo"], paths["uedin"], "-l", "en-de",
            "-m", "chrF++", "bleu", "--n", "200", *files[2]]
    code, out, _ = run(capsys, *argv, "--json")
    assert code == 0
    rows = json.loads(out)
    assert {r["system"] for r in rows} == {"uedin"}
    chrf = next(r for r in rows if r["metric"] == "chrf_plus_plus")
    assert chrf["baseline_score"] == pytest.approx(CHRF(word_order=2).corpus_score(texts["nemo"], refs).score,
                                                   abs=1e-9)
    assert chrf["score"] == pytest.approx(CHRF(word_order=2).corpus_score(texts["uedin"], refs).score, abs=1e-9)
    positional = ["compare", paths["ref"], paths["ref2"], *argv[4:]]  # sacrebleu's spelling: the same rows
    assert run(capsys, *positional, "--json")[:2] == (0, out)
    code, out, _ = run(capsys, *argv)
    assert "nemo (baseline)" in out and str(paths["nemo"].parent) not in out
    code, out, _ = run(capsys, *argv, "--format", "tsv")
    assert out.splitlines()[0].split("\t") == ["system", "file", "metric", "score", "baseline_score", "delta",
                                               "ci_lo", "ci_hi", "p_value", "p_holm"]


def test_every_file_is_embedded_in_one_pass_before_the_metrics(files, capsys, monkeypatch):
    from test_embedding_files import CountingBackend, FakeTerminal

    from lyss.embed import embedders

    paths, texts, common = files
    monkeypatch.setenv("LYSS_EMBEDDING_CACHE_MB", "0")  # the counting vectors must not reach the user's store
    monkeypatch.setattr(embedders, "load_backend", lambda spec: CountingBackend())  # the default model's place
    terminal = FakeTerminal()
    monkeypatch.setattr("sys.__stderr__", terminal)
    code, _, err = run(capsys, "score", "-r", paths["ref"], "-i", paths["a"], paths["b"], "-s", paths["src"],
                       "-l", "en-es", "-m", "semantic_score", *common)
    assert code == 0, err
    lines = [line for line in terminal.text.split("\r") if line]
    # sources, references and both systems' outputs in one pass (one sorted set of texts), so no metric embeds more
    distinct = len(set(texts["src"]) | set(texts["ref"]) | set(texts["a"]) | set(texts["b"]))
    assert {line.split(":")[0] for line in lines} == {"embed the sources, references and outputs"}
    assert f"{distinct}/{distinct}" in lines[-1], lines[-1]


def test_the_sentences_a_metric_embeds_are_embedded_in_the_one_pass(files, tmp_path, capsys, monkeypatch):
    """hallucination_rate embeds each output's and anchor's sentences too (its `extra_texts`): they join the one
    pass, so no metric embeds anything after it."""
    from test_embedding_files import CountingBackend, FakeTerminal

    from lyss.embed import embedders

    _, texts, common = files
    lines = {name: [f"{a}. {b}." for a, b in zip(texts[name], texts[name][1:] + texts[name][:1], strict=True)]
             for name in ("src", "ref", "a")}
    for name, rows in lines.items():
        (tmp_path / name).write_text("\n".join(rows) + "\n", encoding="utf-8")
    monkeypatch.setenv("LYSS_EMBEDDING_CACHE_MB", "0")
    monkeypatch.setattr(embedders, "load_backend", lambda spec: CountingBackend())
    terminal = FakeTerminal()
    monkeypatch.setattr("sys.__stderr__", terminal)
    code, _, err = run(capsys, "score", "-r", tmp_path / "ref", "-i", tmp_path / "a", "-s", tmp_path / "src",
                       "-l", "en-es", "-m", "semantic_score,hallucination_rate", *common)
    assert code == 0, err
    progress = [line for line in terminal.text.split("\r") if line]
    assert {line.split(":")[0] for line in progress} == {"embed the sources, references and outputs"}
    sentences = {f"{t}." for name in ("src", "ref", "a") for t in texts[name]}
    distinct = len({t for rows in lines.values() for t in rows} | sentences)
    assert f"{distinct}/{distinct}" in progress[-1], progress[-1]


def test_no_pass_over_every_file_when_nothing_reads_them_from_the_shared_table(files, tmp_path, capsys, monkeypatch):
    """semantic_score with its own embedder (metric_options) and the misaligned_output caveat off: the shared table
    would be asked for nothing, so nothing is embedded ahead; semantic_score embeds with its own model."""
    from test_embedding_files import CountingBackend, FakeTerminal

    from lyss.embed import embedders

    paths, _, common = files
    params = yaml.safe_load(Path(common[1]).read_text(encoding="utf-8"))
    params.setdefault("metric_options", {})["semantic_score"] = {"embedder": "counting"}  # not the shared one
    del params["caveats"]["thresholds"]["misaligned_output"]
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    monkeypatch.setenv("LYSS_EMBEDDING_CACHE_MB", "0")
    monkeypatch.setitem(embedders.BUILTIN, "counting", CountingBackend)
    CountingBackend.texts = []
    monkeypatch.setattr(embedders, "load_backend", lambda spec=None: CountingBackend())
    embedders.get_embedder.cache_clear()
    terminal = FakeTerminal()
    monkeypatch.setattr("sys.__stderr__", terminal)
    code, out, err = run(capsys, "score", "-r", paths["ref"], "-i", paths["a"], "-s", paths["src"], "-l", "en-es",
                         "-m", "semantic_score", "--params", tmp_path / "params.yaml", "--json", *common[2:])
    embedders.get_embedder.cache_clear()
    assert code == 0, err
    assert json.loads(out)["scores"]["semantic_score"] is not None and CountingBackend.texts
    labels = {line.split(":")[0] for line in terminal.text.split("\r") if line}
    assert "embed the sources, references and outputs" not in labels, labels


def test_trailing_whitespace_and_a_byte_order_mark_move_no_metric(files, capsys, tmp_path):
    """sacrebleu rstrips every line; an export's tab, CRLF or BOM must not change length ratio or exact match
    (nor the embedding of the text, which is the same string once read)."""
    paths, texts, common = files
    messy = tmp_path / "a_messy.txt"
    ends = ["\t", "  ", "\r", ""]
    messy.write_bytes(("\ufeff" + "".join(f"{line}{ends[k % 4]}\n" for k, line in enumerate(texts["ref"])))
                      .encode("utf-8"))
    args = ["score", "-r", str(paths["ref"]), "-l", "eng-spa", "-m", "chrf_plus_plus,bleu,ter,exact_match_rate,"
            "length_ratio", "--json", *common, "-i"]
    clean_code, clean, _ = run(capsys, *args, str(paths["ref"]))
    messy_code, messy_out, _ = run(capsys, *args, str(messy))
    assert clean_code == messy_code == 0
    clean_scores, messy_scores = json.loads(clean)["scores"], json.loads(messy_out)["scores"]
    # the reference against itself: every segment an exact match, every length ratio 1
    assert messy_scores["exact_match_rate"] == 1.0 and messy_scores["length_ratio"] == 1.0
    assert messy_scores["chrf_plus_plus"] == 100.0 and messy_scores["ter"] == 0.0
    assert {k: messy_scores[k] for k in ("bleu", "chrf_plus_plus")} == {k: clean_scores[k] for k in ("bleu",
                                                                                                  "chrf_plus_plus")}

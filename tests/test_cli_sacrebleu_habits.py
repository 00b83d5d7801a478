"""What sacrebleu users type, in `lyss score` and `lyss compare`: `-b` (the values only, for scripts) and `-w`
(digits after the decimal point), with sacrebleu's own formatting (`Score.format`) as every golden string; the
hypothesis piped without -i; sacrebleu options LYSS lacks answered with what to do instead; and a reader that stops
reading (`| head`) ends the command quietly."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from sacrebleu.metrics import BLEU, CHRF, TER

sys.path.insert(0, str(Path(__file__).parent))
from plain_text_files import ROOT, run  # noqa: E402

SACREBLEU = {"bleu": BLEU(), "chrf_plus_plus": CHRF(word_order=2), "ter": TER()}


def sacrebleu_b(metric: str, hypotheses: list[str], references: list[str], width: int) -> str:
    """What `sacrebleu -b -w width` prints for the metric: its score formatted by sacrebleu."""
    return SACREBLEU[metric].corpus_score(hypotheses, [references]).format(width=width, score_only=True)


def test_sacrebleus_own_command_line_prints_sacrebleus_numbers(files, capsys):
    """`sacrebleu REF -i HYP -m bleu chrf ter -cw 2 -b -w 2`, the references before the options, typed with
    `lyss score` in place of `sacrebleu`: the same lines, formatted by sacrebleu here."""
    paths, texts, common = files
    code, out, _ = run(capsys, "score", paths["ref"], "-i", paths["a"], "-l", "eng-spa", "-m", "bleu", "chrf",
                       "ter", "-cw", "2", "-b", "-w", 2, *common)
    assert code == 0
    assert out.splitlines() == [sacrebleu_b(m, texts["a"], texts["ref"], 2) for m in ("bleu", "chrf_plus_plus", "ter")]


@pytest.mark.parametrize("command", ["score", "compare"])
def test_references_are_given_one_way_and_always_given(files, capsys, command):
    """sacrebleu's positional references or -r, not both (which file is the first reference would depend on the
    order of the words), and never neither; each is one error line before any work."""
    paths, _, common = files
    systems = [paths["a"], paths["b"]]
    code, _, err = run(capsys, command, paths["ref"], "-r", paths["a"], "-i", *systems, "-l", "eng-spa", *common)
    assert code == 2 and err.count("\n") == 1
    assert f"references given twice: {paths['ref']} (positional, sacrebleu's spelling) and -r {paths['a']}" in err
    code, _, err = run(capsys, command, "-i", *systems, "-l", "eng-spa", *common)
    assert code == 2 and err.count("\n") == 1
    assert "the references are required: `-r REF [REF …]`, or sacrebleu's `REF [REF …]` before -i" in err


@pytest.mark.parametrize("width", [0, 1, 2, 3])
def test_score_only_prints_sacrebleus_values_one_per_line(files, capsys, width):
    paths, texts, common = files
    code, out, _ = run(capsys, "score", "-r", paths["ref"], "-i", paths["a"], "-l", "eng-spa",
                       "-m", "bleu", "chrF++", "ter", "-b", "-w", width, *common)
    assert code == 0
    assert out.splitlines() == [sacrebleu_b(m, texts["a"], texts["ref"], width)
                                for m in ("bleu", "chrf_plus_plus", "ter")]


def test_score_only_of_several_systems_is_a_line_each(files, capsys):
    paths, texts, common = files
    systems = ("a", "b", "c")
    code, out, _ = run(capsys, "score", "-r", paths["ref"], "-i", *(paths[s] for s in systems), "-l", "eng-spa",
                       "-m", "chrF++", "bleu", "-b", "-w", 2, *common)
    assert code == 0
    assert out.splitlines() == ["\t".join(sacrebleu_b(m, texts[s], texts["ref"], 2) for m in ("chrf_plus_plus", "bleu"))
                                for s in systems]
    code, tsv, _ = run(capsys, "score", "-r", paths["ref"], "-i", *(paths[s] for s in systems), "-l", "eng-spa",
                       "-m", "chrF++", "bleu", "-b", "-w", 2, "-f", "tsv", *common)
    assert code == 0 and tsv == out


def test_score_only_json_is_a_number_a_list_or_a_row_per_system(files, capsys):
    """As sacrebleu: one metric, the number; several, a list; several systems, a list of objects."""
    paths, texts, common = files
    base = ["score", "-r", paths["ref"], "-l", "eng-spa", "-b", "-f", "json", *common]
    chrf = {s: CHRF(word_order=2).corpus_score(texts[s], [texts["ref"]]).score for s in ("a", "b")}
    bleu = BLEU().corpus_score(texts["a"], [texts["ref"]]).score
    _, out, _ = run(capsys, *base, "-i", paths["a"], "-m", "chrF++", "-w", 3)
    assert json.loads(out) == round(chrf["a"], 3)
    _, out, _ = run(capsys, *base, "-i", paths["a"], "-m", "chrF++", "bleu")
    assert json.loads(out) == pytest.approx([chrf["a"], bleu], abs=1e-6)  # no -w: full precision
    _, out, _ = run(capsys, *base, "-i", paths["a"], paths["b"], "-m", "chrF++", "-w", 1)
    assert json.loads(out) == [{"system": "a", "chrf_plus_plus": round(chrf["a"], 1)},
                               {"system": "b", "chrf_plus_plus": round(chrf["b"], 1)}]


def test_score_only_without_metrics_prints_the_composite(files, capsys):
    """The test profile weighs chrF++ 0.25 and exact match 0.10: by hand, (0.25 · chrF++/100 + 0.10 · exact
    match rate) / 0.35 from sacrebleu's corpus chrF++."""
    paths, texts, common = files
    code, out, _ = run(capsys, "score", "-r", paths["ref"], "-i", paths["a"], "-l", "eng-spa", "-b", "-w", 3,
                       *common)
    chrf = CHRF(word_order=2).corpus_score(texts["a"], [texts["ref"]]).score
    exact = sum(h == r for h, r in zip(texts["a"], texts["ref"], strict=True)) / len(texts["ref"])
    assert code == 0 and exact > 0
    assert out.strip() == f"{(0.25 * chrf / 100 + 0.10 * exact) / 0.35:.3f}"


def test_score_only_prints_nan_for_a_null_metric_its_reason_on_stderr_and_exits_1(files, capsys, spm_home):
    paths, texts, common = files
    code, out, err = run(capsys, "score", "-r", paths["ref"], "-i", paths["a"], "-l", "eng-spa", "-m", "bleu",
                         "chrF++", "-tok", "flores200", "-b", "-w", 1, *common)
    assert code == 0  # chrF++ measured
    assert out.splitlines() == ["nan", sacrebleu_b("chrf_plus_plus", texts["a"], texts["ref"], 1)]
    assert "a: bleu is nan: sacrebleu's flores200 tokenizer needs its SentencePiece model" in err
    code, out, _ = run(capsys, "score", "-r", paths["ref"], "-i", paths["a"], "-l", "eng-spa", "-m", "bleu",
                       "-tok", "flores200", "-b", *common)
    assert (code, out) == (1, "nan\n")


def test_score_only_of_a_small_file_prints_what_the_metric_measured(files, capsys, tmp_path):
    """20 lines are too few for the composite (min_entries 30), not for chrF++: -b prints sacrebleu's number."""
    paths, texts, common = files
    small = {name: tmp_path / f"{name}.txt" for name in ("ref", "a")}
    for name, path in small.items():
        path.write_text("\n".join(texts[name][:20]) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "score", "-r", small["ref"], "-i", small["a"], "-l", "eng-spa", "-m", "chrF++",
                       "-b", "-w", 2, *common)
    assert code == 0 and out.strip() == sacrebleu_b("chrf_plus_plus", texts["a"][:20], texts["ref"][:20], 2)


def test_score_only_with_ci_shows_the_interval_at_the_same_width(files, capsys):
    paths, texts, common = files
    code, out, _ = run(capsys, "score", "-r", paths["ref"], "-i", paths["a"], "-l", "eng-spa", "-m", "chrF++",
                       "-b", "-w", 2, "--ci", "--n", 200, *common)
    full = json.loads(run(capsys, "score", "-r", paths["ref"], "-i", paths["a"], "-l", "eng-spa", "-m", "chrF++",
                          "--ci", "--n", 200, "--json", *common)[1])
    ci = full["scores"]["confidence_intervals"]["chrf_plus_plus"]
    assert code == 0
    assert out.strip() == (f"{sacrebleu_b('chrf_plus_plus', texts['a'], texts['ref'], 2)} "
                           f"[{ci['ci_lower']:.2f}, {ci['ci_upper']:.2f}]")


def test_score_only_and_sentence_level_together_is_an_error(files, capsys):
    paths, _, common = files
    code, out, err = run(capsys, "score", "-r", paths["ref"], "-i", paths["a"], "-l", "eng-spa", "-m", "bleu",
                         "-b", "-sl", *common)
    assert code == 2 and out == "" and "--score-only" in err and "-sl" in err


def test_width_sets_the_decimals_of_the_text_report_and_of_compare(files, capsys):
    paths, texts, common = files
    code, out, _ = run(capsys, "score", "-r", paths["ref"], "-i", paths["a"], "-l", "eng-spa", "-m", "chrF++",
                       "bleu", "-w", 2, *common)
    assert code == 0
    lines = dict(line.split(None, 1) for line in out.splitlines()[1:3])
    assert lines == {m: sacrebleu_b(m, texts["a"], texts["ref"], 2) for m in ("chrf_plus_plus", "bleu")}
    code, out, _ = run(capsys, "compare", "-r", paths["ref"], "-i", paths["a"], paths["c"], "-l", "eng-spa",
                       "-m", "chrF++", "-w", 1, "--n", 100, *common)
    assert code == 0
    rows = [line.split() for line in out.splitlines()[1:3]]
    assert rows[0][:2] == ["chrf_plus_plus", "a"] and rows[0][3] == sacrebleu_b("chrf_plus_plus", texts["a"],
                                                                                 texts["ref"], 1)
    c = CHRF(word_order=2).corpus_score(texts["c"], [texts["ref"]]).score
    a = CHRF(word_order=2).corpus_score(texts["a"], [texts["ref"]]).score
    assert rows[1][:3] == ["c", f"{c:.1f}", f"{c - a:+.1f}"]


def test_json_and_tsv_keep_full_precision_under_width(files, capsys):
    paths, texts, common = files
    _, out, _ = run(capsys, "score", "-r", paths["ref"], "-i", paths["a"], "-l", "eng-spa", "-m", "chrF++",
                    "-w", 1, "--json", *common)
    assert json.loads(out)["scores"]["chrf_plus_plus"] == pytest.approx(
        CHRF(word_order=2).corpus_score(texts["a"], [texts["ref"]]).score, abs=1e-6)


def test_a_reader_that_stops_reading_ends_lyss_quietly(files):
    """`lyss score … | head -1`: the pipe closes before lyss writes; no traceback, the shell's SIGPIPE status."""
    paths, _, common = files
    process = subprocess.Popen([sys.executable, "-m", "lyss.cli", "score", "-r", str(paths["ref"]), "-i",
                                str(paths["a"]), "-l", "eng-spa", "-m", "chrF++", "-sl", *common],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    process.stdout.close()  # the reader is gone before the first line
    err = process.stderr.read().decode()
    assert process.wait() == 141
    assert "Traceback" not in err and "BrokenPipeError" not in err


def test_score_only_says_why_the_composite_is_nan(files, capsys, tmp_path):
    """20 lines: every metric is measured but kept out of the composite (min_entries 30), so there is none."""
    paths, texts, common = files
    small = {name: tmp_path / f"{name}.txt" for name in ("ref", "a")}
    for name, path in small.items():
        path.write_text("\n".join(texts[name][:20]) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "score", "-r", small["ref"], "-i", small["a"], "-l", "eng-spa", "-b", *common)
    assert code == 0 and out == "nan\n"
    assert "a: composite is nan: composite over no metric" in err
    assert "kept out: only 20 entries contribute a value (composite.min_entries is 30)" in err


@pytest.mark.parametrize("command,argv,expected", [
    ("score", ["--paired-bs"], "--paired-bs: paired tests are `lyss compare`, which takes --paired-bs as sacrebleu"),
    ("score", ["--paired-bs-n", "100"], "--paired-bs-n: paired tests are `lyss compare`"),
    ("compare", ["--smooth-method", "floor"], "--smooth-method: the LYSS spec fixes it at sacrebleu's default"),
    ("score", ["-t", "wmt20"], "argument --test-set/-t: LYSS downloads no test set: give its files"),
    ("score", ["--smooth-method", "floor"], "--smooth-method: the LYSS spec fixes it at sacrebleu's default"),
    ("score", ["-nr", "2"], "-nr: several references are several files: -r A B"),
    ("score", ["--tok", "13a"], "unrecognized arguments: --tok ("),  # no prefix of -tok/--tokenize is taken
])
def test_a_sacrebleu_option_lyss_lacks_is_one_error_line_saying_what_to_do(files, capsys, command, argv, expected):
    paths, _, common = files
    systems = [paths["a"], paths["b"]] if command == "compare" else [paths["a"]]
    code, out, err = run(capsys, command, "-r", paths["ref"], "-i", *systems, "-l", "eng-spa", "-m", "bleu", *argv,
                         *common)
    assert code == 2 and out == ""
    assert err.startswith(f"lyss: error: lyss {command}: ") and expected in err and err.count("\n") == 1


def test_without_i_the_hypothesis_is_read_from_a_pipe_not_waited_for_at_a_terminal(files, capsys, monkeypatch):
    """`cat hyp | lyss score -r ref -l …`, as sacrebleu reads it; at a terminal, an error instead of a silent wait."""
    paths, texts, common = files
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(paths["a"].read_bytes()), encoding="utf-8"))
    code, out, _ = run(capsys, "score", "-r", paths["ref"], "-l", "eng-spa", "-m", "chrF++", "-b", "-w", 2, *common)
    assert code == 0 and out.strip() == sacrebleu_b("chrf_plus_plus", texts["a"], texts["ref"], 2)

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr("sys.stdin", Terminal())
    code, out, err = run(capsys, "score", "-r", paths["ref"], "-l", "eng-spa", "-m", "chrF++", *common)
    assert code == 2 and out == ""
    assert "--hypothesis: give the system output with -i HYP, or pipe it to standard input" in err


def test_sacrebleus_metrics_need_no_language_as_in_sacrebleu(files, capsys):
    """`lyss score REF -i HYP -m bleu chrf ter -cw 2 -b` without -l, as sacrebleu is typed: sacrebleu's lines,
    and no warning about the undetermined language's card."""
    paths, texts, common = files
    code, out, err = run(capsys, "score", paths["ref"], "-i", paths["a"], "-m", "bleu", "chrf", "ter", "-cw", "2",
                         "-b", "-w", 2, *common)
    assert code == 0 and "und" not in err and "no -l" not in err
    assert out.splitlines() == [sacrebleu_b(m, texts["a"], texts["ref"], 2) for m in ("bleu", "chrf_plus_plus", "ter")]


def test_without_l_bleu_tokenizes_as_sacrebleu_without_l(capsys, tmp_path):
    """No target language: BLEU with 13a, sacrebleu's default, and a warning that the references are Chinese;
    `-l en-zh`: sacrebleu's zh tokenizer, and no warning (nor with a tokenizer chosen). On Chinese written with
    spaces between words the two differ (13a splits at the spaces, zh at every character), so the test tells
    them apart."""
    references = ["我们 明天 去 北京 。", "他 喜欢 喝 茶 和 咖啡 。", "这 本 书 很 有 意思 。", "今天 天气 很 好 。"]
    outputs = ["我们 明天 去 上海 。", "他 喜欢 喝 咖啡 和 茶 。", "这 本 书 非常 有 意思 。", "今天 天气 很 好 。"]
    ref, hyp = tmp_path / "ref.zh", tmp_path / "hyp.zh"
    ref.write_text("\n".join(references) + "\n", encoding="utf-8")
    hyp.write_text("\n".join(outputs) + "\n", encoding="utf-8")
    scores, warned = {}, {}
    for pair in ([], ["-l", "en-zh"]):
        code, out, err = run(capsys, "score", ref, "-i", hyp, "-m", "bleu", "-b", "-f", "json", *pair)
        assert code == 0
        scores[bool(pair)], warned[bool(pair)] = json.loads(out), "no -l: bleu tokenized with 13a" in err
    assert warned == {False: True, True: False}
    assert "no -l" not in run(capsys, "score", ref, "-i", hyp, "-m", "bleu", "-b", "--tokenize", "13a")[2]
    assert scores[False] == pytest.approx(BLEU().corpus_score(outputs, [references]).score, abs=1e-6)
    assert scores[True] == pytest.approx(BLEU(tokenize="zh").corpus_score(outputs, [references]).score, abs=1e-6)
    assert abs(scores[True] - scores[False]) > 10


@pytest.mark.parametrize("command", ["score", "compare"])
def test_a_metric_that_needs_the_languages_asks_for_l(files, capsys, command):
    """Without -l the default metrics, and a metric named that reads a card, are one error line saying which
    metrics can run without it; `compare` of sacrebleu's metrics runs as with the languages given."""
    paths, _, common = files
    base = [command, "-s", paths["src"], paths["ref"], "-i", paths["a"], paths["b"], *common]
    code, _, err = run(capsys, *base)
    assert code == 2 and err.count("\n") == 1
    assert "the default metrics need the languages: give -l SRC-TGT (e.g. en-de), or choose with -m metrics" in err
    code, _, err = run(capsys, *base, "-m", "bleu", "orthographic_accuracy")
    assert code == 2 and "orthographic_accuracy need the languages" in err and "bleu, ter" in err
    if command == "compare":
        outputs = [run(capsys, *base, "-m", "bleu", "chrF++", "--json", *pair)[1] for pair in ([], ["-l", "eng-spa"])]
        assert json.loads(outputs[0]) == json.loads(outputs[1])

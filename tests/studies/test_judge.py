"""The LLM judge against a local chat-completions server: probabilities from logprobs, the answer
fallback, rubric renderings, errors per item, and the `lyss judge` command."""

import json

import pytest
from openai_server import Script, serve

from lyss.cli import main
from lyss.errors import InputError
from lyss.studies.judge import Judge, judge_items
from lyss.studies.probe import read_runs

KEY_ENV = "LYSS_TEST_JUDGE_KEY"


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-canary-123")


def options(base_url: str, **extra) -> dict:
    return {"base_url": base_url, "model": "judge-model", "api_key_env": KEY_ENV, "backoff_s": 0.01,
            "timeout_s": 5, "concurrency": 2, **extra}


def item(item_id: str, prediction: str | None, reference: str = "") -> dict:
    return {"id": item_id, "source": f"source of {item_id}", "reference": reference, "prediction": prediction}


def user_prompt(request: dict) -> str:
    return request["body"]["messages"][-1]["content"]


def test_probabilities_are_renormalised_over_the_options():
    # ln 0.6 for "4", ln 0.3 for "3", and a non-option token that must not count
    script = Script(distributions={"pred A": {"4": 0.6, "3": 0.3, "Sure": 0.1}})
    with serve(script) as server:
        [result] = judge_items([item("a", "pred A")], options(server.base_url))
    assert result["error"] is None and result["answer"] == "4" and result["grade"] == 4
    assert result["probabilities"] == pytest.approx({"1": 0, "2": 0, "3": 1 / 3, "4": 2 / 3, "5": 0})
    body = server.requests[0]["body"]
    assert body["logprobs"] is True and body["top_logprobs"] == 20 and body["model"] == "judge-model"


def test_spellings_of_one_option_are_summed():
    script = Script(distributions={"pred": {"5": 0.3, " 5": 0.3, "2": 0.3}})
    with serve(script) as server:
        [result] = judge_items([item("a", "pred")], options(server.base_url))
    assert result["probabilities"]["5"] == pytest.approx(2 / 3) and result["grade"] == 5


def test_without_logprobs_the_parsed_answer_gets_probability_one():
    with serve(Script(translations={"pred": "3."}, logprobs=False)) as server:
        [result] = judge_items([item("a", "pred")], options(server.base_url))
    assert result["grade"] == 3 and result["probabilities"] == {"1": 0, "2": 0, "3": 1, "4": 0, "5": 0}


def test_answers_outside_the_options_are_item_errors():
    script = Script(distributions={"chatty": {"Sure": 0.9, "I": 0.1}}, translations={"plain": "excellent"})
    with serve(script) as server:
        chatty, plain = judge_items([item("c", "chatty"), item("p", "plain")], options(server.base_url))
        server.script.logprobs = False
        [plain] = judge_items([item("p", "plain")], options(server.base_url))
    assert "no option among the top logprobs" in chatty["error"] and chatty["grade"] is None
    assert chatty["answer"] == "Sure" and chatty["probabilities"] == {}
    assert "'excellent' is not one of 1, 2, 3, 4, 5" in plain["error"]


@pytest.mark.parametrize(("render", "present", "absent"), [
    ("label_definition", "4. Good: Meaning fully preserved", "D."),
    ("definition_only", "4. Meaning fully preserved", "Good"),
    ("label_only", "4. Good\n", "Meaning fully preserved"),
    ("letters", "D. Good: Meaning fully preserved", "4. Good"),
])
def test_rendering_changes_the_prompt(render, present, absent):
    with serve(Script(distributions={"pred": {"4": 0.5, "D": 0.5}})) as server:
        [result] = judge_items([item("a", "pred", reference="the ref")],
                               options(server.base_url, render=render))
    prompt = user_prompt(server.requests[0])
    assert present in prompt and absent not in prompt
    assert "Reference translation:\nthe ref" in prompt and "Translation to grade:\npred" in prompt
    # letters are mapped back to grades: "D" is option 4 there, "4" is option 4 elsewhere
    assert result["grade"] == 4 and result["probabilities"]["4"] == pytest.approx(1.0)


def test_letters_ask_for_letters():
    with serve(Script(distributions={"pred": {"C": 0.9, "B": 0.1}})) as server:
        [result] = judge_items([item("a", "pred")], options(server.base_url, render="letters"))
    assert "Answer with one of A, B, C, D, E and nothing else." in user_prompt(server.requests[0])
    assert result["grade"] == 3 and result["probabilities"]["2"] == pytest.approx(0.1)


def test_faults_become_item_errors_and_others_succeed():
    script = Script(distributions={"pred": {"2": 1.0}}, faults={"broken": "500"})
    with serve(script) as server:
        good, bad, missing = judge_items([item("g", "pred"), item("b", "broken pred"), item("m", None)],
                                         options(server.base_url, max_retries=1))
    assert good["grade"] == 2 and good["error"] is None
    assert bad == {"id": "b", "grade": None, "probabilities": {}, "answer": None,
                   "error": "HTTP 500 after 2 attempts"}
    assert missing["error"] == "no prediction to grade"
    assert len(server.requests) == 3  # two for the broken item, none for the missing prediction


def test_bad_judge_options_are_input_errors():
    with pytest.raises(InputError, match="unknown rendering 'fancy'"):
        Judge(options("http://127.0.0.1:9/v1", render="fancy"))
    with pytest.raises(InputError, match="not an integer grade"):
        Judge(options("http://127.0.0.1:9/v1", rubric=[{"token": "A", "label": "x", "definition": "y"}] * 2))


def test_judge_command_writes_one_row_per_corpus_entry(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": i, "source": f"src {i}", "reference": f"ref {i}"}) + "\n"
                              for i in ("1", "2", "3")), encoding="utf-8")
    translations = tmp_path / "method.jsonl"
    translations.write_text(json.dumps({"id": "1", "prediction": "good pred", "error": None}) + "\n"
                            + json.dumps({"id": "2", "prediction": None, "error": "HTTP 500"}) + "\n",
                            encoding="utf-8")
    out = tmp_path / "judged.jsonl"
    with serve(Script(distributions={"good pred": {"5": 0.8, "4": 0.2}})) as server:
        code = main(["judge", "--corpus", str(corpus), "--translations", str(translations),
                     "--base-url", server.base_url, "--model", "judge-model", "--api-key-env", KEY_ENV,
                     "--render", "definition_only", "--out", str(out)])
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert code == 0 and [r["id"] for r in rows] == ["1", "2", "3"]
    assert rows[0]["grade"] == 5 and rows[0]["probabilities"]["5"] == pytest.approx(0.8)
    assert [r["error"] for r in rows[1:]] == ["no prediction to grade"] * 2
    assert len(server.requests) == 1 and "ref 1" in user_prompt(server.requests[0])
    assert "sk-canary-123" not in out.read_text(encoding="utf-8")


def test_judge_command_rejects_translations_of_another_corpus(tmp_path, capsys):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "1", "source": "s", "reference": "r"}) + "\n", encoding="utf-8")
    translations = tmp_path / "method.jsonl"
    translations.write_text(json.dumps({"id": "99", "prediction": "p"}) + "\n", encoding="utf-8")
    code = main(["judge", "--corpus", str(corpus), "--translations", str(translations), "--base-url",
                 "http://127.0.0.1:9/v1", "--model", "m", "--api-key-env", KEY_ENV,
                 "--out", str(tmp_path / "out.jsonl")])
    assert code == 2 and "id '99' is not in the corpus" in capsys.readouterr().err


def write_probe_inputs(tmp_path, scores) -> tuple:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": str(i), "source": f"src {i}", "reference": "",
                                          "human_score": score}) + "\n"
                              for i, score in enumerate(scores)), encoding="utf-8")
    translations = tmp_path / "method.jsonl"
    rows = [{"id": str(i), "prediction": f"pred {i}", "error": None} for i in range(len(scores))]
    translations.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return corpus, translations


def judge_args(server, corpus, translations, out, *extra) -> list[str]:
    return ["judge", "--corpus", str(corpus), "--translations", str(translations), "--base-url",
            server.base_url, "--model", "m", "--api-key-env", KEY_ENV, "--out", str(out), *extra]


def test_probe_rows_feed_lyss_probe(tmp_path):
    corpus, translations = write_probe_inputs(tmp_path, [4, 2, 5.0])
    script = Script(distributions={"pred 0": {"4": 0.7, "3": 0.3, "D": 0.6, "C": 0.4},
                                   "pred 1": {"2": 0.9, "1": 0.1, "B": 0.2, "A": 0.8},
                                   "pred 2": {"5": 1.0, "E": 1.0}},
                    faults_at={4: "400"})  # the first request of the second call fails
    with serve(script) as server:
        assert main(judge_args(server, corpus, translations, tmp_path / "c0.jsonl",
                               "--condition", "C0", "--run-id", "1", "--concurrency", "1")) == 0
        assert main(judge_args(server, corpus, translations, tmp_path / "c1.jsonl", "--render", "letters",
                               "--condition", "C1", "--run-id", "1", "--concurrency", "1")) == 0
    c0 = [json.loads(line) for line in (tmp_path / "c0.jsonl").read_text().splitlines()]
    c1 = [json.loads(line) for line in (tmp_path / "c1.jsonl").read_text().splitlines()]
    assert c0[0] == {"run": "1", "condition": "C0", "item": "0", "gold": "4",
                     "probs": pytest.approx({"1": 0, "2": 0, "3": 0.3, "4": 0.7, "5": 0}),
                     "options": {t: t for t in "12345"}}
    assert [r["item"] for r in c1] == ["1", "2"]  # item 0 failed and is left out
    assert c1[0]["probs"] == pytest.approx({"A": 0.8, "B": 0.2, "C": 0, "D": 0, "E": 0})
    assert c1[0]["options"] == dict(zip("ABCDE", "12345", strict=True))
    runs = tmp_path / "runs.jsonl"
    runs.write_text((tmp_path / "c0.jsonl").read_text() + (tmp_path / "c1.jsonl").read_text())
    records = read_runs(runs)
    assert [(r.condition, r.item, r.correct) for r in records] == [
        ("C0", "0", True), ("C0", "1", True), ("C0", "2", True), ("C1", "1", False), ("C1", "2", True)]
    assert main(["probe", str(runs), "--out", str(tmp_path / "probe"), "--resamples", "50"]) == 0


def test_probe_mode_needs_gold_grades_before_any_request(tmp_path, capsys):
    corpus, translations = write_probe_inputs(tmp_path, [4, 3.5])
    with serve(Script()) as server:
        code = main(judge_args(server, corpus, translations, tmp_path / "out.jsonl",
                               "--condition", "C0", "--run-id", "1"))
        unpaired = judge_args(server, corpus, translations, tmp_path / "out.jsonl", "--condition", "C0")
        assert main(unpaired) == 2
    assert code == 2 and server.requests == []
    err = capsys.readouterr().err
    assert "entry '1': expected a grade in 1, 2, 3, 4, 5, got 3.5" in err and "human_score" in err
    assert "--condition and --run-id go together" in err

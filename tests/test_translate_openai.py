"""The `openai_compatible` method against a local chat-completions server: prompts, usage and cost,
retries and their limits, resume, concurrency, and that the API key never leaks."""

import json
import threading

import pytest
from openai_server import Script, serve

from lyss.errors import InputError
from lyss.translate import MethodContext, build_translator, openai_compatible
from lyss.translate.runner import partial_path, settings_key, translate_corpus

KEY_ENV = "LYSS_TEST_OPENAI_KEY"
CANARY = "sk-canary-123"
PRICES = {"mt-model": {"input_per_1m": 2.0, "output_per_1m": 8.0, "cached_per_1m": 0.5}}


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, CANARY)


def entry(entry_id: str, source: str, glossary=()) -> dict:
    return {"id": entry_id, "source": source, "reference": "", "glossary": list(glossary)}


def make(base_url: str, **options):
    settings = {"kind": "openai_compatible", "base_url": base_url, "model": "mt-model",
                "api_key_env": KEY_ENV, "backoff_s": 0.01, "timeout_s": 5, "concurrency": 1, **options}
    context = MethodContext("gpt", settings, "eng", "spa", prices=PRICES, source="params.yaml")
    return build_translator("openai_compatible", context)


def run(translator, entries, tmp_path, **kwargs) -> tuple[dict, list[dict]]:
    """Records are kept per settings (the store survives a complete run), as in the workflow."""
    out = tmp_path / "out.jsonl"
    settings = getattr(translator, "translator", translator).record_settings()
    meta = translate_corpus(translator, entries, out, settings=settings_key(settings), **kwargs)
    return meta, [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def prompts(server) -> list[str]:
    return [r["body"]["messages"][-1]["content"] for r in server.requests]


def test_success_records_usage_and_cost(tmp_path):
    script = Script(translations={"Hello world": "Hola mundo"}, reasoning_tokens=3, cached_tokens=2)
    with serve(script) as server:
        translator = make(server.base_url, system_prompt="Translate.", prompt_template="{source}")
        meta, [record] = run(translator, [entry("1", "Hello world")], tmp_path)
    assert meta["errors"] == 0
    assert record["prediction"] == record["raw_prediction"] == "Hola mundo"
    # prompt "Translate." + "Hello world" = 3 tokens; completion "Hola mundo" + 3 reasoning = 5
    assert (record["prompt_tokens"], record["completion_tokens"]) == (3, 5)
    assert (record["reasoning_tokens"], record["cached_tokens"]) == (3, 2)
    # (3 - 2 cached) * $2 + 2 * $0.5 + 5 * $8 per million
    assert record["cost_usd"] == pytest.approx(43e-6)
    assert record["error"] is None
    # the wall-clock part is kept apart, so the output is the same bytes on any machine
    assert "latency_s" not in record
    timing = json.loads((tmp_path / "out.timing.json").read_text(encoding="utf-8"))
    assert timing["latency_s"]["1"] > 0 and timing["elapsed_seconds"] > 0
    assert translator.cost_known


def test_unknown_model_price_costs_zero_and_is_flagged(tmp_path):
    with serve(Script()) as server:
        translator = make(server.base_url, model="unpriced")
        _, [record] = run(translator, [entry("1", "Hi")], tmp_path)
    assert record["cost_usd"] == 0.0 and record["error"] is None
    assert record["reasoning_tokens"] == 0 and record["cached_tokens"] == 0  # details absent → 0
    assert translator.cost_known is False


def test_glossary_coaching_renders_terms_into_the_prompt(tmp_path):
    entries = [entry("1", "The cat sleeps", [{"source": "cat", "target": "gato"}]), entry("2", "No terms")]
    with serve(Script()) as server:
        run(make(server.base_url, glossary_coaching=True), entries, tmp_path)
        run(make(server.base_url), entries[:1], tmp_path)
    coached, plain, uncoached = prompts(server)
    assert "- cat → gato" in coached and "The cat sleeps" in coached and "eng" in coached and "spa" in coached
    assert "→" not in plain and "→" not in uncoached


def test_model_temperature_and_limits_are_sent(tmp_path):
    with serve(Script()) as server:
        translator = make(server.base_url, model="mt-model", temperature=0.3, max_tokens=50,
                          system_prompt="You translate.",
                          prompt_template="[{source_lang}>{target_lang}] {source}")
        run(translator, [entry("1", "Hi")], tmp_path)
    [request] = server.requests
    body = request["body"]
    assert request["path"] == "/v1/chat/completions"
    assert (body["model"], body["temperature"], body["max_tokens"]) == ("mt-model", 0.3, 50)
    assert body["messages"] == [{"role": "system", "content": "You translate."},
                                {"role": "user", "content": "[eng>spa] Hi"}]


class RecordedWaits:
    """Stands in for the client's `threading` module: every timed `Event.wait` (the retry pause) is recorded
    and returns at once, so the test checks the requested wait, not how long the machine took."""

    def __init__(self):
        self.waits = []
        outer = self

        class Event(threading.Event):
            def wait(self, timeout=None):
                if timeout is None:
                    return super().wait()
                outer.waits.append(timeout)
                return self.is_set()

        self.Event = Event

    def __getattr__(self, name):
        return getattr(threading, name)


def test_rate_limit_is_retried_after_the_requested_wait(tmp_path, monkeypatch):
    clock = RecordedWaits()
    monkeypatch.setattr(openai_compatible, "threading", clock)
    with serve(Script(translations={"Hi": "Hola"}, faults_at={1: "429"}, retry_after="0.3")) as server:
        _, [record] = run(make(server.base_url), [entry("1", "Hi")], tmp_path)
    assert len(server.requests) == 2
    assert record["prediction"] == "Hola" and record["error"] is None
    assert clock.waits == [0.3]  # the server's Retry-After, not the client's own backoff (0.01 s here)


def test_persistent_server_error_fails_only_that_entry(tmp_path):
    entries = [entry("1", "good one"), entry("2", "bad one"), entry("3", "good two")]
    with serve(Script(faults={"bad one": "500"})) as server:
        meta, records = run(make(server.base_url, max_retries=2), entries, tmp_path)
    assert meta["errors"] == 1
    assert records[1]["error"] == "HTTP 500 after 3 attempts" and records[1]["prediction"] is None
    assert [r["error"] for r in (records[0], records[2])] == [None, None]
    assert sum("bad one" in p for p in prompts(server)) == 3


def test_client_error_is_not_retried(tmp_path):
    with serve(Script(faults={"Hi": "400"})) as server:
        _, [record] = run(make(server.base_url), [entry("1", "Hi")], tmp_path)
    assert len(server.requests) == 1
    assert record["error"].startswith("HTTP 400: ") and record["prediction"] is None


def test_timeout_becomes_an_error_within_max_retries(tmp_path):
    # never answered (held until the server stops), so the timeout fires however busy the machine is; 1 s
    # leaves the server ample time to record each request before the client gives up
    with serve(Script(faults={"slow": "sleep"}, sleep_s=3600)) as server:
        _, [record] = run(make(server.base_url, timeout_s=1, max_retries=1), [entry("1", "slow")], tmp_path)
    assert record["error"] == "timeout (1 s) after 2 attempts"
    assert len(server.requests) == 2  # one try and one retry, each cut off by the timeout


def test_garbage_and_missing_choices_are_retried_then_fail(tmp_path):
    script = Script(translations={"fixed": "arreglado"},
                    faults={"fixed": ["garbage", "no_choices"], "broken": "garbage"})
    with serve(script) as server:
        _, records = run(make(server.base_url, max_retries=2), [entry("1", "fixed"), entry("2", "broken")],
                         tmp_path)
    assert records[0]["prediction"] == "arreglado" and records[0]["error"] is None
    assert records[1]["error"] == "malformed JSON response after 3 attempts"
    assert len(server.requests) == 6


def test_null_content_is_an_entry_error(tmp_path):
    with serve(Script(faults={"Hi": "null_content"})) as server:
        _, [record] = run(make(server.base_url), [entry("1", "Hi")], tmp_path)
    assert record["error"] == "response has no message content (finish_reason=length)"
    assert len(server.requests) == 1


def test_resume_only_requests_failed_and_unfinished_entries(tmp_path):
    entries = [entry(i, f"text {i}") for i in "abcd"]

    class InterruptedAtC:
        """The translator, with the run interrupted when the answer for "c" arrives (before it is saved)."""

        def __init__(self, translator):
            self.translator = translator

        def translate(self, todo):
            for record in self.translator.translate(todo):
                if record.id == "c":
                    raise KeyboardInterrupt
                yield record

    with serve(Script(faults={"text b": ["500", "500"]})) as server:
        with pytest.raises(KeyboardInterrupt):
            translator = make(server.base_url, max_retries=1, prompt_template="{source}")
            run(InterruptedAtC(translator), entries, tmp_path)
        header, *lines = partial_path(tmp_path / "out.jsonl").read_text().splitlines()
        assert json.loads(header) == {"settings": settings_key(translator.record_settings())}
        saved = [json.loads(line) for line in lines]
        assert [(r["id"], r["error"] is None) for r in saved] == [("a", True), ("b", False)]
        first_run = len(server.requests)
        assert first_run == 4  # a, b twice, c; d was never started
        meta, records = run(make(server.base_url, prompt_template="{source}"), entries, tmp_path)
    assert sorted(prompts(server)[first_run:]) == ["text b", "text c", "text d"]
    assert meta["resumed"] == 1 and meta["errors"] == 0
    assert [r["id"] for r in records] == list("abcd")


def test_concurrent_requests_yield_every_id_once(tmp_path):
    entries = [entry(str(i), f"sentence {i}") for i in range(20)]
    with serve(Script(faults={"sentence": "sleep"}, sleep_s=0.01, hold_until_in_flight=5)) as server:
        translator = make(server.base_url, concurrency=5)
        ids = [record.id for record in translator.translate(entries)]
        peak = server.max_in_flight
        _, records = run(make(server.base_url, concurrency=5), entries, tmp_path)
    assert sorted(ids) == sorted(e["id"] for e in entries) and len(ids) == 20
    assert peak == 5  # five at a time (the server held the first ones until five were open), never more
    assert [r["id"] for r in records] == [e["id"] for e in entries]
    assert all(r["error"] is None for r in records)


def test_api_key_is_sent_but_never_written(tmp_path):
    entries = [entry("1", "Hi"), entry("2", "echo key"), entry("3", "down")]
    with serve(Script(faults={"echo key": "400", "down": "500"})) as server:
        translator = make(server.base_url, max_retries=1)
        run(translator, entries, tmp_path)
    assert {r["headers"]["Authorization"] for r in server.requests} == {f"Bearer {CANARY}"}
    output = (tmp_path / "out.jsonl").read_text(encoding="utf-8")
    assert "Incorrect API key provided: Bearer ***" in output  # the server echoed it; we scrubbed it
    assert CANARY not in output and CANARY not in repr(translator.client)


def test_missing_key_names_the_variable_without_a_value(monkeypatch):
    monkeypatch.delenv(KEY_ENV)
    with pytest.raises(InputError) as err:
        make("http://127.0.0.1:9/v1")
    assert KEY_ENV in str(err.value) and err.value.field == "methods.gpt.api_key_env"


def test_key_optional_sends_no_authorization(monkeypatch, tmp_path):
    monkeypatch.delenv(KEY_ENV)
    with serve(Script()) as server:
        run(make(server.base_url, api_key_required=False), [entry("1", "Hi")], tmp_path)
    assert "Authorization" not in server.requests[0]["headers"]


@pytest.mark.parametrize(("options", "field", "needle"), [
    ({"temprature": 0.2}, "methods.gpt.temprature", "known: api_key_env, api_key_required, backoff_s"),
    ({"model": ""}, "methods.gpt.model", "required"),
    ({"base_url": "localhost:8000/v1"}, "methods.gpt.base_url", "http:// or https://"),
    ({"concurrency": 0}, "methods.gpt.concurrency", "at least 1"),
    ({"temperature": "hot"}, "methods.gpt.temperature", "expected float"),
    ({"prompt_template": "{text}"}, "methods.gpt.prompt_template", "unknown placeholder {text}"),
    ({"prompt_template": "Translate {source_lang}"}, "methods.gpt.prompt_template", "must contain {source}"),
])
def test_bad_options_are_input_errors(options, field, needle):
    with pytest.raises(InputError) as err:
        make(**{"base_url": "http://127.0.0.1:9/v1", **options})
    assert err.value.field == field and needle in str(err.value) and CANARY not in str(err.value)

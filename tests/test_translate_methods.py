"""Each method kind through the resuming runner: records, alignment, errors, resume."""

import json
import subprocess

import pytest

from lyss.errors import InputError
from lyss.settings import Method
from lyss.translate import MethodContext, build_translator
from lyss.translate.base import TranslationRecord
from lyss.translate.hooks import apply_hooks, resolve_hooks
from lyss.translate.jobs import model_call_settings, timed_records
from lyss.translate.runner import entry_key, partial_path, settings_key, timing_sidecar, translate_corpus

ENTRIES = [
    {"id": "a", "source": "I like dogs."},
    {"id": "b", "source": "Good morning. How are you?"},
    {"id": "c", "source": "The cat sleeps.\nThe dog runs."},
    {"id": "d", "source": "Open {file_name} now."},
]


def context(**options):
    return MethodContext("m", options, "eng", "spa", corpus_ids=[e["id"] for e in ENTRIES], dataset="d")


def read(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def run(kind, tmp_path, **options):
    out = tmp_path / "out.jsonl"
    meta = translate_corpus(build_translator(kind, context(**options)), ENTRIES, out)
    return read(out), meta


def test_copy_source(tmp_path):
    rows, meta = run("copy_source", tmp_path)
    assert [r["prediction"] for r in rows] == [e["source"] for e in ENTRIES]
    assert meta["errors"] == 0 and not partial_path(tmp_path / "out.jsonl").exists()
    assert set(rows[0]) >= {"prediction", "raw_prediction", "prompt_tokens", "completion_tokens",
                            "reasoning_tokens", "cached_tokens", "cost_usd", "error"}
    assert "latency_s" not in rows[0]  # wall time lives in the timing file, not in the output


def test_apertium_real_translation_keeps_alignment(tmp_path):
    rows, _ = run("apertium", tmp_path)
    by_id = {r["id"]: r["prediction"] for r in rows}
    assert "perros" in by_id["a"]
    assert by_id["b"].count(".") >= 1 and "?" in by_id["b"]
    assert by_id["c"].count("\n") == 1 and "gato" in by_id["c"].split("\n")[0] and "perro" in by_id["c"].split("\n")[1]
    assert not any(r["error"] for r in rows)


def test_apertium_runs_one_process_for_the_corpus(tmp_path, monkeypatch):
    calls = []
    real_run = subprocess.run

    def counting_run(argv, *args, **kwargs):
        calls.append(argv)
        return real_run(argv, *args, **kwargs)

    monkeypatch.setattr(subprocess, "run", counting_run)
    run("apertium", tmp_path)
    assert sum(1 for argv in calls if argv[-1] == "eng-spa") == 1


def test_apertium_unknown_mode_is_a_clear_error():
    with pytest.raises(InputError, match="not installed"):
        build_translator("apertium", context(mode="eng-xyz"))


def test_placeholder_hook_restores_translated_variables(tmp_path):
    rows, _ = run("apertium", tmp_path)
    raw = next(r for r in rows if r["id"] == "d")
    row = apply_hooks(raw, ENTRIES[3], resolve_hooks(["restore_placeholders"], "params.yaml", "m"), {})
    assert "{file_name}" in row["prediction"] and row["raw_prediction"] == raw["prediction"]
    if row["raw_prediction"] != row["prediction"]:
        assert row["hooks_applied"] == ["restore_placeholders"]


def test_command_method_and_line_alignment(tmp_path):
    rows, _ = run("command", tmp_path, cmd=["tr", "a-z", "A-Z"])
    assert [r["prediction"] for r in rows] == [e["source"].upper() for e in ENTRIES]


def test_command_that_breaks_alignment_records_errors(tmp_path):
    rows, meta = run("command", tmp_path, cmd="head -n 1")
    assert meta["errors"] == len(ENTRIES)
    assert all("line count" in r["error"] and r["prediction"] is None for r in rows)


def test_command_failure_records_exit_status(tmp_path):
    rows, _ = run("command", tmp_path, cmd=["sh", "-c", "echo broken >&2; exit 3"])
    assert all(r["error"].startswith("exit status 3") and "broken" in r["error"] for r in rows)


def test_command_not_found():
    with pytest.raises(InputError, match="not found"):
        build_translator("command", context(cmd="no-such-translator-xyz"))


def test_precomputed_text_file(tmp_path):
    outputs = tmp_path / "sys.txt"
    outputs.write_text("uno\ndos\ntres\ncuatro\n")
    rows, _ = run("precomputed", tmp_path, paths={"d": str(outputs)})
    assert [r["prediction"] for r in rows] == ["uno", "dos", "tres", "cuatro"]


def test_precomputed_text_line_count_mismatch(tmp_path):
    outputs = tmp_path / "sys.txt"
    outputs.write_text("uno\ndos\n")
    with pytest.raises(InputError, match="has 2 lines but the corpus has 4"):
        run("precomputed", tmp_path, paths={"d": str(outputs)})


def test_precomputed_jsonl_by_id_with_missing_entry(tmp_path):
    outputs = tmp_path / "sys.jsonl"
    outputs.write_text('{"id": "b", "prediction": "dos"}\n{"id": "a", "prediction": "uno"}\n')
    rows, meta = run("precomputed", tmp_path, paths={"d": str(outputs)})
    assert [r["prediction"] for r in rows[:2]] == ["uno", "dos"]
    assert meta["errors"] == 2 and "no output for id 'c'" in rows[2]["error"]


def test_precomputed_jsonl_errors_name_line_and_field(tmp_path):
    outputs = tmp_path / "sys.jsonl"
    outputs.write_text('{"id": "a", "prediction": "uno"}\n{"id": "b"}\n')
    with pytest.raises(InputError) as caught:
        run("precomputed", tmp_path, paths={"d": str(outputs)})
    assert (caught.value.line, caught.value.field) == (2, "prediction")


@pytest.mark.parametrize("line, field, message", [
    ('{"id": "b", "prediction": 42}', "prediction", "expected text or null, got int 42"),
    ('{"id": "zz", "prediction": "x"}', "id", "unknown entry id 'zz'"),
])
def test_precomputed_jsonl_wrong_values_name_line_and_field(tmp_path, line, field, message):
    outputs = tmp_path / "sys.jsonl"
    outputs.write_text('{"id": "a", "prediction": "uno"}\n' + line + "\n")
    with pytest.raises(InputError, match=message) as caught:
        run("precomputed", tmp_path, paths={"d": str(outputs)})
    assert (caught.value.line, caught.value.field) == (2, field)


def test_precomputed_file_edited_after_a_failed_entry_is_read_again(tmp_path):
    """A failed entry keeps the record store; the corrected file must not resume from the old records."""
    from lyss.translate.jobs import run_translation

    corpus, meta = tmp_path / "corpus.jsonl", tmp_path / "corpus.meta.json"
    corpus.write_text("".join(json.dumps(e) + "\n" for e in ENTRIES[:2]))
    meta.write_text(json.dumps({"dataset": {"id": "d", "source_lang": "eng", "target_lang": "spa"}}))
    outputs = tmp_path / "sys.jsonl"
    method = Method.of({"kind": "precomputed", "paths": {"d": str(outputs)}})
    out, out_meta = tmp_path / "raw.jsonl", tmp_path / "raw.meta.json"
    outputs.write_text('{"id": "a", "prediction": "old"}\n{"id": "b", "prediction": null}\n')
    assert run_translation(corpus, meta, "m", method, tmp_path / "records", out, out_meta)["errors"] == 1
    outputs.write_text('{"id": "a", "prediction": "new"}\n{"id": "b", "prediction": "dos"}\n')
    assert run_translation(corpus, meta, "m", method, tmp_path / "records", out, out_meta)["errors"] == 0
    assert [r["prediction"] for r in read(out)] == ["new", "dos"]


def test_precomputed_file_of_another_dataset_is_an_error_naming_the_key(tmp_path):
    outputs = tmp_path / "sys.txt"
    outputs.write_text("uno\ndos\ntres\ncuatro\n")
    with pytest.raises(InputError) as caught:
        build_translator("precomputed", context(paths={"other": str(outputs)}))
    assert caught.value.field == "methods.m.paths" and "no file for dataset 'd'" in str(caught.value)
    with pytest.raises(InputError) as caught:
        build_translator("precomputed", context(path=str(outputs)))
    assert caught.value.field == "methods.m.path" and "one file per dataset" in str(caught.value)


def test_unknown_kind():
    with pytest.raises(InputError, match="unknown method kind"):
        build_translator("babelfish", context())


class FlakyTranslator:
    """Fails every entry whose id is in `failing`; counts what it was asked to translate."""

    def __init__(self, failing):
        self.failing, self.asked = set(failing), []

    def translate(self, entries):
        for entry in entries:
            self.asked.append(entry["id"])
            error = "boom" if entry["id"] in self.failing else None
            yield TranslationRecord(entry["id"], None if error else entry["source"][::-1], error=error)


def test_resume_redoes_only_failed_entries(tmp_path):
    out = tmp_path / "out.jsonl"
    first = FlakyTranslator(failing={"b"})
    meta = translate_corpus(first, ENTRIES, out)
    assert meta["errors"] == 1 and read(out)[1]["error"] == "boom"
    # The partial file was kept because of the error: a forced re-run retries only "b".
    retry = FlakyTranslator(failing=set())
    assert translate_corpus(retry, ENTRIES, out)["resumed"] == 3 and retry.asked == ["b"]
    assert not partial_path(out).exists()


def interrupted_partial(out, settings_key):
    """A partial file as a killed run leaves it: header, one finished record, a torn line."""
    finished = {**TranslationRecord("a", "hecho", "hecho", latency_s=0.5).to_dict(), "input": entry_key(ENTRIES[0])}
    partial_path(out).write_text(json.dumps({"settings": settings_key}) + "\n" + json.dumps(finished)
                                 + '\n{"id": "b", "pre')


def test_resume_after_kill_skips_finished_entries(tmp_path):
    out = tmp_path / "out.jsonl"
    interrupted_partial(out, "k1")
    second = FlakyTranslator(failing=set())
    meta = translate_corpus(second, ENTRIES, out, settings="k1")
    assert second.asked == ["b", "c", "d"] and meta["resumed"] == 1 and meta["errors"] == 0
    assert [r["id"] for r in read(out)] == ["a", "b", "c", "d"] and read(out)[0]["prediction"] == "hecho"
    # the resumed entry keeps the latency recorded by the killed run
    assert json.loads(timing_sidecar(out).read_text(encoding="utf-8"))["latency_s"]["a"] == 0.5


def test_resume_after_kill_never_glues_a_record_to_the_torn_line(tmp_path):
    out = tmp_path / "out.jsonl"
    interrupted_partial(out, "k1")
    translate_corpus(FlakyTranslator(failing={"d"}), ENTRIES, out, settings="k1")  # "d" fails: the store stays
    lines = partial_path(out).read_text().splitlines()
    assert lines[2] == '{"id": "b", "pre'  # the torn line, alone on its line
    assert [json.loads(line)["id"] for line in lines[3:]] == ["b", "c", "d"]
    again = FlakyTranslator(failing=set())
    assert translate_corpus(again, ENTRIES, out, settings="k1")["resumed"] == 3 and again.asked == ["d"]


def test_an_edited_entry_is_translated_again_the_others_not(tmp_path):
    out = tmp_path / "out.jsonl"
    translate_corpus(FlakyTranslator(failing={"d"}), ENTRIES, out, settings="k1")
    edited = [*ENTRIES[:2], {**ENTRIES[2], "source": "The cat runs."}, ENTRIES[3]]
    again = FlakyTranslator(failing=set())
    translate_corpus(again, edited, out, settings="k1")
    assert again.asked == ["c", "d"] and read(out)[2]["prediction"] == ".snur tac ehT"


class PaidTranslator(FlakyTranslator):
    keeps_records = True


def test_paid_records_are_kept_after_a_complete_run_and_reused(tmp_path):
    out, store = tmp_path / "out.jsonl", tmp_path / "records" / "k1.jsonl"
    translate_corpus(PaidTranslator(failing=set()), ENTRIES, out, store, settings="k1")
    first = read(out)
    out.unlink()  # as Snakemake deletes the output of an incomplete or forced job
    again = PaidTranslator(failing=set())
    meta = translate_corpus(again, ENTRIES, out, store, settings="k1")
    assert again.asked == [] and meta["resumed"] == len(ENTRIES) and read(out) == first
    # a copy_source-like method keeps nothing once complete: a forced re-run runs it again
    translate_corpus(FlakyTranslator(failing=set()), ENTRIES, out, tmp_path / "local.jsonl", settings="k1")
    assert not (tmp_path / "local.jsonl").exists()


def test_partial_from_other_settings_is_discarded(tmp_path):
    out = tmp_path / "out.jsonl"
    interrupted_partial(out, "old-model")
    fresh = FlakyTranslator(failing=set())
    meta = translate_corpus(fresh, ENTRIES, out, settings="new-model")
    assert fresh.asked == ["a", "b", "c", "d"] and meta["resumed"] == 0


def test_apertium_does_not_move_words_across_entries(tmp_path):
    # With entries on adjacent lines Apertium's transfer joined "{count} new messages" with the next
    # entry ("{Cuenta} nombre de" / "{mensajes nuevos} está escribiendo…"); a blank line keeps them apart.
    entries = [{"id": "x", "source": "{count} new messages"}, {"id": "y", "source": "{name} is typing…"}]
    translator = build_translator("apertium", MethodContext("m", {}, "eng", "spa", corpus_ids=["x", "y"]))
    translate_corpus(translator, entries, tmp_path / "out.jsonl")
    x, y = read(tmp_path / "out.jsonl")
    assert "mensajes" in x["prediction"] and "mensajes" not in y["prediction"]


def test_command_blank_line_separation_is_checked(tmp_path):
    # `blank_lines_between: 1` expects a blank separator: `cat` passes it through, so alignment holds,
    # while a command that turns the separators into text breaks it.
    rows, _ = run("command", tmp_path, cmd=["cat"], blank_lines_between=1)
    assert [r["prediction"] for r in rows] == [e["source"] for e in ENTRIES]
    rows, meta = run("command", tmp_path, cmd=["sed", "s/^$/SEP/"], blank_lines_between=1)
    assert meta["errors"] == len(ENTRIES)


def test_model_call_settings_leave_out_hooks_and_other_datasets_files():
    config = {"kind": "precomputed", "paths": {"d": "x.txt", "e": "y.txt"}, "postprocess": ["fix_quotes"]}
    assert model_call_settings(Method.of(config), "d") == {"kind": "precomputed", "paths": {"d": "x.txt"}}


def test_records_of_an_llm_are_keyed_by_what_shapes_the_answer():
    def key(**options):
        settings = {"base_url": "http://127.0.0.1:9/v1", "model": "m", "api_key_required": False, **options}
        return settings_key(build_translator("openai_compatible", context(**settings)).record_settings())

    assert key() == key(concurrency=8, timeout_s=5, max_retries=9, backoff_s=3)  # how requests are sent
    assert key() != key(temperature=0.7) and key() != key(model="other") and key() != key(system_prompt="Be brief.")


def test_timed_records_merge_the_timing_file_or_say_why_not(tmp_path):
    records = [{"id": "a", "prediction": "x"}, {"id": "b", "prediction": "y"}]
    timing = tmp_path / "t.json"
    timing.write_text(json.dumps({"elapsed_seconds": 3.5, "latency_s": {"a": 1.25, "b": 2.0}}))
    merged, elapsed, untimed = timed_records(records, timing)
    assert [r["latency_s"] for r in merged] == [1.25, 2.0] and elapsed == 3.5 and untimed is None
    merged, elapsed, untimed = timed_records(records, tmp_path / "absent.json")
    assert merged == records and elapsed is None
    assert untimed.startswith("the translations were made on another machine or restored from a cache")

"""The two translation jobs of the workflow, kept apart so that translation is bought once:

* `run_translation` (rule `translate`) asks the method and writes its raw output,
  results/translations/raw/<dataset>/<method>.jsonl. It depends only on what changes the request
  (`model_call_settings`), and keeps its records in a store keyed by those settings
  (results/translations/records/<dataset>/<method>/<key>.jsonl), outside any declared output. Its timing
  goes to results/timings/translations/<dataset>/<method>.json, outside every versioned folder.
* `run_postprocess` (rule `postprocess`) applies the method's repair hooks and prices to the raw output
  and writes results/translations/<dataset>/<method>.jsonl, which everything downstream reads. Adding,
  removing or fixing a hook, or changing a price, reruns only this job: no model is called again.

This module imports only the translation package, so a change elsewhere in lyss is not a change to the
code these jobs run.
"""

from pathlib import Path

from lyss.io import iter_jsonl, read_json, write_json_atomic, write_jsonl_atomic
from lyss.languages import load_cards
from lyss.translate import MethodContext, build_translator
from lyss.translate.hooks import apply_hooks, resolve_hooks
from lyss.translate.openai_compatible import cost_usd
from lyss.translate.runner import settings_key, translate_corpus

SECRET_OPTION_WORDS = ("key", "token", "secret", "password")
NOT_SENT_TO_THE_METHOD = ("postprocess",)  # read by rule `postprocess` only


def model_call_settings(method_config: dict, dataset: str) -> dict:
    """The part of `methods.<name>` that changes what the method is asked on `dataset`: everything but the
    hooks, and of a precomputed method's `paths` only this dataset's file (adding a file for another
    dataset changes nothing here)."""
    call = {k: v for k, v in method_config.items() if k not in NOT_SENT_TO_THE_METHOD}
    if isinstance(call.get("paths"), dict) and dataset in call["paths"]:
        call["paths"] = {dataset: call["paths"][dataset]}
    return call


def public_options(options: dict) -> dict:
    """Method options safe to record: values of secret-looking keys are dropped (env var *names* stay)."""
    return {k: v for k, v in options.items()
            if not any(w in k.lower() for w in SECRET_OPTION_WORDS) or k.endswith("_env")}


def timed_records(records: list[dict], timing_path) -> tuple[list[dict], float | None, str | None]:
    """The records with the `latency_s` of the timing file rule `translate` wrote, the run's elapsed seconds,
    and, when there is no timing file, the reason speed is null: translations restored from a DVC remote or
    copied from another machine come without it (it is never versioned), and a speed from elsewhere would
    be a number nobody measured here."""
    path = Path(timing_path) if timing_path else None
    if path is None or not path.is_file():
        where = f" ({path})" if path else ""
        return records, None, (f"the translations were made on another machine or restored from a cache, without "
                               f"their timing file{where}: speed was not measured here")
    timing = read_json(path)
    latency = timing.get("latency_s", {})
    return ([{**r, "latency_s": latency.get(r["id"], 0.0)} for r in records],
            float(timing["elapsed_seconds"]), None)


def record_store_path(records_dir, settings: str) -> Path:
    return Path(records_dir) / f"{settings[:16]}.jsonl"


def run_translation(corpus_path, corpus_meta_path, method_name, method_config, records_dir, out_path,
                    out_meta, timing_path=None) -> dict:
    """Translate the corpus with one method, reusing every stored record made under the same settings. How
    long it took goes to `timing_path` (lyss.translate.runner), not into the output."""
    entries = [obj for _, obj in iter_jsonl(corpus_path)]
    dataset = read_json(corpus_meta_path)["dataset"]
    call = model_call_settings(method_config, str(dataset["id"]))
    options = {k: v for k, v in call.items() if k != "kind"}
    context = MethodContext(method_name, dict(options), dataset["source_lang"], dataset["target_lang"],
                            corpus_ids=[e["id"] for e in entries], dataset=str(dataset["id"]))
    translator = build_translator(call["kind"], context)
    # a method may name the options its answers depend on (openai_compatible: not timeouts or concurrency)
    answer_settings = translator.record_settings() if hasattr(translator, "record_settings") else options
    settings = settings_key([call["kind"], answer_settings, dataset["source_lang"], dataset["target_lang"]])
    meta = translate_corpus(translator, entries, out_path, record_store_path(records_dir, settings), settings,
                            label=f"translate {dataset['id']}/{method_name}", timing_path=timing_path)
    meta.update({"method": method_name, "kind": call["kind"], "options": public_options(options),
                 "settings": settings})
    write_json_atomic(out_meta, meta)
    return meta


def run_postprocess(corpus_path, corpus_meta_path, raw_path, raw_meta_path, method_name, hook_names, price,
                    languages_dir, out_path, out_meta) -> dict:
    """Repair and price the raw output: `prediction` after the hooks, `raw_prediction` as the method gave
    it (compliance measures both), `cost_usd` from the token counts and `price` (params.yaml `prices`
    row of the method's model; none = 0)."""
    hooks = resolve_hooks(list(hook_names or []), "params.yaml", method_name)
    entries = {obj["id"]: obj for _, obj in iter_jsonl(corpus_path)}
    target = read_json(corpus_meta_path)["dataset"]["target_lang"]
    card = load_cards(languages_dir).get(target, {}) if hooks else {}
    rows, applied = [], {name: 0 for name, _ in hooks}
    for _, record in iter_jsonl(raw_path):
        row = apply_hooks(record, entries[record["id"]], hooks, card)
        row["cost_usd"] = cost_usd(row, price)
        for name in row["hooks_applied"]:
            applied[name] += 1
        rows.append(row)
    write_jsonl_atomic(out_path, rows)
    meta = {**read_json(raw_meta_path), "postprocess": [name for name, _ in hooks], "hooks_applied": applied}
    write_json_atomic(out_meta, meta)
    return meta

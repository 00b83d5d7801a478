"""The work behind each Snakemake rule, as plain functions (the scripts in `scripts/` only unpack
Snakemake's inputs and call these), so every step is importable and testable without Snakemake."""

import hashlib
import json
from pathlib import Path

import yaml

from lyss.composite import select_profile
from lyss.corpus import fingerprint, load_corpus, load_dataset_card, read_prepared
from lyss.embedders import embeddings_from_files
from lyss.errors import InputError
from lyss.fingerprint import run_fingerprint
from lyss.io import iter_jsonl, read_json, write_json_atomic, write_jsonl_atomic
from lyss.languages import load_cards
from lyss.metric_files import read_metric_result, write_metric_result
from lyss.metrics import ScoringInput, resolve_metric
from lyss.runcard import build_run_card, validate_run_card
from lyss.translate import MethodContext, build_translator
from lyss.translate.hooks import resolve_hooks
from lyss.translate.runner import translate_corpus

SECRET_OPTION_WORDS = ("key", "token", "secret", "password")


def prep_dataset(name, corpus_path, card_path, languages_dir, out_corpus, out_meta) -> dict:
    """Validate and NFC-normalise a corpus; write it with its card and content fingerprint."""
    cards = load_cards(languages_dir)
    card = load_dataset_card(card_path, cards)
    if str(card["id"]) != name:
        raise InputError(card_path, f"id {card['id']!r} differs from the dataset's name {name!r} in "
                         "params.yaml (results are filed under that name)", field="id")
    entries = load_corpus(corpus_path)
    meta = {"dataset": card, "entries": len(entries), "fingerprint": fingerprint(entries)}
    write_jsonl_atomic(out_corpus, entries)
    write_json_atomic(out_meta, meta)
    return meta


def public_options(options: dict) -> dict:
    """Method options safe to record: values of secret-looking keys are dropped (env var *names* stay)."""
    return {k: v for k, v in options.items()
            if not any(w in k.lower() for w in SECRET_OPTION_WORDS) or k.endswith("_env")}


def run_translation(corpus_path, corpus_meta_path, method_name, method_config, prices, languages_dir,
                    out_path, out_meta) -> dict:
    entries = read_prepared(corpus_path)
    corpus_meta = read_json(corpus_meta_path)
    dataset = corpus_meta["dataset"]
    cards = load_cards(languages_dir)
    options = {k: v for k, v in method_config.items() if k not in ("kind", "postprocess")}
    context = MethodContext(method_name, options, dataset["source_lang"], dataset["target_lang"], prices,
                            corpus_ids=[e["id"] for e in entries])
    translator = build_translator(method_config["kind"], context)
    hooks = resolve_hooks(method_config.get("postprocess", []), "params.yaml", method_name)
    # Resumed records are valid only for the same method settings, prices and corpus.
    settings_key = hashlib.sha256(json.dumps([method_config, prices, corpus_meta["fingerprint"]],
                                             sort_keys=True, default=str).encode()).hexdigest()
    meta = translate_corpus(translator, entries, out_path, hooks, cards.get(dataset["target_lang"], {}),
                            label=f"translate {dataset['id']}/{method_name}", settings_key=settings_key)
    meta.update({"method": method_name, "kind": method_config["kind"], "options": public_options(options),
                 "postprocess": method_config.get("postprocess", [])})
    write_json_atomic(out_meta, meta)
    return meta


def scoring_input(corpus_path, corpus_meta_path, translations_path, languages_dir,
                  options=None) -> ScoringInput:
    entries = read_prepared(corpus_path)
    dataset = read_json(corpus_meta_path)["dataset"]
    records = {r["id"]: r for _, r in iter_jsonl(translations_path)}
    missing = [e["id"] for e in entries if e["id"] not in records]
    if missing:
        raise InputError(translations_path,
                         f"no translation record for {len(missing)} entries (first: {missing[0]!r})")
    cards = load_cards(languages_dir)
    return ScoringInput(
        entries=entries,
        predictions=[records[e["id"]]["prediction"] for e in entries],
        raw_predictions=[records[e["id"]]["raw_prediction"] for e in entries],
        source_lang=dataset["source_lang"],
        target_lang=dataset["target_lang"],
        source_card=cards.get(dataset["source_lang"], {}),
        target_card=cards.get(dataset["target_lang"], {}),
        options=options or {},
    )


def score_metric(metric_id, corpus_path, corpus_meta_path, translations_path, languages_dir, options,
                 out_path, embedding_paths=(), embedding_backend=None):
    data = scoring_input(corpus_path, corpus_meta_path, translations_path, languages_dir, options)
    if embedding_paths:  # the vectors of rule `embed`: the metric embeds nothing again
        data.embeddings = embeddings_from_files(embedding_paths, embedding_backend)
    result = resolve_metric(metric_id, data.target_card).score(data)
    write_metric_result(out_path, result, data.ids)
    return result


def aggregate_run(*, corpus_path, corpus_meta_path, translations_path, translation_meta_path, metric_paths,
                  languages_dir, method_name, method_config, composite_settings, tiers, caveat_settings,
                  stats_settings, out_path, embedding_paths=(), embedding_backend=None) -> dict:
    """Build, validate and write the run card of one dataset × method."""
    from lyss.confidence import confidence_intervals

    entries = read_prepared(corpus_path)
    corpus_meta = read_json(corpus_meta_path)
    dataset = corpus_meta["dataset"]
    records = [r for _, r in iter_jsonl(translations_path)]
    results = {}
    for path in metric_paths:
        result, _ = read_metric_result(path)
        results[result.metric] = result
    cards = load_cards(languages_dir)
    profile = select_profile(cards.get(dataset["target_lang"]))
    settings = {"method": method_config, "metrics": sorted(results), "composite": composite_settings,
                "tiers": tiers, "caveats": caveat_settings, "stats": stats_settings}
    card = build_run_card(
        dataset={"id": dataset["id"], "language_pair": dataset["language_pair"],
                 "fingerprint": corpus_meta["fingerprint"], "licence": dataset["licence"]},
        method={"name": method_name, "kind": method_config["kind"], **public_options(method_config)},
        results=results, records=records, entries=entries, translation_meta=read_json(translation_meta_path),
        composite_settings=composite_settings, tiers=tiers, caveat_settings=caveat_settings, profile=profile,
        fingerprint=run_fingerprint(corpus_meta["fingerprint"], settings),
        embeddings=embeddings_from_files(embedding_paths, embedding_backend) if embedding_paths else None,
    )
    intervals = confidence_intervals(
        results, entries, composite_settings["profiles"][profile], composite_settings.get("normalisation", {}),
        n_resamples=stats_settings["bootstrap_resamples"], alpha=stats_settings["alpha"],
        seed=stats_settings["seed"], min_entries=stats_settings.get("min_entries_warning", 30),
    )
    card["scores"]["confidence_intervals"] = intervals["confidence_intervals"]
    card["scores"]["confidence_intervals_by_tier"] = intervals["confidence_intervals_by_tier"]
    card["warnings"].extend(intervals["warnings"])
    validate_run_card(card)
    write_json_atomic(out_path, card)
    return card


def dataset_language_pair(dataset_path) -> tuple[str, str]:
    """Read `language_pair` from a dataset card without validating it (for Snakemake's DAG; `prep`
    validates the card and reports problems properly)."""
    card = yaml.safe_load(Path(dataset_path, "dataset.yaml").read_text(encoding="utf-8")) or {}
    source, _, target = str(card.get("language_pair", "")).partition("-")
    return source or "und", target or "und"

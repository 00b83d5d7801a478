"""Stage `aggregate` (rule aggregate): the run card of one dataset × method, from its metric files,
checked against the reference oracle and the validation evidence, with confidence intervals."""

# The stage's imports are inside its functions: `lyss score` and `compare` import lyss.aggregate.caveats and
# .runcard, and importing this package first must not pull in pandas, pyarrow and the translation code.


def _read_results(metric_paths) -> dict:
    from lyss.metrics.files import read_metric_result

    results = {}
    for path in metric_paths:
        result, _ = read_metric_result(path)
        results[result.metric] = result
    return results


def aggregate_run(*, corpus_path, corpus_meta_path, translations_path, metric_paths,
                  reference_metric_paths, evidence_dirs=(), languages_dir, method_name, method_config,
                  composite_settings, oracle_settings=None, priced=False, tiers, caveat_settings,
                  stats_settings, out_path, embedding_paths=(), embedding_backend=None, timing_path=None,
                  review_paths=()) -> dict:
    """Build, validate and write the run card of one dataset × method.

    Every metric is first checked on the reference oracle's metric files of the same dataset
    (lyss.aggregate.oracle): one that fails is null in this card; caveats count only entries where the reference
    does not show the pattern; the §1.6 validation status comes from the evidence of rated datasets in
    the same language pair. Speed comes from the translation's timing file (`timing_path`), which is not
    versioned: without it the card's speed is null with the reason. `review_paths`: the dataset's community
    review (data/corpora/<d>/reviews/verdict.json, lyss.review), when it has one: it confirms or overturns the tier."""
    from lyss.aggregate.caveats import entry_flags
    from lyss.aggregate.composite import select_profile
    from lyss.aggregate.confidence import confidence_intervals
    from lyss.aggregate.fingerprint import run_fingerprint
    from lyss.aggregate.oracle import DEFAULT_TOLERANCE, failed_metrics, reference_check
    from lyss.aggregate.runcard import build_run_card, validate_run_card
    from lyss.aggregate.validation_status import load_evidence, validation_status
    from lyss.embed.embedders import embeddings_from_files
    from lyss.io import iter_jsonl, read_json, write_json_atomic
    from lyss.languages import card_provenance, load_cards, provenance_warning
    from lyss.prep.corpus import read_prepared
    from lyss.translate.jobs import public_options, timed_records

    entries = read_prepared(corpus_path)
    corpus_meta = read_json(corpus_meta_path)
    dataset = corpus_meta["dataset"]
    records, elapsed_seconds, untimed = timed_records([r for _, r in iter_jsonl(translations_path)], timing_path)
    results = _read_results(metric_paths)
    reference_results = _read_results(reference_metric_paths)
    cards = load_cards(languages_dir)
    target_card = cards.get(dataset["target_lang"])
    profile = select_profile(target_card, composite_settings)
    tolerance = (oracle_settings or {}).get("tolerance", DEFAULT_TOLERANCE)
    checks = reference_check(reference_results, target_card, tolerance)
    failed = failed_metrics(checks)
    embeddings = embeddings_from_files(embedding_paths, embedding_backend) if embedding_paths else None
    reference_flags = entry_flags(entries, [e["reference"] for e in entries], caveat_settings, embeddings)
    evidence = load_evidence(evidence_dirs, dataset["language_pair"])
    review = read_json(review_paths[0]) if review_paths else None
    settings = {"method": method_config, "metrics": sorted(results), "composite": composite_settings,
                "oracle": oracle_settings or {}, "priced": priced, "tiers": tiers, "caveats": caveat_settings,
                "stats": stats_settings, "evidence": evidence, "review": review}
    card = build_run_card(
        dataset={"id": dataset["id"], "language_pair": dataset["language_pair"],
                 "fingerprint": corpus_meta["fingerprint"], "licence": dataset["licence"]},
        method={"name": method_name, "kind": method_config["kind"], **public_options(method_config)},
        results=results, records=records, entries=entries, elapsed_seconds=elapsed_seconds, untimed=untimed,
        composite_settings=composite_settings, tiers=tiers, caveat_settings=caveat_settings, profile=profile,
        fingerprint=run_fingerprint(corpus_meta["fingerprint"], settings), reference_checks=checks,
        failed_checks=failed, reference_flags=reference_flags, priced=priced, embeddings=embeddings,
        validation=validation_status(results, evidence, set(failed)), review=review,
    )
    # Intervals only for the values the card shows, so the composite CI uses the same metrics as its value.
    intervals = confidence_intervals(
        {m: r for m, r in results.items() if card["scores"].get(m) is not None}, entries,
        composite_settings["profiles"][profile], composite_settings.get("normalisation", {}),
        n_resamples=stats_settings["bootstrap_resamples"], alpha=stats_settings["alpha"],
        seed=stats_settings["seed"], min_entries=stats_settings.get("min_entries_warning", 30),
    )
    card["scores"]["confidence_intervals"] = intervals["confidence_intervals"]
    card["scores"]["confidence_intervals_by_tier"] = intervals["confidence_intervals_by_tier"]
    card["bootstrap"] = intervals["bootstrap"]
    card["warnings"].extend(intervals["warnings"])
    # Which card each language used (a file, derived from CLDR, or none): a missing card changes what
    # several metrics can measure, so the card says so rather than a line in a log.
    codes = (dataset["source_lang"], dataset["target_lang"])
    card["language_cards"] = {code: card_provenance(cards.get(code)) for code in codes}
    card["warnings"].extend(w for w in (provenance_warning(code, cards.get(code)) for code in codes) if w)
    validate_run_card(card)
    write_json_atomic(out_path, card)
    return card

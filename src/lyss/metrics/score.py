"""Stage `score` (rule score): one metric on one dataset × method, from the prepared corpus and the
method's translations (and the vectors of rule `embed`), written as one metric file."""

from lyss.embed.embedders import embeddings_from_files
from lyss.errors import InputError
from lyss.io import iter_jsonl, read_json
from lyss.languages import load_cards
from lyss.metrics import ScoringInput, resolve_metric
from lyss.metrics.files import write_metric_result
from lyss.prep.corpus import read_prepared


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

"""Stage `score`: metrics of one dataset × method, from the prepared corpus and the method's translations (and
the vectors of rule `embed`), each written as its own metric file.

A Snakemake job per metric cost more in start-up (Python, pandas, pyarrow, the corpus read again) than most
metrics cost to compute, so the cheap metrics of a dataset × method share one job (rules/score.smk). Code is
still an input per metric: each file records a stamp, the hash of what it was computed from (its metric's
code, options and embedder, the bytes of the files it reads), and the job recomputes only the metrics whose
stamp changed; the others keep their bytes.
"""

import dataclasses
import hashlib
import json
import sys

from lyss.embed.embedders import embeddings_from_files
from lyss.errors import InputError
from lyss.io import iter_jsonl, read_json
from lyss.languages import load_cards
from lyss.metrics import ScoringInput, resolve_metric
from lyss.metrics.files import read_stamp, write_metric_result
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


def file_digest(path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def metric_stamp(code: str, options: dict, embedding_backend, input_digests: list[str]) -> str:
    """Hash of everything a metric file depends on: equal stamps, equal files."""
    body = json.dumps({"code": code, "options": options, "embedder": embedding_backend, "inputs": input_digests},
                      sort_keys=True, default=str)
    return hashlib.sha256(body.encode()).hexdigest()[:16]


def score_metrics(metric_ids, corpus_path, corpus_meta_path, translations_path, languages_dir, options: dict,
                  codes: dict, out_paths, inputs=(), embedding_paths=(), embedding_backend=None) -> list[str]:
    """Write `out_paths[i]` for `metric_ids[i]` unless it already holds that metric's current stamp; returns
    the metrics computed. `codes`, `options`: per metric id (lyss.codehash.score_hash, metric_options);
    `inputs`: every other file the metrics read (language cards)."""
    shared = [file_digest(p) for p in (corpus_path, corpus_meta_path, translations_path, *inputs)]
    vectors = [file_digest(p) for p in embedding_paths]
    stamps = {m: metric_stamp(codes[m], options.get(m) or {}, embedding_backend, shared + vectors)
              for m in metric_ids}
    stale = [(m, path) for m, path in zip(metric_ids, out_paths, strict=True) if read_stamp(path) != stamps[m]]
    kept = sorted(set(metric_ids) - {m for m, _ in stale})
    print(f"recomputing {', '.join(m for m, _ in stale) or 'nothing'}; current: {', '.join(kept) or 'none'}",
          file=sys.stderr)
    if not stale:
        return []
    data = scoring_input(corpus_path, corpus_meta_path, translations_path, languages_dir)
    if embedding_paths:  # the vectors of rule `embed`: the metrics embed nothing again
        data.embeddings = embeddings_from_files(embedding_paths, embedding_backend)
    for metric_id, path in stale:
        scoring = dataclasses.replace(data, options=options.get(metric_id) or {})
        result = resolve_metric(metric_id, data.target_card).score(scoring)
        write_metric_result(path, result, data.ids, stamp=stamps[metric_id])
    return [m for m, _ in stale]

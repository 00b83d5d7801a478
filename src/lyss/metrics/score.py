"""Stage `score`: metrics of one dataset × method, from the prepared corpus and the method's translations (and
the vectors of rule `embed`), each written as its own metric file.

A Snakemake job per metric cost more in start-up (Python, pandas, pyarrow, the corpus read again) than most
metrics cost to compute, so every metric of a dataset × method that needs no GPU shares one job
(rules/score.smk). Code is still an input per metric: each file records a stamp, the hash of what it was
computed from (its metric's code, options and embedder, the bytes of the files it reads, the target card's
analyzer or dictionary among them), and the job recomputes only the metrics whose stamp changed; the others keep
their bytes.
"""

import dataclasses
import hashlib
import json
import sys
from collections.abc import Mapping
from pathlib import Path

from lyss.embed.embedders import embeddings_from_files
from lyss.errors import InputError
from lyss.io import file_digest, iter_jsonl, read_json
from lyss.languages import card_for
from lyss.metrics import ScoringInput, declaration, resolve_metric
from lyss.metrics.card_files import card_file_digests
from lyss.metrics.files import read_stamp, write_metric_result
from lyss.prep.corpus import read_prepared
from lyss.settings import Embeddings, MetricOptions


def scoring_input(corpus_path, corpus_meta_path, translations_path, languages_dir,
                  options=None) -> ScoringInput:
    entries = read_prepared(corpus_path)
    dataset = read_json(corpus_meta_path)["dataset"]
    records = {r["id"]: r for _, r in iter_jsonl(translations_path)}
    missing = [e["id"] for e in entries if e["id"] not in records]
    if missing:
        raise InputError(translations_path,
                         f"no translation record for {len(missing)} entries (first: {missing[0]!r})")
    source_lang, target_lang = dataset["source_lang"], dataset["target_lang"]
    return ScoringInput(
        entries=entries,
        predictions=[records[e["id"]]["prediction"] for e in entries],
        raw_predictions=[records[e["id"]]["raw_prediction"] for e in entries],
        source_lang=source_lang,
        target_lang=target_lang,
        # the two cards only: reading all ~70 files of the folder cost each score job 0.2 s
        source_card=card_for(source_lang, languages_dir) if source_lang else {},
        target_card=card_for(target_lang, languages_dir) if target_lang else {},
        options=options or {},
    )


def metric_stamp(code: str, options: dict, embedding_backend, input_digests: list[str]) -> str:
    """Hash of everything a metric file depends on: equal stamps, equal files."""
    body = json.dumps({"code": code, "options": options, "embedder": embedding_backend, "inputs": input_digests},
                      sort_keys=True, default=str)
    return hashlib.sha256(body.encode()).hexdigest()[:16]


@dataclasses.dataclass(frozen=True)
class ScoreFiles:
    """What a score job reads and writes: the prepared corpus and its meta, the method's translations, one
    output per metric (in the order of the metric ids), every other file the metrics read (`inputs`: the
    language cards) and the vector files of rule `embed` (`embeddings`, none for metrics that embed nothing)."""

    corpus: Path
    corpus_meta: Path
    translations: Path
    outputs: tuple
    inputs: tuple = ()
    embeddings: tuple = ()


def score_metrics(metric_ids, files: ScoreFiles, codes: Mapping[str, str], options: MetricOptions,
                  languages_dir, embedding_settings: Embeddings) -> list[str]:
    """Write `files.outputs[i]` for `metric_ids[i]` unless it already holds that metric's current stamp;
    returns the metrics computed. `codes`: per metric id (lyss.codehash.score_hash); `options`: params.yaml
    `metric_options`; `embedding_settings`: params.yaml `embeddings`, whose backend reads the vector files."""
    backend = embedding_settings.backend
    shared = [file_digest(p) for p in (files.corpus, files.corpus_meta, files.translations, *files.inputs)]
    vectors = [file_digest(p) for p in files.embeddings]
    # the vector files count for the metrics that read them: new vectors recompute those, not every metric of the job
    target_lang = read_json(files.corpus_meta)["dataset"]["target_lang"]
    target_card = card_for(target_lang, languages_dir) if target_lang else {}
    stamps = {m: metric_stamp(codes[m], options.of_metric(m), backend,
                              shared + (vectors if declaration(m, "needs_embeddings") else [])
                              + card_file_digests(target_card, declaration(m, "card_files"))) for m in metric_ids}
    stale = [(m, path) for m, path in zip(metric_ids, files.outputs, strict=True) if read_stamp(path) != stamps[m]]
    kept = sorted(set(metric_ids) - {m for m, _ in stale})
    print(f"recomputing {', '.join(m for m, _ in stale) or 'nothing'}; current: {', '.join(kept) or 'none'}",
          file=sys.stderr)
    if not stale:
        return []
    data = scoring_input(files.corpus, files.corpus_meta, files.translations, languages_dir)
    if files.embeddings and any(declaration(m, "needs_embeddings") for m, _ in stale):
        # the vectors of rule `embed`: the metrics embed nothing again
        data.embeddings = embeddings_from_files(files.embeddings, backend)
    for metric_id, path in stale:
        scoring = dataclasses.replace(data, options=options.of_metric(metric_id))
        result = resolve_metric(metric_id, data.target_card).score(scoring)
        write_metric_result(path, result, data.ids, stamp=stamps[metric_id])
    return [m for m, _ in stale]

"""Rule `embed`: one cached file of sentence vectors per dataset × text field (contract 5).

results/embeddings/{dataset}/{field}.npy (+ .ids.json) with field = `source`, `reference` or a method name.
A field's file holds the vectors of every entry's text of that field and, for texts of several sentences,
of each sentence (the hallucination rate aligns output sentences with source sentences). The method
`reference` is the reference field itself: one file, embedded once. A method's file first takes the
vectors that the source and reference files already hold (a copy of the source costs nothing), so each
distinct text of a dataset is embedded once, and a new method embeds only its own new texts. The source and
reference files are one job (rule `embed_corpus`), so the model is loaded once for both. The
embedding metrics and the misaligned_output caveat read these files (`embeddings_from_files`) and load
no model when every text is there.
"""

from pathlib import Path

from lyss.embed.embedders import Embeddings, VectorFile, save_vectors
from lyss.io import iter_jsonl
from lyss.prep.corpus import read_prepared
from lyss.settings import Embeddings as EmbeddingSettings
from lyss.text import has_content, sentences

CORPUS_FIELDS = ("source", "reference")


def texts_to_embed(entry_texts: list[tuple[str, str | None]]) -> tuple[list[str], list[str]]:
    """(ids, texts): each entry's non-empty text, then its sentences (as `sentences` strips them, so a
    one-sentence text with outer spaces has two forms). Outputs without letters or digits are never embedded
    (the metrics score them 0 without a model); sources and references always are."""
    ids, texts, seen = [], [], set()
    for entry_id, text in entry_texts:
        if not text:
            continue
        for piece in [text, *sentences(text)]:
            if piece and (entry_id, piece) not in seen:
                seen.add((entry_id, piece))
                ids.append(entry_id)
                texts.append(piece)
    return ids, texts


def field_texts(corpus_path, field: str, translations_path=None) -> list[tuple[str, str | None]]:
    """(entry id, text) of a corpus field, or of a method's predictions."""
    entries = read_prepared(corpus_path)
    if translations_path is None:
        return [(e["id"], e[field]) for e in entries]
    predictions = {r["id"]: r.get("prediction") for _, r in iter_jsonl(translations_path)}
    return [(e["id"], predictions.get(e["id"])) for e in entries]


def embed_field(corpus_path, field: str, out_path, *, translations_path=None,
                settings: EmbeddingSettings | None = None, embeddings: Embeddings | None = None) -> int:
    """Write the field's vector file; returns how many texts the model embedded (the rest were in
    `embeddings`: the table one job shares between its fields, seeded with the files of fields embedded before by
    `embeddings_from_files`; None: a new table). `settings`: params.yaml `embeddings` (None: the schema's
    defaults)."""
    settings = settings or EmbeddingSettings.of()
    pairs = field_texts(corpus_path, field, translations_path)
    if translations_path is not None:
        pairs = [(entry_id, text) for entry_id, text in pairs if has_content(text)]
    ids, texts = texts_to_embed(pairs)
    table = embeddings or Embeddings(settings.backend, batch_size=settings.batch_size)
    table.label = f"embed {Path(out_path).parent.name}/{Path(out_path).stem}"
    before = table.computed
    vectors = table.embed(texts) if texts else None
    save_vectors(out_path, VectorFile(table.model, ids, texts, vectors if vectors is not None else _empty()))
    return table.computed - before


def _empty():
    import numpy as np

    return np.zeros((0, 0), dtype=np.float32)

"""semantic_score (spec §2.3): cosine similarity of multilingual sentence embeddings.

The prediction is compared with the source (cross-lingual, so a correct paraphrase of the reference is
not punished) and with the reference (so the reference's reading of an ambiguous source counts); the
entry's value is the mean of the two cosines, clipped to 0–1. Option `against: [reference]` (or
`[source]`) keeps one side only; option `embedder` picks the model (see `lyss.embedders`).

A prediction with no letter or digit (empty, missing, punctuation only) carries no meaning and scores 0.
Raw cosines of sentence embedders do not start at 0 for unrelated text, so the details record
`chance_cosine`, the mean cosine of each prediction with the *other* entries' references: the level an
unrelated output reaches with this embedder on this corpus.

Languages whose card declares a language-specific `semantic_score` plugin (spec §1.4, e.g. crk) are
scored by that plugin instead; this class is only the universal default in the registry.
"""

import numpy as np
import regex

from lyss.embedders import MIN_ENTRIES_FOR_ALIGNMENT, get_embedder, paired_cosine, retrieval_misses, unit_rows
from lyss.errors import InputError
from lyss.metrics.base import MetricResult, ScoringInput

ANCHORS = ("source", "reference")
CONTENT = regex.compile(r"[\p{L}\p{N}]")


def has_content(text: str | None) -> bool:
    return bool(text) and CONTENT.search(text) is not None


def chance_cosine(predictions: np.ndarray, references: np.ndarray) -> float | None:
    """Mean cosine of prediction i with reference j ≠ i; None with fewer than two rows."""
    n = len(predictions)
    if n < 2:
        return None
    # Σ_i Σ_j≠i cos(p_i, r_j) = (Σ_i p̂_i)·(Σ_j r̂_j) − Σ_i cos(p_i, r_i): no n × n matrix (80 GB at 100k entries)
    units_p, units_r = unit_rows(predictions), unit_rows(references)
    off_diagonal = units_p.sum(axis=0) @ units_r.sum(axis=0) - np.einsum("ij,ij->", units_p, units_r)
    return float(off_diagonal / (n * (n - 1)))


class SemanticScore:
    id = "semantic_score"
    direction = "higher"
    ideal = 1.0

    def score(self, data: ScoringInput) -> MetricResult:
        n = len(data.entries)
        against = tuple(data.options.get("against", ANCHORS))
        if not against or set(against) - set(ANCHORS):
            raise InputError("params.yaml", f"must be a non-empty subset of {list(ANCHORS)}",
                             field="metric_options.semantic_score.against")
        try:
            embedder = get_embedder(data.options.get("embedder"))
        except ImportError as err:
            return MetricResult.unavailable(self.id, n, f"embedder cannot be loaded: {err}")
        rows = [i for i, p in enumerate(data.predictions) if has_content(p)]
        values = np.zeros(n)
        cosines = {anchor: np.full(n, np.nan) for anchor in ANCHORS}
        chance = None
        columns = {}
        if rows:
            predicted = embedder.embed([data.predictions[i] for i in rows])
            texts = {"source": data.sources, "reference": data.references}
            anchors = {a: embedder.embed([texts[a][i] for i in rows]) for a in against}
            for anchor, vectors in anchors.items():
                cosines[anchor][rows] = paired_cosine(predicted, vectors)
            values[rows] = np.clip(np.mean([cosines[a][rows] for a in against], axis=0), 0.0, 1.0)
            if "reference" in anchors:
                chance = chance_cosine(predicted, anchors["reference"])
            if n >= MIN_ENTRIES_FOR_ALIGNMENT:
                # Kept per entry so the misaligned_output caveat needs no second pass of the model.
                misses = retrieval_misses(predicted, embedder.embed(data.sources), rows)
                columns["misaligned"] = misses.astype(float)
        return MetricResult(
            self.id, values, float(values.mean()) if n else None,
            reason=None if n else "the corpus is empty",
            details={"embedder": embedder.name, "against": list(against),
                     "chance_cosine": None if chance is None else round(chance, 6),
                     "entries_without_content": n - len(rows),
                     "per_entry": "mean cosine with the anchors, clipped to 0–1; 0 without letters/digits"},
            columns={**{f"cos_{a}": cosines[a] for a in against}, **columns},
        )

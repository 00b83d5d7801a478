"""semantic_score (spec §2.3): cosine similarity of multilingual sentence embeddings.

The spec names the ingredient (embedding cosine) but not how source and reference enter; the formula
here is this project's, not the spec's. Per entry, with p the prediction, r the reference, s the source:

    value = clip( cos(p, r) − max(0, cos(p, s) − cos(r, s)), 0, 1 )

The reference is the anchor, so the reference itself scores 1.0 (the metric's ideal). The second term
stops the source from fooling the metric: a multilingual embedder puts a sentence and its translation
close together, so a copy of the source sits near the reference too (cos 0.87–0.93 on our corpora). An
output is penalised by how much closer it is to the source than the reference is; a real translation is
about as close to the source as the reference, a copy is closer (cos 1). Measured with
multilingual-e5-small (docs/metrics-semantic-behavioural.md): demo eng→spa reference 1.000, Apertium
0.943, copy of the source 0.857; WMT21 TED eng→deu real MT systems 0.946–0.950, copy 0.829; on MAFAND
eng→yor/swa/hau/zul/amh a copy scores 0.73–0.81 while a reference with every fifth word dropped keeps 0.98.

A prediction with no letter or digit (empty, missing, punctuation only) carries no meaning and scores 0.
Raw cosines of sentence embedders do not start at 0 for unrelated text, so the details record
`chance_cosine`, the mean cosine of each prediction with the *other* entries' references: the level an
unrelated output reaches with this embedder on this corpus.

Languages whose card declares a language-specific `semantic_score` plugin (spec §1.4, e.g. crk) are
scored by that plugin instead; this class is only the universal default in the registry.
"""

import numpy as np

from lyss.embed.embedders import embedder_for, paired_cosine, unit_rows
from lyss.metrics.base import MetricResult, ScoringInput
from lyss.text import has_content


def chance_cosine(predictions: np.ndarray, references: np.ndarray) -> float | None:
    """Mean cosine of prediction i with reference j ≠ i; None with fewer than two rows."""
    n = len(predictions)
    if n < 2:
        return None
    # Σ_i Σ_j≠i cos(p_i, r_j) = (Σ_i p̂_i)·(Σ_j r̂_j) − Σ_i cos(p_i, r_i): no n × n matrix (80 GB at 100k entries)
    units_p, units_r = unit_rows(predictions), unit_rows(references)
    off_diagonal = units_p.sum(axis=0) @ units_r.sum(axis=0) - np.einsum("ij,ij->", units_p, units_r)
    return float(off_diagonal / (n * (n - 1)))


def source_penalised_similarity(to_reference: np.ndarray, to_source: np.ndarray,
                                reference_to_source: np.ndarray) -> np.ndarray:
    """cos(p, r) less the excess of cos(p, s) over cos(r, s), clipped to 0–1 (see the module docstring)."""
    return np.clip(to_reference - np.maximum(0.0, to_source - reference_to_source), 0.0, 1.0)


class SemanticScore:
    id = "semantic_score"
    options_schema = {"embedder": {"$ref": "#/$defs/embedder"}}
    card_position = 10
    maximum = None
    db_column = "semantic_score"
    needs_embeddings = True  # reads sentence vectors (lyss.embed.embedders)
    direction = "higher"
    ideal = 1.0

    def score(self, data: ScoringInput) -> MetricResult:
        n = len(data.entries)
        try:
            embedder = embedder_for(data.options.get("embedder"), data.embeddings)
            name = embedder.name
        except ImportError as err:
            return MetricResult.unavailable(self.id, n, f"embedder cannot be loaded: {err}")
        rows = [i for i, p in enumerate(data.predictions) if has_content(p)]
        values = np.zeros(n)
        cosines = {key: np.full(n, np.nan) for key in ("cos_reference", "cos_source", "cos_reference_source")}
        chance = None
        if rows:
            predicted = embedder.embed([data.predictions[i] for i in rows])
            references = embedder.embed([data.references[i] for i in rows])
            sources = embedder.embed([data.sources[i] for i in rows])
            cosines["cos_reference"][rows] = paired_cosine(predicted, references)
            cosines["cos_source"][rows] = paired_cosine(predicted, sources)
            cosines["cos_reference_source"][rows] = paired_cosine(references, sources)
            values[rows] = source_penalised_similarity(*(cosines[k][rows] for k in cosines))
            chance = chance_cosine(predicted, references)
        return MetricResult(
            self.id, values, float(values.mean()) if n else None,
            reason=None if n else "the corpus is empty",
            details={"embedder": name, "chance_cosine": None if chance is None else round(chance, 6),
                     "entries_without_content": n - len(rows),
                     "per_entry": "cos(p,r) − max(0, cos(p,s) − cos(r,s)), clipped to 0–1; 0 without "
                                  "letters/digits (this project's formula, not the spec's)"},
            columns=cosines,
        )

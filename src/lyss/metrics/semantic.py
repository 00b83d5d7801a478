"""semantic_score (spec §2.3): multilingual sentence embeddings, the output's distance to the reference as a share
of chance.

The spec names the ingredient (embedding cosine) but not how source, reference and chance enter; the formula
here is this project's, not the spec's. Per entry, with p the prediction, r the reference, s the source and
c the corpus's chance cosine:

    similarity = cos(p, r) − max(0, cos(p, s) − b)      (b: see "Why the source term")
    share      = (1 − similarity) / (1 − c)              (the squared distance to r over the chance one)
    value      = clip( 1 − √share, 0, 1 )
    corpus     = clip( 1 − √(mean share), 0, 1 )          (see "The corpus value")
    c          = mean cos(r_i, r_j) over pairs of different entries i ≠ j of the corpus

Why calibrate. Raw cosines of sentence embedders do not start at 0 for unrelated text: with
multilingual-e5-small two unrelated sentences of one language and domain sit at cos 0.80–0.85, so the
references shuffled across segments (fluent text about something else) scored 0.83–0.85 on MAFAND dev while
real systems on WMT21 TED scored 0.95: the whole useful range was the top 15% of the scale, and with weight
0.25 (profile B) every composite gained about 0.2 for nothing. `c` is the level an unrelated fluent output of
this corpus reaches with this embedder (a shuffled reference is exactly such an output, and its mean cosine
is c by construction). c is computed from the references only, so it is a property of corpus and embedder,
identical for every system scored on the corpus: the map is the same increasing function for all of them, so
rankings of systems and of a segment's outputs are unchanged except where outputs at or below chance tie at 0.

Why a distance. For unit vectors |p − r|² = 2(1 − cos(p, r)), and 2(1 − c) is the mean squared distance between
two different references: the value is 1 − |p − r| / d_chance, how far the output has come from an unrelated
sentence towards the reference, measured on the embedder's sphere (with the source term, `similarity` stands for
the cosine). A first version mapped the cosine linearly, (similarity − c) / (1 − c). Both spend the scale from
chance (0) to the reference (1) and neither has a free parameter; they differ near the top, where the
embedder packs every adequate translation into a few hundredths of cosine. The linear map gave the reference with
every fifth word dropped 0.88–0.92 (a fifth of its content gone) and real TED systems 0.69–0.73; the distance gives
0.68–0.74 and 0.47–0.51, so losing content costs what a linguist would expect, and a segment's translations are
spread further apart where they differ. Measured on the MQM raters (bench/human_agreement.py, docs/validation.md
§7), the composite's segment Kendall per item moved TED 0.099 → 0.100, Gujarati 0.373 → 0.375, Marathi 0.162 →
0.181 (p against chrF++ 0.108 → 0.020). As corpus values (below), shuffled references score 0.000–0.005 on
MAFAND dev (yor, swa, hau, zul, amh), TED and IndicMT, the reference 1.0, real systems 0.44–0.48 on WMT21 TED
and 0.50–0.62 on IndicMT Gujarati/Marathi (bench/bench_semantic_span.py, docs/metrics-semantic-behavioural.md).

The corpus value. c is a mean over pairs of cosines, so 2(1 − c) is the mean *squared* distance between two
different references and the chance distance a root mean square. The corpus value compares like with like:
1 − the root-mean-square distance of the outputs to their references over that chance distance, which
is 1 − √(mean share). An output further from its reference than chance keeps its share above 1 there (its
entry value is clipped to 0), so a corpus of unrelated fluent sentences scores 0, not the 0.03–0.04 that the
mean of the clipped entry values gave the shuffled references on MAFAND dev and TED (bench/bench_semantic_span.py:
0.000–0.005 now). The mean of the entry values was the first corpus value; against the MQM raters the root mean
square ranks the 13 TED systems closer to them (system Pearson of semantic_score 0.487 → 0.560, of the
composite 0.502 → 0.544; Gujarati composite 0.922 → 0.925, Marathi 0.763 → 0.750; docs/validation.md §7). The
segment level does not change. The paired tests and CIs resample the shares (`corpus_rows = "stats"`).

Why the source term. A multilingual embedder puts a sentence and its translation close together, so a
copy of the source sits near the reference too (cos 0.87–0.93 on our corpora). The penalty is how much closer
the output is to the source than a translation of it is, and what "a translation" is depends on the scripts:

    similarity = cos(p, r) − max(0, cos(p, s) − b),   b = cos(r, s) where source and target share a script
                                                      b = cos(p, r) where they share none

Where the scripts are shared, an output closer to the source than the reference is carries source material
over (untranslated words, calques in the same letters), and the raters agree: on WMT21 TED en→de the excess
cos(p, s) − cos(r, s) ranks a segment's translations against the MQM scores (Kendall per item −0.050), and
the penalty raises semantic_score's agreement from +0.083 to +0.095. Across scripts nothing is carried over
verbatim and the same excess is the embedder's noise: it fires on 48% of the IndicMT English→Gujarati and
→Marathi outputs and ranks them *with* the raters (+0.17, +0.12), so penalising it cost semantic_score 0.048
of agreement on Gujarati and 0.013 on Marathi (bench/human_agreement.py, docs/validation.md §7). There the
guard is whether the output is closer to the source than to the reference, which a copy of the source
always is (cos(p, s) = 1) and 0.1% of those real outputs are. A copy scores the same under both rules,
2·cos(r, s) − 1 before calibration. A card without scripts counts as sharing one (the stricter rule). After
calibration a copy of the source scores 0.000 on MAFAND, 0.017 on TED (real systems ≥ 0.44), 0.078 on the
demo (Apertium 0.437), as corpus values.

The reference itself scores 1.0 (the metric's ideal, which the reference check demands). A prediction with no
letter or digit (empty, missing, punctuation only) carries no meaning and scores 0. With references of fewer
than two entries there is no chance level to calibrate against and the metric is unavailable; a small corpus
gives a noisy c (`details.chance_pairs` says how many pairs it averages).

Languages whose card declares a language-specific `semantic_score` plugin (spec §1.4, e.g. crk) are
scored by that plugin instead; this class is only the universal default in the registry.
"""

import numpy as np

from lyss.embed.embedders import embedder_for, paired_cosine, unit_rows
from lyss.metrics.base import MetricResult, ScoringInput, ratio_of_sums
from lyss.text import has_content


def chance_cosine(references: np.ndarray) -> float | None:
    """Mean cosine of reference i with reference j ≠ i; None with fewer than two rows."""
    n = len(references)
    if n < 2:
        return None
    # Σ_i Σ_j≠i cos(r_i, r_j) = |Σ_i r̂_i|² − Σ_i |r̂_i|²: no n × n matrix (80 GB at 100k entries)
    units = unit_rows(references)
    total = units.sum(axis=0)
    return float((total @ total - np.einsum("ij,ij->", units, units)) / (n * (n - 1)))


def squared_distance_share(similarity: np.ndarray, chance: float) -> np.ndarray:
    """(1 − similarity) / (1 − chance): the squared distance to the reference as a share of the mean squared
    distance between two different references (unit vectors: |p − r|² = 2(1 − cos)); not clipped, so that
    its mean over a corpus of unrelated outputs is 1 (see "The corpus value")."""
    return np.maximum(1.0 - similarity, 0.0) / (1.0 - chance)


def score_from_share(share) -> np.ndarray:
    """1 − √share clipped to 0–1: 1 − the distance to the reference as a share of the chance distance, so chance
    (share 1) maps to 0 and the reference (share 0) to 1 (see "Why a distance")."""
    return np.clip(1.0 - np.sqrt(share), 0.0, 1.0)


def root_mean_square_score(sums):
    """The corpus value over summed rows [squared distance share, 1]: 1 − the root-mean-square distance to the
    references as a share of the chance distance (itself a root mean square), clipped to 0–1."""
    return score_from_share(ratio_of_sums(sums))


def source_penalised_similarity(to_reference: np.ndarray, to_source: np.ndarray,
                                reference_to_source: np.ndarray, shared_script: bool = True) -> np.ndarray:
    """cos(p, r) less the excess of cos(p, s) over cos(r, s) (scripts shared) or over cos(p, r) (no script
    shared), clipped to 0–1 (see the module docstring)."""
    baseline = reference_to_source if shared_script else to_reference
    return np.clip(to_reference - np.maximum(0.0, to_source - baseline), 0.0, 1.0)


def shares_a_script(source_card: dict, target_card: dict) -> bool:
    """Whether source and target may be written in one script; True when either card names no script."""
    source, target = set(source_card.get("scripts") or []), set(target_card.get("scripts") or [])
    return not (source and target) or bool(source & target)


class SemanticScore:
    id = "semantic_score"
    options_schema = {"embedder": {"$ref": "#/$defs/embedder"}}
    card_position = 10
    maximum = None
    db_column = "semantic_score"
    needs_embeddings = True  # reads sentence vectors (lyss.embed.embedders)
    direction = "higher"
    ideal = 1.0
    corpus_rows = "stats"
    corpus_value = staticmethod(root_mean_square_score)

    def score(self, data: ScoringInput) -> MetricResult:
        n = len(data.entries)
        try:
            embedder = embedder_for(data.options.get("embedder"), data.embeddings)
            name = embedder.name
        except ImportError as err:
            return MetricResult.unavailable(self.id, n, f"embedder cannot be loaded: {err}")
        if n < 2:
            return MetricResult.unavailable(self.id, n, "the chance level needs the references of at least 2 "
                                            "entries", embedder=name)
        chance = chance_cosine(embedder.embed(data.references))
        if chance >= 1.0 - 1e-6:
            return MetricResult.unavailable(self.id, n, "the references are all alike to the embedder "
                                            f"(chance cosine {chance:.6f}): nothing to calibrate against",
                                            embedder=name)
        rows = [i for i, p in enumerate(data.predictions) if has_content(p)]
        shared = shares_a_script(data.source_card, data.target_card)
        shares = np.ones(n)  # an entry without content counts as an unrelated sentence
        cosines = {key: np.full(n, np.nan) for key in ("cos_reference", "cos_source", "cos_reference_source")}
        if rows:
            predicted = embedder.embed([data.predictions[i] for i in rows])
            references = embedder.embed([data.entries[i]["reference"] for i in rows])
            sources = embedder.embed([data.entries[i]["source"] for i in rows])
            cosines["cos_reference"][rows] = paired_cosine(predicted, references)
            cosines["cos_source"][rows] = paired_cosine(predicted, sources)
            cosines["cos_reference_source"][rows] = paired_cosine(references, sources)
            shares[rows] = squared_distance_share(source_penalised_similarity(*(cosines[k][rows] for k in cosines),
                                                                              shared_script=shared), chance)
        stats = np.column_stack([shares, np.ones(n)])
        return MetricResult(
            self.id, score_from_share(shares), float(root_mean_square_score(stats.sum(axis=0))), stats=stats,
            details={"embedder": name, "chance_cosine": round(chance, 6), "chance_pairs": n * (n - 1) // 2,
                     "entries_without_content": n - len(rows),
                     "source_term": ("cos(p,s) over cos(r,s): source and target share a script" if shared else
                                     "cos(p,s) over cos(p,r): source and target share no script"),
                     "per_entry": "s = cos(p,r) − max(0, cos(p,s) − b); 1 − √((1 − s) / (1 − chance)), "
                                  "clipped to 0–1, chance = mean cosine between different references; 0 without "
                                  "letters/digits (this project's formula, not the spec's)",
                     "corpus": "1 − √(mean of (1 − s) / (1 − chance)): the root-mean-square distance to the "
                               "references as a share of the chance distance"},
            columns=cosines,
        )

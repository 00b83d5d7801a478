"""Score caveats and the tier gate: our extension to the spec, which keeps the composite unchanged.

The spec's composite can be gamed: one well-formed target-language sentence repeated for every input
passes FST checks, carries no source words and invents no numbers, and can reach "functional". The
composite stays the spec's formula; what we add is a list of caveats computed from the predictions
alone (they need no metric), and a gate (`caveats.gate_tier` in params.yaml, on by default) that keeps
a run with any caveat at the `baseline` tier whatever its composite.

Each caveat is the share of entries showing a degenerate pattern, raised when it reaches its threshold:
  source_copy           the output is (nearly) the source, where the reference is not
  near_constant_output  the same output is given for entries whose references differ
  length_deflation      output shorter than half the reference (characters; spec §2.1's truncation mark)
  length_inflation      output longer than twice the reference (spec §2.1's inflation mark)
  empty_output          no output, or nothing but spaces and punctuation
  misaligned_output     the output is closer, in multilingual sentence embeddings, to another entry's
                        source than to its own (bitext-mining check: it is not a translation of its input),
                        where the reference is not (a language the embedder knows poorly misaligns the
                        reference too, and then says nothing about the output)
"""

import difflib

import numpy as np

from lyss.embed.embedders import unit_rows
from lyss.recent import RecentResults
from lyss.text import has_content

MESSAGES = {
    "source_copy": "of outputs are (near) copies of their source",
    "near_constant_output": "of outputs repeat an output given for an entry with a different reference",
    "length_deflation": "of outputs are shorter than {low}× their reference",
    "length_inflation": "of outputs are longer than {high}× their reference",
    "empty_output": "of entries have no output with a letter or digit",
    "misaligned_output": "of outputs are closer to another entry's source than to their own (where the "
                         "reference is not)",
}


def _normal(text: str) -> str:
    return " ".join(text.casefold().split())


def near_copy(a: str, b: str, similarity: float) -> bool:
    """difflib's ratio of the casefolded, space-normalised strings reaches `similarity`. Its cheap upper
    bounds (lengths, then character counts) rule most pairs out first: ratio() alone took longer than
    sacrebleu's chrF and BLEU together on 1,002 segments."""
    a, b = _normal(a), _normal(b)
    if a and b and 2.0 * min(len(a), len(b)) / (len(a) + len(b)) < similarity:  # real_quick_ratio, no matcher
        return False
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return (matcher.real_quick_ratio() >= similarity and matcher.quick_ratio() >= similarity
            and matcher.ratio() >= similarity)


def _source_copy(entries, outputs, settings) -> np.ndarray:
    similarity = settings["copy_similarity"]
    return np.array([has_content(p) and near_copy(p, e["source"], similarity)
                     and not near_copy(e["reference"], e["source"], similarity)
                     for e, p in zip(entries, outputs, strict=True)])


def _near_constant(entries, outputs) -> np.ndarray:
    references_by_output: dict[str, set[str]] = {}
    for entry, output in zip(entries, outputs, strict=True):
        if has_content(output):
            references_by_output.setdefault(_normal(output), set()).add(_normal(entry["reference"]))
    return np.array([has_content(p) and len(references_by_output[_normal(p)]) > 1 for p in outputs])


def _length_ratios(entries, outputs) -> np.ndarray:
    return np.array([len(p.strip()) / len(e["reference"].strip()) if e["reference"].strip() else np.nan
                     for e, p in zip(entries, outputs, strict=True)])


# Retrieval among fewer entries says little: misaligned outputs are only looked for from this size on.
MIN_ENTRIES_FOR_ALIGNMENT = 5
# Outputs checked at most: beyond it a seeded sample of outputs is searched against every source, so the
# cost grows linearly with the corpus (all pairs at 100k entries are 10^10 cosines) and the share is an
# estimate with a confidence interval.
ALIGNMENT_SAMPLE = 5000
ALIGNMENT_SEED = 20240611
RETRIEVAL_BLOCK_CELLS = 16_000_000  # similarity cells per block (64 MB of float32)
COSINE_TOLERANCE = 1e-6  # own and other cosines come from different float32 products: ties stay ties


def skipped_misaligned() -> str:
    """Why misaligned_output was not checked, naming the metrics whose scoring would have embedded."""
    from lyss.metrics import REGISTRY, declaration  # late: the registry imports every metric plugin

    embedding = " or ".join(m for m in REGISTRY if declaration(m, "needs_embeddings"))
    return ("needs sentence embeddings of the sources and outputs, which nothing asked for computed "
            f"(score {embedding}, or ask for the embedding caveats)")


def retrieval_misses(output_vectors: np.ndarray, source_vectors: np.ndarray, rows) -> np.ndarray:
    """For output k (the translation of entry rows[k]): True when it is closer to another entry's source
    than to its own (bitext retrieval does not find its own input). Top-1 search a block of *sources* at a
    time, keeping each output's best other cosine: the sources are read once, the outputs stay in cache,
    and memory is the outputs × one block. One flag per output in `rows`."""
    rows = np.asarray(rows, dtype=int)
    outputs = unit_rows(output_vectors).astype(np.float32)  # float32: twice the speed in the product
    sources = unit_rows(source_vectors).astype(np.float32)
    own = np.einsum("ij,ij->i", outputs, sources[rows]) if len(rows) else np.zeros(0, np.float32)
    best_other = np.full(len(rows), -np.inf, dtype=np.float32)
    block = max(1, RETRIEVAL_BLOCK_CELLS // max(len(rows), 1))
    for start in range(0, len(sources) if len(rows) else 0, block):
        similarity = outputs @ sources[start:start + block].T
        inside = np.flatnonzero((rows >= start) & (rows < start + block))
        similarity[inside, rows[inside] - start] = -np.inf
        np.maximum(best_other, similarity.max(axis=1), out=best_other)
    return best_other > own + COSINE_TOLERANCE


def _misaligned(entries, outputs, embeddings) -> np.ndarray | None:
    """Per entry 1.0 where an output is nearer another entry's source and its reference is not, 0.0 where
    not, NaN where not checked (outside the sample); None for corpora too small to say or when there are no
    embeddings."""
    if embeddings is None or len(entries) < MIN_ENTRIES_FOR_ALIGNMENT:
        return None
    flags = np.zeros(len(entries))
    rows = np.array([i for i, p in enumerate(outputs) if has_content(p)], dtype=int)
    if len(entries) > ALIGNMENT_SAMPLE:
        checked = np.sort(np.random.default_rng(ALIGNMENT_SEED).choice(len(entries), ALIGNMENT_SAMPLE,
                                                                       replace=False))
        flags[:] = np.nan
        flags[checked] = 0.0
        rows = np.intersect1d(rows, checked)
    if len(rows):
        queries = np.concatenate([embeddings.embed([outputs[i] for i in rows]),  # one pass over the sources
                                  embeddings.embed([entries[i]["reference"] for i in rows])])
        misses = retrieval_misses(queries, embeddings.embed([e["source"] for e in entries]), np.tile(rows, 2))
        flags[rows] = misses[:len(rows)] & ~misses[len(rows):]
    return flags


def skipped_caveats(settings: dict, embeddings) -> dict[str, str]:
    """Caveats with a threshold that were not computed, and why (shown to the user, never silent)."""
    if embeddings is None and settings["thresholds"].get("misaligned_output") is not None:
        return {"misaligned_output": skipped_misaligned()}
    return {}


def wilson_interval(hits: float, n: int, z: float = 1.96) -> list[float]:
    """95% Wilson score interval of a share estimated from `hits` of `n` sampled entries."""
    share = hits / n
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [round(float(centre - half), 6), round(float(centre + half), 6)]


# A run card checks the references' own flags and then its outputs', so `lyss score` asks for the references'
# flags three times (the oracle's card twice, each system's card once) and the pipeline once per card.
_LAST_FLAGS = RecentResults(2)


def entry_flags(entries: list[dict], predictions: list[str | None], settings: dict,
                embeddings=None) -> dict[str, np.ndarray]:
    """Per caveat, a flag per entry (which entries show the pattern; NaN where a sampled check did not
    look). `embeddings` (`lyss.embed.embedders.Embeddings`, cached or in memory) enables misaligned_output; without
    it that caveat is skipped (`skipped_caveats` says why) rather than loading a model. Flags of a recent call
    that read the same (`lyss.recent`: texts and settings by value, the same embeddings table) are reused; a
    caller gets its own arrays."""
    read = (tuple((e["source"], e["reference"]) for e in entries), tuple(predictions), settings)
    flags = _LAST_FLAGS.get(read, lambda: _entry_flags(entries, predictions, settings, embeddings), same=(embeddings,))
    return {caveat: values.copy() for caveat, values in flags.items()}


def _entry_flags(entries: list[dict], predictions: list[str | None], settings: dict,
                 embeddings) -> dict[str, np.ndarray]:
    outputs = [p or "" for p in predictions]
    ratios = _length_ratios(entries, outputs)
    flags = {
        "source_copy": _source_copy(entries, outputs, settings),
        "near_constant_output": _near_constant(entries, outputs),
        "length_deflation": np.nan_to_num(ratios, nan=1.0) < settings["length_ratio_low"],
        "length_inflation": np.nan_to_num(ratios, nan=1.0) > settings["length_ratio_high"],
        "empty_output": np.array([not has_content(p) for p in outputs]),
    }
    misaligned = _misaligned(entries, outputs, embeddings)
    if misaligned is not None:
        flags["misaligned_output"] = misaligned
    return flags


def score_caveats(entries: list[dict], predictions: list[str | None], settings: dict,
                  embeddings=None, reference_flags: dict | None = None) -> list[dict]:
    """The caveats a run raises: `{id, share, threshold, entries, message}` for each pattern whose share
    of entries reaches its threshold, in a fixed order. `settings` is params.yaml's `caveats` section;
    a pattern without a threshold there is not raised. With `reference_flags` (`entry_flags` of the
    references themselves) an entry counts only where the reference does not show the pattern: a check
    that flags the reference is not evidence against an output (lyss.aggregate.oracle)."""
    if not entries:
        return []
    thresholds = settings["thresholds"]
    low, high = settings["length_ratio_low"], settings["length_ratio_high"]
    raised = []
    for caveat, flags in entry_flags(entries, predictions, settings, embeddings).items():
        flags = np.asarray(flags, dtype=float)
        if reference_flags is not None and caveat in reference_flags:
            shown_by_reference = np.asarray(reference_flags[caveat], dtype=float) == 1.0
            flags = np.where(shown_by_reference & ~np.isnan(flags), 0.0, flags)
        checked = int(np.sum(~np.isnan(flags)))
        share = float(np.nanmean(flags))
        threshold = thresholds.get(caveat)
        if threshold is not None and share >= threshold:
            what = MESSAGES[caveat].format(low=low, high=high)
            message = f"{share:.0%} {what} (threshold {threshold:.0%})"
            record = {"id": caveat, "share": round(share, 6), "threshold": threshold,
                      "entries": int(np.nansum(flags)), "message": message}
            if checked < len(flags):
                record["sample"] = {"checked": checked, "ci95": wilson_interval(np.nansum(flags), checked)}
                record["message"] += f"; estimated on a seeded sample of {checked} of {len(flags)} entries"
            raised.append(record)
    return raised


def gated_tier(tier: str, caveats: list[dict], settings: dict) -> str:
    """`baseline` for a scored run with caveats when the gate is on; the tier unchanged otherwise."""
    if settings["gate_tier"] and caveats and tier != "unscored":
        return "baseline"
    return tier

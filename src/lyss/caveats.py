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
                        source than to its own (bitext-mining check: it is not a translation of its input)
"""

import difflib

import numpy as np

from lyss.embedders import MIN_ENTRIES_FOR_ALIGNMENT, get_embedder, retrieval_misses
from lyss.metrics.semantic import has_content

MESSAGES = {
    "source_copy": "of outputs are (near) copies of their source",
    "near_constant_output": "of outputs repeat an output given for an entry with a different reference",
    "length_deflation": "of outputs are shorter than {low}× their reference",
    "length_inflation": "of outputs are longer than {high}× their reference",
    "empty_output": "of entries have no output with a letter or digit",
    "misaligned_output": "of outputs are closer to another entry's source than to their own",
}


def _normal(text: str) -> str:
    return " ".join(text.casefold().split())


def near_copy(a: str, b: str, similarity: float) -> bool:
    """difflib's ratio of the casefolded, space-normalised strings reaches `similarity`."""
    return difflib.SequenceMatcher(None, _normal(a), _normal(b), autojunk=False).ratio() >= similarity


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


def _misaligned(entries, outputs, settings) -> np.ndarray | None:
    """True where an output is nearer another entry's source; None for corpora too small to say."""
    if len(entries) < MIN_ENTRIES_FOR_ALIGNMENT:
        return None
    rows = [i for i, p in enumerate(outputs) if has_content(p)]
    if not rows:
        return np.zeros(len(entries), dtype=bool)
    embedder = get_embedder(settings.get("embedder"))
    distinct = list(dict.fromkeys(outputs[i] for i in rows))
    vectors = dict(zip(distinct, embedder.embed(distinct), strict=True))
    return retrieval_misses(np.stack([vectors[outputs[i]] for i in rows]),
                            embedder.embed([e["source"] for e in entries]), rows)


def entry_flags(entries: list[dict], predictions: list[str | None], settings: dict,
                misaligned: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Per caveat, a boolean per entry (which entries show the pattern). `misaligned` may be passed in
    when the semantic metric already computed it from the same embeddings (so aggregation runs no model)."""
    outputs = [p or "" for p in predictions]
    ratios = _length_ratios(entries, outputs)
    flags = {
        "source_copy": _source_copy(entries, outputs, settings),
        "near_constant_output": _near_constant(entries, outputs),
        "length_deflation": np.nan_to_num(ratios, nan=1.0) < settings["length_ratio_low"],
        "length_inflation": np.nan_to_num(ratios, nan=1.0) > settings["length_ratio_high"],
        "empty_output": np.array([not has_content(p) for p in outputs]),
    }
    if misaligned is None:
        misaligned = _misaligned(entries, outputs, settings)
    if misaligned is not None:
        flags["misaligned_output"] = misaligned
    return flags


def score_caveats(entries: list[dict], predictions: list[str | None], settings: dict,
                  misaligned: np.ndarray | None = None, reference_flags: dict | None = None) -> list[dict]:
    """The caveats a run raises: `{id, share, threshold, entries, message}` for each pattern whose share
    of entries reaches its threshold, in a fixed order. `settings` is params.yaml's `caveats` section;
    a pattern without a threshold there is not raised. With `reference_flags` (`entry_flags` of the
    references themselves) an entry counts only where the reference does not show the pattern: a check
    that flags the reference is not evidence against an output (lyss.oracle)."""
    if not entries:
        return []
    thresholds = settings["thresholds"]
    low, high = settings["length_ratio_low"], settings["length_ratio_high"]
    raised = []
    for caveat, flags in entry_flags(entries, predictions, settings, misaligned).items():
        if reference_flags is not None and caveat in reference_flags:
            flags = flags & ~reference_flags[caveat]
        share = float(np.mean(flags))
        threshold = thresholds.get(caveat)
        if threshold is not None and share >= threshold:
            what = MESSAGES[caveat].format(low=low, high=high)
            message = f"{share:.0%} {what} (threshold {threshold:.0%})"
            raised.append({"id": caveat, "share": round(share, 6), "threshold": threshold,
                           "entries": int(flags.sum()), "message": message})
    return raised


def gated_tier(tier: str, caveats: list[dict], settings: dict) -> str:
    """`baseline` for a scored run with caveats when the gate is on; the tier unchanged otherwise."""
    if settings["gate_tier"] and caveats and tier != "unscored":
        return "baseline"
    return tier

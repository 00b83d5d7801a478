"""`lyss score`: the §9 scores block for plain text files (one segment per line), outside the pipeline,
the way `sacrebleu` scores files.

The metrics, composite and confidence intervals are the pipeline's own functions on the same per-entry
rows; only the input differs (line numbers as entry ids, no translation records, hence no speed or cost).
The helpers here (reading parallel files, language cards, settings, scoring) are shared with `lyss compare`.
"""

import argparse
import json
import sys
from pathlib import Path

import yaml

from lyss.caveats import skipped_caveats
from lyss.composite import select_profile
from lyss.embedders import Embeddings
from lyss.errors import InputError
from lyss.languages import load_card
from lyss.metrics import REGISTRY, MetricResult, ScoringInput, get_metric
from lyss.runcard import apply_caveats, build_scores
from lyss.validation.options import positive_int

SETTINGS_SECTIONS = ("composite", "tiers", "caveats", "stats")


def read_segments(path: Path) -> list[str]:
    """One segment per line (a final newline ends the last line, it does not add an empty one)."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        line = path.read_bytes()[: err.start].count(b"\n") + 1
        raise InputError(path, f"not UTF-8 text ({err.reason})", line=line) from None
    except OSError as err:
        raise InputError(path, f"cannot read file ({err.strerror or err})") from None
    if not text:
        raise InputError(path, "file is empty")
    return [line.removesuffix("\r") for line in text.removesuffix("\n").split("\n")]


def read_parallel(paths: list[Path]) -> list[list[str]]:
    """Read files that must have one line per segment each; the first file sets the count."""
    texts = [read_segments(p) for p in paths]
    for path, lines in zip(paths[1:], texts[1:], strict=True):
        if len(lines) != len(texts[0]):
            raise InputError(path, f"has {len(lines)} lines but {paths[0]} has {len(texts[0])}; "
                                   "the files must be line-parallel")
    return texts


def language_cards(lang_pair: str, languages_dir: Path) -> tuple[str, str, dict, dict]:
    """Source and target codes and their cards; a language without a card uses defaults (said on stderr)."""
    codes = lang_pair.split("-")
    if len(codes) != 2 or not all(codes):
        raise InputError("--lang-pair", f"expected SRC-TGT such as eng-deu, got {lang_pair!r}")
    cards = []
    for code in codes:
        path = languages_dir / f"{code}.yaml"
        if path.exists():
            cards.append(load_card(path))
        else:
            cards.append({})
            print(f"lyss: no language card {path}; using defaults for {code} "
                  "(BLEU tokenizer 13a, composite profile B when it is the target)", file=sys.stderr)
    return codes[0], codes[1], cards[0], cards[1]


def load_settings(path: Path) -> dict:
    """The composite, tier and stats sections of params.yaml (the spec's tables live there)."""
    try:
        params = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise InputError(path, f"cannot read the settings ({err.strerror or err}); give --params PATH "
                               "to the LYSS params.yaml") from None
    missing = [s for s in SETTINGS_SECTIONS if not isinstance(params, dict) or s not in params]
    if missing:
        raise InputError(path, "missing section(s) needed for scoring", field=", ".join(missing))
    return params


def model_free_metrics() -> list[str]:
    """Registered metrics that need no model download (a plugin says so with `requires_model = True`)."""
    return [m for m, plugin in REGISTRY.items() if not getattr(plugin, "requires_model", False)]


def parse_metrics(text: str | None, allowed_extra: tuple[str, ...] = ()) -> list[str]:
    if text is None:
        return model_free_metrics()
    metrics = [m.strip() for m in text.split(",") if m.strip()]
    for metric in metrics:
        if metric not in allowed_extra:
            get_metric(metric, source="--metrics")  # raises with the known ids
    return metrics


def scoring_input(source: list[str], reference: list[str], hypothesis: list[str],
                  languages: tuple) -> ScoringInput:
    """Entries with line numbers as ids; every line has an output (an empty line scores as empty)."""
    src_lang, tgt_lang, src_card, tgt_card = languages
    entries = [{"id": str(i), "source": s, "reference": r}
               for i, (s, r) in enumerate(zip(source, reference, strict=True), start=1)]
    return ScoringInput(entries=entries, predictions=list(hypothesis), raw_predictions=list(hypothesis),
                        source_lang=src_lang, target_lang=tgt_lang, source_card=src_card,
                        target_card=tgt_card)


def needs_embeddings(metrics: list[str]) -> bool:
    """Whether a requested metric reads sentence vectors (its class says `needs_embeddings = True`)."""
    return any(getattr(get_metric(m, source="--metrics"), "needs_embeddings", False) for m in metrics)


def shared_embeddings(settings: dict, wanted: bool) -> Embeddings | None:
    """One in-memory vector table for every metric and caveat of the run (each text embedded once, as the
    pipeline's cached files do), or None when nothing asked for embeddings or no backend loads (the
    metrics then report themselves unavailable)."""
    if not wanted:
        return None
    embeddings = Embeddings((settings.get("embeddings") or {}).get("backend"))
    try:
        embeddings.backend  # noqa: B018 - load now: a missing backend makes the metrics say so, not crash
    except ImportError:
        return None
    return embeddings


def score_metrics(data: ScoringInput, metrics: list[str]) -> dict[str, MetricResult]:
    return {m: get_metric(m, source="--metrics").score(data) for m in metrics}


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", "-s", type=Path, required=True, help="source segments, one per line")
    parser.add_argument("--reference", "-r", type=Path, required=True,
                        help="reference translations, one per line")
    parser.add_argument("--lang-pair", "-l", required=True, help="ISO 639-3 codes SRC-TGT, e.g. eng-deu")
    parser.add_argument("--languages", type=Path, default=Path("data/languages"),
                        help="language card folder (default data/languages); missing cards mean defaults")
    parser.add_argument("--params", type=Path, default=Path("params.yaml"),
                        help="params.yaml with the composite weights, tiers and stats settings "
                        "(default params.yaml)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "score", help="score a hypothesis file against references (the run card's scores block)",
        description="Score plain text files (one segment per line) with the LYSS metrics and composite, "
        "as in a run card; see docs/statistics.md.")
    add_common_arguments(parser)
    parser.add_argument("--hypothesis", "-i", type=Path, required=True, help="system output, one per line")
    parser.add_argument("--metrics", "-m", help="comma-separated metric ids (default: every registered "
                        "metric that needs no model)")
    parser.add_argument("--ci", action="store_true", help="add bootstrap confidence intervals (§8.1)")
    parser.add_argument("--n", type=positive_int, help="bootstrap resamples for --ci (default: params stats)")
    parser.add_argument("--seed", type=int, help="bootstrap seed (default: params stats)")
    parser.add_argument("--embedding-caveats", action="store_true",
                        help="check misaligned_output (needs the sentence embedder) even when no requested "
                        "metric embeds; without it that caveat runs only alongside semantic_score or "
                        "hallucination_rate")
    parser.set_defaults(func=run)


def _text(block: dict) -> str:
    scores = block["scores"]
    intervals = scores["confidence_intervals"]
    lines = [f"profile {block['composite_profile']['profile']} · {scores['total']} segments"]
    for key, value in scores.items():
        if value is None or value == "" or isinstance(value, dict):
            continue
        shown = f"{value:.4f}" if isinstance(value, float) else str(value)
        ci = intervals.get(key)
        if ci and ci["ci_lower"] is not None:
            shown += f"  [{ci['ci_lower']:.4f}, {ci['ci_upper']:.4f}]"
        lines.append(f"{key:<24}{shown}")
    lines += [f"{name} signature: {sig}" for name, sig in block["signatures"].items()]
    lines += [f"caveat: {c['id']}: {c['message']}" for c in block["score_caveats"]]
    lines += [f"caveat skipped: {k}: {v}" for k, v in block["skipped_caveats"].items()]
    lines += [f"warning: {w}" for w in block["warnings"]]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    settings = load_settings(args.params)
    metrics = parse_metrics(args.metrics)
    languages = language_cards(args.lang_pair, args.languages)
    source, reference, hypothesis = read_parallel([args.source, args.reference, args.hypothesis])
    data = scoring_input(source, reference, hypothesis, languages)
    data.embeddings = shared_embeddings(settings, args.embedding_caveats or needs_embeddings(metrics))
    results = score_metrics(data, metrics)
    profile = select_profile(data.target_card)
    weights = settings["composite"]["profiles"][profile]
    normalisation = settings["composite"].get("normalisation", {})
    # Text files carry no translation records: no speed or cost; every line is an evaluated hypothesis.
    scores, reasons = build_scores(results, [], data.entries, weights, normalisation, settings["tiers"],
                                   elapsed_seconds=0.0, total_tokens=0, cost_per_entry=None)
    scores["evaluated"] = len(data.entries)
    caveats, tier_gate = apply_caveats(scores, data.entries, data.predictions, settings["caveats"],
                                       data.embeddings)
    warnings = []
    if args.ci:
        from lyss.confidence import confidence_intervals

        stats = settings["stats"]
        intervals = confidence_intervals(
            results, data.entries, weights, normalisation, n_resamples=args.n or stats["bootstrap_resamples"],
            alpha=stats["alpha"], seed=stats["seed"] if args.seed is None else args.seed,
            min_entries=stats.get("min_entries_warning", 30))
        scores["confidence_intervals"] = intervals["confidence_intervals"]
        warnings = intervals["warnings"]
    block = {"composite_profile": {"profile": profile, "weights": weights},
             "signatures": {k: r.signature for k, r in results.items() if r.signature},
             "null_reasons": {k: v for k, v in reasons.items() if k in metrics},
             "score_caveats": caveats, "skipped_caveats": skipped_caveats(settings["caveats"], data.embeddings),
             "tier_gate": tier_gate, "warnings": warnings, "scores": scores}
    print(json.dumps(block, ensure_ascii=False, indent=2) if args.json else _text(block))
    return 0

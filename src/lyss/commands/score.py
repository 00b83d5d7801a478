"""`lyss score`: the §9 scores block for plain text files (one segment per line), outside the pipeline,
the way `sacrebleu` scores files.

The metrics, composite and confidence intervals are the pipeline's own functions on the same per-entry
rows; only the input differs (line numbers as entry ids, no translation records, hence no speed or cost).
The helpers here (reading parallel files, language cards, settings, scoring) are shared with `lyss compare`.
"""

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from lyss.aggregate.caveats import skipped_caveats
from lyss.aggregate.composite import applied_weights, select_profile, weight_share
from lyss.aggregate.runcard import apply_caveats, build_scores, withheld_values
from lyss.embed.embedders import Embeddings
from lyss.errors import InputError
from lyss.languages import card_for, card_provenance, provenance_warning
from lyss.metrics import REGISTRY, MetricResult, ScoringInput, get_metric
from lyss.settings import read_params_file, validate_params
from lyss.validate.options import positive_int


def read_segments(path: Path) -> list[str]:
    """One segment per line (a final newline ends the last line, it does not add an empty one); `-` is
    standard input, as in sacrebleu."""
    try:
        text = sys.stdin.buffer.read().decode("utf-8") if str(path) == "-" else path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        line = err.object[: err.start].count(b"\n") + 1
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
    """Source and target codes and their cards (a card file merged over CLDR's facts, or CLDR's alone);
    a language without a card file is said on stderr and in the warnings (`card_warnings`)."""
    languages_dir = default_path("data/languages", "languages") if languages_dir is None else languages_dir
    codes = lang_pair.split("-")
    if len(codes) != 2 or not all(codes):
        raise InputError("--lang-pair", f"expected SRC-TGT such as eng-deu, got {lang_pair!r}")
    cards = [card_for(code, languages_dir) for code in codes]
    for line in card_warnings(codes, cards):
        print(f"lyss: {line}", file=sys.stderr)
    return codes[0], codes[1], cards[0], cards[1]


def card_warnings(codes, cards) -> list[str]:
    return [w for w in map(provenance_warning, codes, cards) if w]


def default_path(local: str, packaged: str) -> Path:
    """`local` (relative to the current folder) when it exists, else the copy packaged with lyss
    (src/lyss/defaults/, the repository's own params.yaml and language cards): `lyss score` works from any
    folder without --params or --languages."""
    if Path(local).exists():
        return Path(local)
    from importlib import resources

    return Path(str(resources.files("lyss.defaults").joinpath(packaged)))


def load_settings(path: Path | None) -> dict:
    """params.yaml, checked whole (lyss.settings) before anything is scored; the composite, tier, caveat and
    stats sections are what scoring reads (the spec's tables live there). None: the default settings."""
    path = default_path("params.yaml", "params.yaml") if path is None else path
    if not Path(path).exists():
        raise InputError(path, "cannot read the settings (no such file); give --params PATH to the LYSS "
                               "params.yaml")
    params = read_params_file(path)
    for warning in validate_params(params, path):
        print(f"lyss: warning: {warning}", file=sys.stderr)
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
        embeddings.require()  # a missing backend makes the metrics say so, not crash; no model loads yet
    except ImportError:
        return None
    return embeddings


def score_metrics(data: ScoringInput, metrics: list[str]) -> dict[str, MetricResult]:
    return {m: get_metric(m, source="--metrics").score(data) for m in metrics}


def oracle_check(data: ScoringInput, metrics: list[str], settings: dict, weights: dict) -> dict:
    """The reference scored as if it were the hypothesis (docs/oracle.md): its composite and tier, the
    reference check of every metric (a failing one is not valid on these files), and the caveat flags
    of the references (an output is flagged only where its reference is not)."""
    from lyss.aggregate.caveats import entry_flags
    from lyss.aggregate.oracle import DEFAULT_TOLERANCE, failed_metrics, reference_check

    oracle = dataclasses.replace(data, predictions=data.references, raw_predictions=data.references)
    results = score_metrics(oracle, metrics)
    checks = reference_check(results, data.target_card,
                             settings.get("oracle", {}).get("tolerance", DEFAULT_TOLERANCE))
    failed = failed_metrics(checks)
    scores, _ = build_scores(results, [], data.entries, weights, settings["composite"].get("normalisation", {}),
                             settings["tiers"], 0.0, 0, None, composite_settings=settings["composite"],
                             excluded=failed)
    flags = entry_flags(data.entries, data.references, settings["caveats"], data.embeddings)
    return {"block": {"composite": scores["composite"], "quality_tier": scores["quality_tier"],
                      "reference_check": checks},
            "failed": failed, "flags": flags}


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", "-s", type=Path, required=True, help="source segments, one per line")
    parser.add_argument("--reference", "-r", type=Path, required=True,
                        help="reference translations, one per line")
    parser.add_argument("--lang-pair", "-l", required=True, help="ISO 639-3 codes SRC-TGT, e.g. eng-deu")
    parser.add_argument("--languages", type=Path,
                        help="language card folder (default data/languages when it exists, else the cards "
                        "packaged with lyss); a language without a card file gets the card derived from CLDR "
                        "(docs/languages.md)")
    parser.add_argument("--params", type=Path,
                        help="params.yaml with the composite weights, tiers and stats settings (default "
                        "params.yaml when it exists, else the settings packaged with lyss)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "score", help="score a hypothesis file against references (the run card's scores block)",
        description="Score plain text files (one segment per line) with the LYSS metrics and composite, "
        "as in a run card; see docs/statistics.md.")
    add_common_arguments(parser)
    parser.add_argument("--hypothesis", "-i", type=Path, required=True,
                        help="system output, one per line (`-`: standard input)")
    parser.add_argument("--metrics", "-m", help="comma-separated metric ids (default: every registered "
                        "metric that needs no model)")
    parser.add_argument("--ci", action="store_true", help="add bootstrap confidence intervals (§8.1)")
    parser.add_argument("--n", type=positive_int, help="bootstrap resamples for --ci (default: params stats)")
    parser.add_argument("--seed", type=int, help="bootstrap seed (default: params stats)")
    parser.add_argument("--embedding-caveats", action="store_true",
                        help="check misaligned_output (needs the sentence embedder) even when no requested "
                        "metric embeds; without it that caveat runs only alongside a metric that does "
                        "(one whose class declares needs_embeddings)")
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
    withheld = {key: f"measured {value:.4f}, not counted: " for key, value in block["withheld"].items()}
    lines += [f"{key:<24}—  ({withheld.get(key, '')}{reason})" for key, reason in block["null_reasons"].items()
              if scores.get(key) is None and "reference check" not in reason]
    profile = block["composite_profile"]
    lines.append(f"composite over {', '.join(profile['applied_weights']) or 'no metric'} "
                 f"({profile['weight_share']:.0%} of profile {profile['profile']}'s weight)")
    oracle = block["oracle"]
    composite = "—" if oracle["composite"] is None else f"{oracle['composite']:.4f}"
    lines.append(f"reference (oracle): composite {composite}, {oracle['quality_tier']}")
    lines += [f"not valid here: {m}: {withheld.get(m, '')}{r}" for m, r in block["null_reasons"].items()
              if "reference check" in r]
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
    profile = select_profile(data.target_card, settings["composite"])
    weights = settings["composite"]["profiles"][profile]
    normalisation = settings["composite"].get("normalisation", {})
    oracle = oracle_check(data, metrics, settings, weights)
    # Text files carry no translation records: no speed or cost; every line is an evaluated hypothesis.
    scores, reasons = build_scores(results, [], data.entries, weights, normalisation, settings["tiers"],
                                   elapsed_seconds=0.0, total_tokens=0, cost_per_entry=None,
                                   composite_settings=settings["composite"], excluded=oracle["failed"])
    scores["evaluated"] = len(data.entries)
    caveats, tier_gate = apply_caveats(scores, data.entries, data.predictions, settings["caveats"],
                                       data.embeddings, reference_flags=oracle["flags"])
    warnings = card_warnings(args.lang_pair.split("-"), [data.source_card, data.target_card])
    if args.ci:
        from lyss.aggregate.confidence import confidence_intervals

        stats = settings["stats"]
        intervals = confidence_intervals(
            results, data.entries, weights, normalisation, n_resamples=args.n or stats["bootstrap_resamples"],
            alpha=stats["alpha"], seed=stats["seed"] if args.seed is None else args.seed,
            min_entries=stats.get("min_entries_warning", 30))
        scores["confidence_intervals"] = intervals["confidence_intervals"]
        warnings += intervals["warnings"]
    used = applied_weights(scores, weights)
    block = {"composite_profile": {"profile": profile, "weights": weights, "applied_weights": used,
                                   "weight_share": round(weight_share(scores, weights), 6)},
             "language_cards": {data.source_lang: card_provenance(data.source_card),
                                data.target_lang: card_provenance(data.target_card)},
             "signatures": {k: r.signature for k, r in results.items() if r.signature},
             "null_reasons": {k: v for k, v in reasons.items() if k in metrics},
             "withheld": withheld_values(results, scores),
             "score_caveats": caveats, "skipped_caveats": skipped_caveats(settings["caveats"], data.embeddings),
             "tier_gate": tier_gate, "warnings": warnings, "scores": scores, "oracle": oracle["block"]}
    print(json.dumps(block, ensure_ascii=False, indent=2) if args.json else _text(block))
    return 0

"""`lyss compare`: paired significance of several systems against the first (the baseline) on plain text
files, in the manner of `sacrebleu --paired-bs / --paired-ar`, using the pipeline's significance code.

Each system's metrics are scored once; the paired bootstrap (always, for the CI of the difference) and,
with `--test ar`, approximate randomization resample those per-entry rows. p-values are Holm-adjusted
across the systems of each metric.
"""

import argparse
import json
import sys
from pathlib import Path

from lyss.aggregate.composite import select_profile
from lyss.commands.score import (
    add_common_arguments,
    language_cards,
    load_settings,
    model_free_metrics,
    parse_metrics,
    read_parallel,
    score_metrics,
    scoring_input,
)
from lyss.errors import InputError
from lyss.metrics import significance_metrics
from lyss.significance import compare_pairs, coverage_notes, method_statistics, shared_composite_metrics
from lyss.validate.options import positive_int

JSON_KEYS = ("system", "metric", "score", "baseline_score", "delta", "ci_lo", "ci_hi", "p_value", "p_holm")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "compare", help="paired significance tests of systems against a baseline (the first hypothesis file)",
        description="Compare systems with the paired bootstrap or approximate randomization, as sacrebleu "
        "does, on the LYSS metrics and composite; see docs/statistics.md.")
    add_common_arguments(parser)
    parser.add_argument("--hypotheses", "-i", type=Path, nargs="+", required=True,
                        help="system outputs, one segment per line; the first is the baseline")
    default_metrics = ",".join(significance_metrics())  # the metrics the pipeline's significance step compares
    parser.add_argument("--metrics", "-m", default=default_metrics,
                        help=f"comma-separated metric ids, 'composite' included (default {default_metrics})")
    parser.add_argument("--test", choices=("bs", "ar"), default="bs",
                        help="paired bootstrap (bs, default) or approximate randomization (ar)")
    parser.add_argument("--n", type=positive_int,
                        help="bootstrap resamples (bs) or AR trials (ar); default from params stats")
    parser.add_argument("--seed", type=int, help="random seed (default: params stats)")
    parser.set_defaults(func=run)


def _rows(comparisons: list[dict], test: str) -> list[dict]:
    key = "p_bs" if test == "bs" else "p_ar"
    return [{"system": r["system"], "metric": r["metric"], "score": r["score"],
             "baseline_score": r["baseline_score"], "delta": r["delta"], "ci_lo": r["ci_lower"],
             "ci_hi": r["ci_upper"], "p_value": r[key], "p_holm": r[f"{key}_holm"]} for r in comparisons]


def _fmt(value, digits: int = 4) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _table(rows: list[dict], baseline: str, test: str, alpha: float, n: int, seed: int,
           composite_over: list[str]) -> str:
    header = ["metric", "system", "score", "delta", f"{100 * (1 - alpha):g}% CI of delta", f"p ({test})",
              "p (Holm)", ""]
    body = []
    for metric in dict.fromkeys(r["metric"] for r in rows):
        group = [r for r in rows if r["metric"] == metric]
        body.append([metric, f"{baseline} (baseline)", _fmt(group[0]["baseline_score"]), "", "", "", "", ""])
        for r in group:
            excludes_zero = r["ci_lo"] is not None and (r["ci_lo"] > 0 or r["ci_hi"] < 0)
            significant = r["p_holm"] < alpha and excludes_zero
            body.append(["", r["system"], _fmt(r["score"]), f"{r['delta']:+.4f}",
                         f"[{_fmt(r['ci_lo'])}, {_fmt(r['ci_hi'])}]", _fmt(r["p_value"]), _fmt(r["p_holm"]),
                         "*" if significant else ""])
    widths = [max(len(str(row[i])) for row in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
             for row in [header, *body]]
    test_name = "paired bootstrap" if test == "bs" else "approximate randomization"
    lines.append(f"\n{test_name}, n = {n}, seed = {seed}; "
                 f"* = Holm-adjusted p < {alpha:g} and the CI excludes 0")
    if any(r["metric"] == "composite" for r in rows):
        lines.append(f"composite over: {', '.join(composite_over)} (renormalised weights, spec §4.1)")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    settings = load_settings(args.params)
    stats = settings["stats"]
    metrics = parse_metrics(args.metrics, allowed_extra=("composite",))
    languages = language_cards(args.lang_pair, args.languages)
    source, reference, *hypotheses = read_parallel([args.source, args.reference, *args.hypotheses])
    profile = select_profile(languages[3], settings["composite"])
    weights = settings["composite"]["profiles"][profile]
    normalisation = settings["composite"].get("normalisation", {})
    scored = [m for m in metrics if m != "composite"]
    if "composite" in metrics:
        scored += [m for m in model_free_metrics() if m in weights and m not in scored]
    names = [str(p) for p in args.hypotheses]
    if len(names) < 2:
        raise InputError("--hypotheses", "give at least two files: the baseline first, then the systems")
    for path, name in zip(args.hypotheses, names, strict=True):
        if names.count(name) > 1:
            raise InputError(path, "is given more than once in --hypotheses")
    per_system = {name: score_metrics(scoring_input(source, reference, hyp, languages), scored)
                  for name, hyp in zip(names, hypotheses, strict=True)}
    shared, warning = shared_composite_metrics(per_system, weights)
    if warning:
        print(f"lyss: warning: {warning}", file=sys.stderr)
    statistics = {name: method_statistics(results, metrics, weights, normalisation, shared)
                  for name, results in per_system.items()}
    for note in coverage_notes(statistics, metrics):
        print(f"lyss: note: {note}", file=sys.stderr)
    seed = stats["seed"] if args.seed is None else args.seed
    n = args.n or (stats["bootstrap_resamples"] if args.test == "bs" else stats["ar_trials"])
    comparisons = compare_pairs(statistics, [(names[0], name) for name in names[1:]],
                                n_bootstrap=n if args.test == "bs" else stats["bootstrap_resamples"],
                                n_trials=n, seed=seed, alpha=stats["alpha"], with_ar=args.test == "ar")
    rows = _rows(comparisons, args.test)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(_table(rows, names[0], args.test, stats["alpha"], n, seed, shared))
    return 0

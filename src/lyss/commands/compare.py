"""`lyss compare`: paired significance of several systems against the first (the baseline) on plain text
files, in the manner of `sacrebleu --paired-bs / --paired-ar`, using the pipeline's significance code.

Each system's metrics are scored once; the paired bootstrap (always, for the CI of the difference) and,
with `--test ar`, approximate randomization resample those per-entry rows. p-values are Holm-adjusted
across the systems of each metric. Files, references, languages and metric names are read as `lyss score`
reads them (lyss.commands.score_options); systems are named by their short file names.
"""

import argparse
import json
from pathlib import Path

from lyss.aggregate.composite import select_profile
from lyss.argtypes import positive_int
from lyss.commands.plain_files import Notes, language_cards, load_settings, read_parallel, system_names
from lyss.commands.score import (
    choose_metrics,
    composite_scope,
    language_pair,
    metric_options,
    model_free_metrics,
    models_given,
    needs_embeddings,
    one_pass_texts,
    reads_source,
    score_beside_embedding,
    scoring_input,
    shared_embeddings,
    warn_unsegmented_script,
    warn_without_source,
)
from lyss.commands.score_options import Once, OnceFlag, add_common_arguments, metric_names, output_format
from lyss.commands.score_report import decimals, format_number
from lyss.errors import InputError
from lyss.metrics import significance_metrics
from lyss.significance import compare_pairs, coverage_notes, method_statistics, shared_composite_metrics
from lyss.stats import holm_resolvable

JSON_KEYS = ("system", "file", "metric", "score", "baseline_score", "delta", "ci_lo", "ci_hi", "p_value",
             "p_holm")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "compare", help="paired significance tests of systems against a baseline (the first hypothesis file)",
        description="Compare systems with the paired bootstrap or approximate randomization, as sacrebleu "
        "does, on the LYSS metrics and composite; see docs/statistics.md.")
    add_common_arguments(parser)
    parser.add_argument("--hypotheses", "--hypothesis", "-i", dest="hypotheses", type=Path, nargs="+",
                        action="extend", required=True,
                        help="system outputs, one segment per line; the first is the baseline")
    parser.add_argument("--test", choices=("bs", "ar"), default="bs", action=Once,
                        help="paired bootstrap (bs, default) or approximate randomization (ar)")
    parser.add_argument("--n", type=positive_int, action=Once,
                        help="bootstrap resamples (bs) or AR trials (ar); default from params stats")
    # sacrebleu's own spelling of the same, so that its command lines run unchanged
    parser.add_argument("--paired-bs", dest="test", action=OnceFlag, const="bs", help="sacrebleu's flag: --test bs")
    parser.add_argument("--paired-ar", dest="test", action=OnceFlag, const="ar", help="sacrebleu's flag: --test ar")
    parser.add_argument("--paired-bs-n", dest="bs_n", type=positive_int, action=Once, metavar="N",
                        help="sacrebleu's flag: bootstrap resamples (with --test ar, those of the CI of the delta)")
    parser.add_argument("--paired-ar-n", dest="ar_n", type=positive_int, action=Once, metavar="N",
                        help="sacrebleu's flag: AR trials (--test ar; ignored with bs, as sacrebleu does)")
    parser.add_argument("--paired-jobs", type=int, metavar="N",
                        help="sacrebleu's flag, accepted: lyss compare uses the cores it may use")
    parser.set_defaults(func=run)


def resample_counts(args: argparse.Namespace, stats: dict, pairs: int, notes: Notes) -> tuple[int, int]:
    """(bootstrap resamples, AR trials) from --n or sacrebleu's --paired-bs-n / --paired-ar-n, else params
    stats (raised to what Holm's correction over `pairs` can resolve); --n is the count of the test run."""
    if args.test == "bs" and args.ar_n:
        notes.warn("--paired-ar-n counts approximate randomization's trials: ignored without --paired-ar, as "
                   "sacrebleu ignores it")
    default_bootstrap = holm_resolvable(stats["bootstrap_resamples"], pairs, stats["alpha"])
    if args.test == "bs":
        n = args.n or args.bs_n or default_bootstrap
        return n, n
    return (args.bs_n or stats["bootstrap_resamples"],
            args.n or args.ar_n or holm_resolvable(stats["ar_trials"], pairs, stats["alpha"]))


def _rows(comparisons: list[dict], test: str, files: dict[str, str]) -> list[dict]:
    key = "p_bs" if test == "bs" else "p_ar"
    return [{"system": r["system"], "file": files[r["system"]], "metric": r["metric"], "score": r["score"],
             "baseline_score": r["baseline_score"], "delta": r["delta"], "ci_lo": r["ci_lower"],
             "ci_hi": r["ci_upper"], "p_value": r[key], "p_holm": r[f"{key}_holm"]} for r in comparisons]


def _table(rows: list[dict], baseline: str, test: str, alpha: float, n: int, seed: int,
           composite_note: str, digits: int) -> str:
    """The text report; `digits` (sacrebleu's -w) after the decimal point of scores, deltas and intervals."""
    header = ["metric", "system", "score", "delta", f"{100 * (1 - alpha):g}% CI of delta", f"p ({test})",
              "p (Holm)", ""]
    body = []
    for metric in dict.fromkeys(r["metric"] for r in rows):
        group = [r for r in rows if r["metric"] == metric]
        body.append([metric, f"{baseline} (baseline)", format_number(group[0]["baseline_score"], digits),
                     "", "", "", "", ""])
        for r in group:
            excludes_zero = r["ci_lo"] is not None and (r["ci_lo"] > 0 or r["ci_hi"] < 0)
            significant = r["p_holm"] < alpha and excludes_zero
            interval = f"[{format_number(r['ci_lo'], digits)}, {format_number(r['ci_hi'], digits)}]"
            body.append(["", r["system"], format_number(r["score"], digits), f"{r['delta']:+.{digits}f}", interval,
                         format_number(r["p_value"], 4), format_number(r["p_holm"], 4), "*" if significant else ""])
    widths = [max(len(str(row[i])) for row in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
             for row in [header, *body]]
    test_name = "paired bootstrap" if test == "bs" else "approximate randomization"
    lines.append(f"\n{test_name}, n = {n}, seed = {seed}; "
                 f"* = Holm-adjusted p < {alpha:g} and the CI excludes 0")
    if any(r["metric"] == "composite" for r in rows):
        lines.append(composite_note)
    return "\n".join(lines)


def _tsv(rows: list[dict]) -> str:
    return "\n".join(["\t".join(JSON_KEYS),
                      *("\t".join("" if r[k] is None else str(r[k]) for k in JSON_KEYS) for r in rows)])


def run(args: argparse.Namespace) -> int:
    fmt = output_format(args)
    if args.n and (args.bs_n or args.ar_n):  # what the command line says is checked before any work
        raise InputError("--n", "give the count once: --n, or sacrebleu's --paired-bs-n / --paired-ar-n")
    notes = Notes()
    has_source = args.source is not None
    # default: the metrics the pipeline's significance step compares, composite last, and a metric given its
    # model on the command line (--comet-model), as `lyss score` adds it
    with_model = models_given(args)
    given = metric_names(args.metrics, args.chrf_word_order, allowed_extra=("composite",)) or \
        [*with_model, *significance_metrics()]
    chosen, left_out = choose_metrics([m for m in given if m != "composite"], has_source, with_model)
    metrics = chosen + (["composite"] if "composite" in given else [])
    pair = language_pair(args.lang_pair, metrics, defaults=args.metrics is None)
    if len(args.hypotheses) < 2:
        raise InputError("--hypotheses", "give at least two files: the baseline first, then the systems")
    names = system_names(args.hypotheses)
    texts = read_parallel([*([args.source] if has_source else []), *args.reference, *args.hypotheses])
    warn_without_source(notes, left_out)  # after the files: an unreadable one is the only line printed
    languages = language_cards(pair, args.languages, notes)
    settings = load_settings(args.params, notes)
    stats = settings["stats"]
    source = texts.pop(0) if has_source else None
    references, hypotheses = texts[:len(args.reference)], texts[len(args.reference):]
    profile = select_profile(languages[3], settings["composite"])
    weights = settings["composite"]["profiles"][profile]
    normalisation = settings["composite"].get("normalisation", {})
    scored = [m for m in metrics if m != "composite"]
    if "composite" in metrics:  # the profile's model-free metrics that these files allow
        scored += [m for m in model_free_metrics() if m in weights and m not in scored
                   and (has_source or not reads_source(m))]
    options = metric_options(settings, args)
    warn_unsegmented_script(notes, pair, scored, options, references[0])
    inputs = {name: scoring_input(source, references, hyp, languages) for name, hyp in zip(names, hypotheses,
                                                                                         strict=True)}
    embeddings = shared_embeddings(settings, needs_embeddings(scored))
    for data in inputs.values():
        data.embeddings = embeddings
    texts = one_pass_texts(embeddings, inputs[names[0]], hypotheses, scored, options, misaligned_check=False)
    per_system = dict(zip(names, score_beside_embedding(list(inputs.values()), scored, options, embeddings, texts),
                          strict=True))
    shared, warning = shared_composite_metrics(per_system, weights)
    if warning:
        notes.warn(warning)
    statistics = {name: method_statistics(results, metrics, weights, normalisation, shared)
                  for name, results in per_system.items()}
    for note in coverage_notes(statistics, metrics):
        notes.note(note)
    seed = stats["seed"] if args.seed is None else args.seed
    pairs = len(names) - 1
    n_bootstrap, n_trials = resample_counts(args, stats, pairs, notes)
    n = n_bootstrap if args.test == "bs" else n_trials
    needed = holm_resolvable(n, pairs, stats["alpha"])
    if n < needed:
        notes.warn(f"--n {n} is too few for {pairs} comparisons: the smallest p-value it can give, 1/{n + 1}, "
                   f"does not pass Holm's correction at α = {stats['alpha']} (use at least {needed})")
    comparisons = compare_pairs(statistics, [(names[0], name) for name in names[1:]], n_bootstrap=n_bootstrap,
                                n_trials=n_trials, seed=seed, alpha=stats["alpha"], with_ar=args.test == "ar")
    rows = _rows(comparisons, args.test, dict(zip(names, map(str, args.hypotheses), strict=True)))
    scope, left_out = composite_scope(scored, weights)
    composite_note = (f"composite over {'selection: ' if scope == 'selection' else ''}{', '.join(shared)} "
                      f"(profile {profile}, renormalised weights, spec §4.1"
                      + (f"; not the profile's composite: leaves out {', '.join(left_out)})" if left_out else ")"))
    if fmt == "json":
        print(json.dumps(rows, indent=2))
    elif fmt == "tsv":
        print(_tsv(rows))
    else:
        print(_table(rows, names[0], args.test, stats["alpha"], n, seed, composite_note, decimals(args.width)))
    return 0

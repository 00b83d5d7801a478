"""`lyss correlate`: how well automatic metrics agree with human scores, with intervals and tests."""

import argparse
import sys
from pathlib import Path

from lyss.argtypes import add_resampling, positive_int, usage_error
from lyss.errors import InputError
from lyss.evidence.correlate import (
    CORRELATION_COLUMNS,
    SIGNIFICANCE_COLUMNS,
    CorrelationOptions,
    correlation_table,
    levels_for,
    read_scores,
    significance_table,
    ties_every_pair,
)
from lyss.evidence.orientation import agrees, direction_of
from lyss.tables import parse_name_list, read_csv, write_csv


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "correlate",
        help="segment- and system-level correlation of metrics with human scores",
        description="Pearson, Spearman, Kendall tau-b and pairwise accuracy of each metric against the "
        "human column, with bootstrap intervals and paired permutation tests, and soft pairwise accuracy "
        "(SPA) at system level (see docs/validation.md). The system score is the mean of a column.",
    )
    parser.add_argument("scores", type=Path, help="CSV with one row per scored (system, item)")
    parser.add_argument("--human", required=True, help="column with the human score")
    parser.add_argument("--metrics", required=True, help="comma-separated metric columns")
    parser.add_argument("--system", help="system column; enables the system level")
    parser.add_argument("--item", help="item column; resampling keeps an item's rows together")
    parser.add_argument(
        "--group-by-item",
        action="store_true",
        help="segment level: compute per item (across systems) and average over items",
    )
    parser.add_argument(
        "--no-tie-calibration",
        action="store_true",
        help="segment pairwise accuracy without tie calibration (epsilon fixed at 0)",
    )
    parser.add_argument(
        "--permutations",
        type=positive_int,
        default=1000,
        help="permutations of the paired significance test (default 1000)",
    )
    parser.add_argument(
        "--lower-is-better",
        default="",
        help="comma-separated metric columns where lower is better (TER, error rates); they agree with the "
        "human column when they correlate negatively (metric ids of lyss are recognised without this)",
    )
    parser.add_argument("--out", type=Path, required=True, help="output directory")
    add_resampling(parser, resamples=1000)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    metrics = parse_name_list(args.metrics)
    if not metrics:
        return usage_error("correlate", "--metrics names no column")
    if args.group_by_item and not args.item:
        return usage_error("correlate", "--group-by-item needs --item")
    scores = read_csv(args.scores)
    table, empty = scores.rows_with_values([args.human, *metrics], group=args.item)
    if empty:
        whole = f", and the other rows of their items ({args.item})" if args.item else ""
        print(f"correlate: left out {len(scores.rows) - len(table.rows)} rows: those with an empty cell "
              f"({', '.join(f'{column}: {count}' for column, count in empty.items())}){whole}", file=sys.stderr)
    if not table.rows:
        raise InputError(args.scores, f"no row has a value in every one of {', '.join([args.human, *metrics])}")
    data = read_scores(table, args.human, metrics, args.system, args.item)
    options = CorrelationOptions(
        group_by_item=args.group_by_item,
        calibrate_ties=not args.no_tie_calibration,
        resamples=args.resamples,
        permutations=args.permutations,
        confidence=args.confidence,
        seed=args.seed,
    )
    lower = set(parse_name_list(args.lower_is_better))
    unknown = lower - set(metrics)
    if unknown:
        return usage_error("correlate", "--lower-is-better names columns not in --metrics: "
                           + ", ".join(sorted(unknown)))
    directions = {m: "lower" if m in lower else direction_of(m) for m in metrics}
    data.lower = frozenset(m for m in metrics if directions[m] == "lower")  # SPA asks "ranked above?"
    levels = levels_for(data, options)
    correlations = correlation_table(data, levels, options)
    for row in correlations:
        row["direction"] = directions[row["metric"]]
        row["agrees"] = agrees(row["direction"], row["kendall_lo"], row["kendall_hi"])
    write_csv(args.out / "correlations.csv", [*CORRELATION_COLUMNS, "direction", "agrees"], correlations)
    warn_degenerate_ties(correlations, data, levels[0])
    # Metrics are compared in their own direction: lower-is-better columns enter negated.
    data.metrics = {m: -v if directions[m] == "lower" else v for m, v in data.metrics.items()}
    significance = significance_table(data, levels, options) if len(metrics) > 1 else []
    write_csv(args.out / "significance.csv", SIGNIFICANCE_COLUMNS, significance)
    print(
        f"correlated {len(metrics)} metrics over {len(data.human)} rows -> "
        f"{args.out}/correlations.csv, significance.csv"
    )
    return 0


def warn_degenerate_ties(correlations: list[dict], data, segment) -> None:
    """Say so when tie calibration made a metric's segment accuracy the raters' share of ties."""
    for row in correlations:
        if row["level"] == "segment" and ties_every_pair(segment, data.metrics[row["metric"]], row["epsilon"]):
            print(f"warning: {row['metric']}: tie calibration chose epsilon {row['epsilon']:g}, which ties every "
                  f"pair, so its pairwise accuracy ({row['pairwise_accuracy']:.4f}) is the share of pairs the raters "
                  "tie: no ranking of this metric beats calling everything a tie (compare with "
                  "--no-tie-calibration)", file=sys.stderr)

"""`lyss labels`: ratings on a graded scale -> entailment / neutral / contradiction labels."""

import argparse
from dataclasses import asdict
from pathlib import Path

from lyss.argtypes import add_resampling, usage_error
from lyss.io import write_json_atomic
from lyss.studies.labels import (
    TOUCHING_CHOICES,
    LabelRules,
    crosstab,
    label_items,
    read_ratings,
    summarise,
)
from lyss.tables import json_ready, read_csv, write_csv

LABEL_COLUMNS = ["item", "n", "mean", "ci_lower", "ci_upper", "class_ci", "class_restrict", "flag"]


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "labels",
        help="derive three-way labels from graded ratings (bootstrap-interval and 80%%-share rules)",
        description="Label each item entailment/neutral/contradiction from its ratings, by two rules "
        "(see docs/validation.md).",
    )
    parser.add_argument("ratings", type=Path, help="long-format CSV: one row per (item, annotator) rating")
    parser.add_argument("--out", type=Path, required=True, help="output directory")
    parser.add_argument("--item-col", default="item", help="item id column (default item)")
    parser.add_argument("--annotator-col", default="annotator", help="annotator column (default annotator)")
    parser.add_argument("--score-col", default="score", help="rating column (default score)")
    parser.add_argument(
        "--scale",
        type=float,
        nargs=2,
        default=(-3.0, 3.0),
        metavar=("MIN", "MAX"),
        help="lowest and highest allowed rating (default -3 3)",
    )
    parser.add_argument("--neutral", type=float, default=0.0, help="neutral point of the scale (default 0)")
    parser.add_argument(
        "--share",
        type=float,
        default=0.8,
        help="class_restrict: share of ratings that must agree, in (0.5, 1] (default 0.8)",
    )
    parser.add_argument(
        "--touching",
        choices=TOUCHING_CHOICES,
        default="neutral",
        help="class_ci: an interval touching the neutral point is 'neutral' (default) or, "
        "with 'inclusive', labelled by the side it lies on",
    )
    parser.add_argument(
        "--min-ratings",
        type=int,
        default=2,
        help="items with fewer ratings are kept but flagged and not labelled (default 2)",
    )
    add_resampling(parser, resamples=10_000)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    low, high = args.scale
    if not low < args.neutral < high:
        return usage_error("labels", f"--neutral {args.neutral:g} must lie inside --scale {low:g} {high:g}")
    if not 0.5 < args.share <= 1:
        return usage_error("labels", f"--share must be in (0.5, 1], got {args.share:g}")
    rules = LabelRules(
        neutral=args.neutral,
        confidence=args.confidence,
        resamples=args.resamples,
        seed=args.seed,
        share=args.share,
        touching=args.touching,
        min_ratings=max(1, args.min_ratings),
    )
    ratings = read_ratings(read_csv(args.ratings), args.item_col, args.annotator_col, args.score_col, (low, high))
    labels = label_items(ratings, rules)
    write_csv(args.out / "labels.csv", LABEL_COLUMNS, [asdict(x) for x in labels])
    header, table = crosstab(labels)
    write_csv(args.out / "crosstab.csv", header, table)
    summary = summarise(ratings, labels, rules)
    summary["parameters"]["scale"] = [low, high]
    write_json_atomic(args.out / "summary.json", json_ready(summary))
    print(f"labelled {len(labels)} items -> {args.out}/labels.csv, crosstab.csv, summary.json")
    for flagged in summary["flagged_items"]:
        print(f"warning: item {flagged['item']}: {flagged['flag']} (kept, not labelled)")
    return 0

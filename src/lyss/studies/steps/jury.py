"""`lyss jury`: judges and juries of judges against human grades, raw and calibrated."""

import argparse
from pathlib import Path

from lyss.argtypes import add_resampling, non_negative, usage_error
from lyss.errors import InputError
from lyss.io import write_json_atomic
from lyss.studies.anchors import anchor_table
from lyss.studies.jury import (
    JURY_PREFIX,
    RANKED,
    RUBRIC_SERIES,
    GradeColumns,
    JuryOptions,
    before_after_table,
    build_members,
    can_calibrate,
    distribution_table,
    item_table,
    judge_table,
    jury_members,
    read_grades,
    rubric_columns,
    rubric_table,
    size_and_combination_tables,
    unanimity_table,
)
from lyss.studies.merge_grades import RULES
from lyss.tables import json_ready, parse_name_list, read_csv, write_csv

STAT_COLUMNS = [
    "n",
    "bias",
    "exact",
    "within1",
    "mae",
    "spearman",
    "qwk",
    "sensitivity",
    "specificity",
    "f1",
    "exact_macro",
]
COLUMNS = {
    "judges.csv": ["corpus", "member", "calibrated", *STAT_COLUMNS, *(f"rank_{s}" for s in RANKED)],
    "items.csv": ["item", "corpus", "member", "human", "raw_score", "raw_grade", "calibrated_grade"],
    "per_grade.csv": ["corpus", "member", "calibrated", "grade", "n", "exact"],
    "sizes.csv": [
        "corpus",
        "calibrated",
        "size",
        "combinations",
        "exact",
        "within1",
        "mae",
        "spearman",
        "qwk",
    ],
    "combinations.csv": [
        "corpus",
        "calibrated",
        "members",
        "size",
        "jury_exact",
        "member_mean_exact",
        "member_best_exact",
        "best_member",
        "beats_member_mean",
        "at_least_member_best",
        "beats_member_best",
        "jury_exact_rubric",
        "better_with_rubric",
    ],
    "before_after.csv": ["corpus", "raw_rule", "calibrated_rule", "members", "human_mean", "member_bias_mean"]
    + [
        f"{name}_{tag}"
        for tag in ("raw", "cal")
        for name in ("jury", "member_mean", "member_best", "best_member", "gain", "members_beaten")
    ],
    "unanimity.csv": [
        "corpus",
        "n",
        "unanimous",
        "unanimity_rate",
        "exact_when_unanimous",
        "best_fallback",
        "exact_routed",
        "exact_fallback_alone",
        "best_member",
        "exact_best_member",
    ],
    "distributions.csv": ["corpus", "member", "calibrated", "grade", "share"],
    "rubric.csv": ["corpus", "n", "members", "raw_rule", "calibrated_rule"]
    + [f"{series}_{what}" for series in RUBRIC_SERIES for what in ("blind", "rubric", "change")],
    "anchors.csv": [
        "corpus",
        "member",
        "calibrated",
        "n",
        "n_anchor_true",
        "toward",
        "away",
        "equal_anchor_blind",
        "equal_anchor_anchored",
        "mean_shift",
        "spearman_blind",
        "spearman_anchored",
        "spearman_change",
        "qwk_blind",
        "qwk_anchored",
        "exact_blind",
        "exact_anchored",
        "exact_effect",
        "exact_effect_lo",
        "exact_effect_hi",
        "exact_blind_anchor_true",
        "exact_anchored_anchor_true",
        "exact_blind_anchor_false",
        "exact_anchored_anchor_false",
    ],
}


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "jury",
        help="score judges and juries of judges against human grades, with out-of-corpus calibration",
        description="Per-judge and per-jury agreement with human grades, before and after leave-one-"
        "corpus-out quantile mapping, jury-size curves, combinations, anchor and rubric effects "
        "(see docs/validation.md).",
    )
    parser.add_argument("grades", type=Path, help="CSV with one row per graded item")
    parser.add_argument("--human", required=True, help="column with the human grade")
    parser.add_argument("--judges", required=True, help="comma-separated judge columns (grades or scores)")
    parser.add_argument("--item", default="item", help="item id column (default item)")
    parser.add_argument("--corpus", help="corpus column; calibration for a corpus is fitted on the others")
    parser.add_argument(
        "--scale",
        type=int,
        nargs=2,
        default=(1, 5),
        metavar=("MIN", "MAX"),
        help="integer grade scale (default 1 5)",
    )
    parser.add_argument(
        "--threshold",
        type=float,
        default=4,
        help="grade >= threshold is the positive class for sensitivity/specificity/F1 (default 4)",
    )
    parser.add_argument("--rules", default=",".join(RULES), help=f"aggregation rules (default {','.join(RULES)})")
    parser.add_argument(
        "--trim",
        type=non_negative,
        default=0.2,
        help="share cut at each end by the trimmed rule (default 0.2)",
    )
    parser.add_argument(
        "--raw-rule",
        choices=RULES,
        default="median",
        help="rule of the uncalibrated jury in sizes/combinations/anchors (default median)",
    )
    parser.add_argument(
        "--calibrated-rule",
        choices=RULES,
        default="mean",
        help="rule whose score is calibrated for the calibrated jury (default mean)",
    )
    parser.add_argument("--jury", help="comma-separated jury members (default: every judge holding grades)")
    parser.add_argument("--all-sizes", action="store_true", help="size curve over every size, not only odd ones")
    parser.add_argument("--anchor", help="column with the anchor grade shown in the anchored condition")
    parser.add_argument(
        "--anchored-suffix",
        default="_anchored",
        help="judge column + this suffix holds the anchored grades (default _anchored)",
    )
    parser.add_argument(
        "--rubric-suffix",
        default="_rubric",
        help="judge column + this suffix, when present for every jury member, holds the grades given with a "
        "rubric: adds rubric.csv and the rubric columns of combinations.csv (default _rubric)",
    )
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG figures")
    parser.add_argument("--out", type=Path, required=True, help="output directory")
    add_resampling(parser, resamples=1000)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    rules = parse_name_list(args.rules)
    unknown = [r for r in rules if r not in RULES]
    if unknown:
        return usage_error("jury", f"unknown rule(s) {', '.join(unknown)}; choose from {', '.join(RULES)}")
    if args.scale[0] >= args.scale[1]:
        return usage_error("jury", "--scale MIN must be below MAX")
    if not args.rubric_suffix or args.rubric_suffix == args.anchored_suffix:
        return usage_error("jury", "--rubric-suffix must be non-empty and differ from --anchored-suffix")
    rules = list(dict.fromkeys([*rules, args.raw_rule, args.calibrated_rule]))
    judges = parse_name_list(args.judges)
    options = JuryOptions(
        scale=tuple(args.scale),
        threshold=args.threshold,
        rules=tuple(rules),
        trim=args.trim,
        raw_rule=args.raw_rule,
        calibrated_rule=args.calibrated_rule,
        odd_sizes_only=not args.all_sizes,
        members=tuple(parse_name_list(args.jury)) if args.jury else None,
        resamples=args.resamples,
        confidence=args.confidence,
        seed=args.seed,
    )
    columns = GradeColumns(
        args.human, judges, args.item, args.corpus, args.anchor, args.anchored_suffix, args.rubric_suffix
    )
    data = read_grades(read_csv(args.grades), columns, options.levels)
    names = jury_members(data, options)
    missing = [n for n in names if data.anchor is not None and n not in data.anchored]
    if missing:
        raise InputError(
            args.grades,
            f"--anchor needs anchored grades for every jury member; no column '{missing[0]}{args.anchored_suffix}'",
            line=1,
            field=missing[0] + args.anchored_suffix,
        )
    rubric = rubric_columns(data, names, args.rubric_suffix)
    members = build_members(data, names, options)
    judge_rows, per_grade = judge_table(data, members, names, options)
    sizes, combos, counts = size_and_combination_tables(data, names, options)
    distributions = distribution_table(data, members, names, options)
    tables = {
        "judges.csv": judge_rows,
        "items.csv": item_table(data, members),
        "per_grade.csv": per_grade,
        "sizes.csv": sizes,
        "combinations.csv": combos,
        "before_after.csv": before_after_table(data, judge_rows, names, options),
        "unanimity.csv": unanimity_table(data, names),
        "distributions.csv": distributions,
    }
    if data.anchor is not None:
        tables["anchors.csv"] = anchor_table(data, names, options)
    if rubric:
        tables["rubric.csv"] = rubric_table(data, names, options)
    for filename, rows in tables.items():
        write_csv(args.out / filename, COLUMNS[filename], rows)
    if not args.no_plots:
        # matplotlib costs half a second to import: `lyss score` reads these parsers (params checks), never plots
        from lyss.studies.plots import plot_distributions, plot_size_curves

        plot_size_curves(sizes, args.out / "jury_sizes.png")
        series = [
            ("human", False, "human"),
            ("judges:pooled", False, "judges (raw, pooled)"),
            (JURY_PREFIX + options.raw_rule, False, f"jury {options.raw_rule} (raw)"),
            (JURY_PREFIX + options.calibrated_rule, True, f"jury {options.calibrated_rule} (calibrated)"),
        ]
        plot_distributions(distributions, series, args.out / "distributions.png")
    write_json_atomic(args.out / "summary.json", json_ready(_summary(data, names, options, counts, rubric)))
    print(f"scored {len(judges)} judges and {len(rules)} jury rules on {len(data.items)} items -> {args.out}/")
    continuous = [name for name, kind in data.kinds.items() if kind == "continuous"]
    if continuous:
        print(f"note: not all values on the grade scale, treated as continuous scores: {', '.join(continuous)}")
    if not can_calibrate(data):
        print("note: one corpus only, so no leave-one-corpus-out calibration")
    return 0


def _summary(data, names, options: JuryOptions, counts: dict, rubric: bool) -> dict:
    calibrated = can_calibrate(data)
    return {
        "items": len(data.items),
        "corpora": {c: int((data.corpus == c).sum()) for c in dict.fromkeys(data.corpus.tolist())},
        "judges": data.kinds,
        "jury_members": names,
        "rules": list(options.rules),
        "raw_rule": options.raw_rule,
        "calibrated_rule": options.calibrated_rule,
        "calibration": "leave-one-corpus-out quantile mapping"
        if calibrated
        else "skipped: calibration out of corpus needs at least two corpora",
        "rubric": "rubric grades of every jury member, mapped with the blind-fitted calibration"
        if rubric
        else "no rubric columns",
        "odd_combinations": counts,
        "parameters": {
            "scale": list(options.scale),
            "threshold": options.threshold,
            "trim": options.trim,
            "odd_sizes_only": options.odd_sizes_only,
            "resamples": options.resamples,
            "confidence": options.confidence,
            "seed": options.seed,
        },
    }

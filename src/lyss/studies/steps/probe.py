"""`lyss probe`: label bias and selective-routing statistics of a probability-returning judge."""

import argparse
from pathlib import Path

from lyss.argtypes import add_resampling, non_negative, usage_error
from lyss.io import write_json_atomic
from lyss.studies.probe import (
    Probe,
    ProbeOptions,
    accuracy_table,
    auroc_table,
    comparison_table,
    determinism_table,
    read_runs,
    threshold_table,
    two_call_table,
)
from lyss.tables import json_ready, parse_name_list, write_csv

COLUMNS = {
    "accuracy.csv": ["condition", "run", "n", "correct", "accuracy", "label_following"],
    "comparisons.csv": [
        "condition_a",
        "condition_b",
        "run",
        "n",
        "correct_a",
        "correct_b",
        "accuracy_a",
        "accuracy_b",
        "difference",
        "difference_lo",
        "difference_hi",
        "only_a",
        "only_b",
        "mcnemar_p",
    ],
    "auroc.csv": [
        "condition",
        "run",
        "n",
        "correct",
        "auroc",
        "auroc_lo",
        "auroc_hi",
        "auroc_confidence",
        "auroc_confidence_lo",
        "auroc_confidence_hi",
    ],
    "thresholds.csv": [
        "condition",
        "run",
        "threshold",
        "accepted",
        "accepted_accuracy",
        "deferred",
        "deferred_accuracy",
    ],
    "two_call.csv": [
        "condition_a",
        "condition_b",
        "run",
        "n",
        "tvd_mean",
        "tvd_max",
        "above_threshold",
        "predictions_changed",
    ],
    "determinism.csv": [
        "condition",
        "run_a",
        "run_b",
        "n",
        "identical_items",
        "identical",
        "max_abs_difference",
        "predictions_changed",
    ],
}


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "probe",
        help="label-bias probe: accuracy per prompt condition, McNemar tests, AUROC, two-call test",
        description="Analyse a judge that returns option probabilities under several prompt conditions "
        "(RUNS.jsonl format in docs/validation.md).",
    )
    parser.add_argument("runs", type=Path, help="JSONL, one object per (run, condition, item)")
    parser.add_argument("--out", type=Path, required=True, help="output directory")
    parser.add_argument("--run", help="run analysed by comparisons, AUROC, thresholds, two-call (default: first)")
    parser.add_argument("--pairs", help="condition pairs to compare, e.g. C0:C1,C0:C3 (default: every pair)")
    parser.add_argument(
        "--thresholds",
        default="0.5,0.7,0.9",
        help="top-probability thresholds of the accept/defer table (default 0.5,0.7,0.9)",
    )
    parser.add_argument(
        "--tvd-threshold",
        type=non_negative,
        default=0.01,
        help="two-call test: count items whose distributions differ by more (default 0.01)",
    )
    parser.add_argument(
        "--tolerance",
        type=non_negative,
        default=1e-3,
        help="allowed distance of a probability sum from 1 (default 0.001)",
    )
    add_resampling(parser, resamples=10_000)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    pairs = None
    if args.pairs:
        pairs = [tuple(p.split(":")) for p in parse_name_list(args.pairs)]
        if any(len(p) != 2 for p in pairs):
            return usage_error("probe", "--pairs expects A:B items separated by commas")
    try:
        thresholds = tuple(float(t) for t in parse_name_list(args.thresholds))
    except ValueError:
        return usage_error("probe", f"--thresholds expects numbers, got {args.thresholds!r}")
    options = ProbeOptions(
        run=args.run,
        pairs=tuple(pairs) if pairs else None,
        thresholds=thresholds,
        tvd_threshold=args.tvd_threshold,
        resamples=args.resamples,
        confidence=args.confidence,
        seed=args.seed,
    )
    probe = Probe(read_runs(args.runs, args.tolerance), args.runs)
    run_id, pairs = probe.check(options)
    tables = {
        "accuracy.csv": accuracy_table(probe),
        "comparisons.csv": comparison_table(probe, run_id, pairs, options),
        "auroc.csv": auroc_table(probe, run_id, options),
        "thresholds.csv": threshold_table(probe, run_id, options),
        "two_call.csv": two_call_table(probe, run_id, pairs, options),
        "determinism.csv": determinism_table(probe),
    }
    for filename, rows in tables.items():
        write_csv(args.out / filename, COLUMNS[filename], rows)
    summary = {
        "runs": probe.runs,
        "conditions": probe.conditions,
        "analysed_run": run_id,
        "pairs": [list(p) for p in pairs],
        "thresholds": list(thresholds),
        "tvd_threshold": args.tvd_threshold,
        "resamples": args.resamples,
        "confidence": args.confidence,
        "seed": args.seed,
        "deterministic": all(r["identical"] for r in tables["determinism.csv"]),
    }
    write_json_atomic(args.out / "summary.json", json_ready(summary))
    print(f"probed {len(probe.conditions)} conditions x {len(probe.runs)} runs -> {args.out}/")
    return 0

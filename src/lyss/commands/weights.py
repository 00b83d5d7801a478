"""`lyss weights fit`: learn composite weights from a dataset's human scores, cross-validated.

Reads what the pipeline wrote (results/metrics/<dataset>/<method>/*.parquet) and the dataset's
`human_scores` from params.yaml; writes cv.csv (per fold), summary.json (spec composite vs fitted
composite vs chrF++ alone on held-out folds, each statistic computed within a fold and averaged;
every weight with its metric's spread and influence) and profile.yaml, a weight profile fitted on all
rows that params.yaml can select with `composite.profile: <name>`. See docs/validation.md.
"""

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import yaml

from lyss.argtypes import positive_int
from lyss.config import check_params
from lyss.errors import InputError, unknown
from lyss.evidence.composite_entries import profile_weights
from lyss.evidence.dataset import human_methods, join_human_scores
from lyss.evidence.weights import (
    BASELINE_METRIC,
    FoldError,
    cross_validate,
    fit_weights,
    metric_spread,
    rated_rows,
    too_sparse,
)
from lyss.io import write_json_atomic, write_text_atomic
from lyss.languages import load_cards
from lyss.prep import dataset_language_pair
from lyss.prep.folders import expand_dataset_folders, load_dataset_entries
from lyss.settings import Settings, thaw
from lyss.tables import write_csv

CONTENDERS = ("spec_composite", "fitted_composite", BASELINE_METRIC)


def register(subparsers) -> None:
    parser = subparsers.add_parser("weights", help="learn composite weights from human scores")
    actions = parser.add_subparsers(dest="action", required=True)
    fit = actions.add_parser(
        "fit",
        help="fit non-negative composite weights on a dataset with human scores, cross-validated",
        description="Fits non-negative weights (summing to 1) over the composite's metrics to a dataset's "
        "human scores and reports the spec composite, the fitted composite and chrF++ alone on held-out "
        "folds (segment Kendall per item, system Pearson).",
    )
    fit.add_argument("dataset", help="a dataset in params.yaml that has `human_scores`")
    fit.add_argument("--params", type=Path, default=Path("params.yaml"), help="settings (default params.yaml)")
    fit.add_argument("--results", type=Path, default=Path("results"), help="pipeline results (default results)")
    fit.add_argument("--by", choices=("system", "document"), default="system",
                     help="hold out whole systems or whole documents (the corpus field `provenance`)")
    fit.add_argument("--folds", type=positive_int, default=5, help="number of folds (default 5)")
    fit.add_argument("--seed", type=int, default=0, help="seed of the fold assignment (default 0)")
    fit.add_argument("--name", help="name of the written profile (default fitted_<dataset>)")
    fit.add_argument("--out", type=Path, required=True, help="output directory")
    fit.set_defaults(func=run)


def load_params(path: Path) -> Settings:
    try:
        params = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise InputError(path, f"cannot read the settings ({err.strerror or err}); give --params PATH") from None
    expand_dataset_folders(params, str(path))
    return check_params(params, str(path))


def _documents(dataset_dir: Path, ids: list[str]) -> list[str]:
    provenance = {e["id"]: e.get("provenance") or "" for e in load_dataset_entries(dataset_dir)}
    return [provenance.get(i, "") for i in ids]


def rounded_profile(weights: dict[str, float]) -> dict[str, float]:
    """Three decimals that still sum to exactly 1 (spec §4.4): the rounding remainder goes to the
    largest weight; metrics whose weight rounds to 0 are left out."""
    rounded = {m: round(w, 3) for m, w in weights.items() if round(w, 3) > 0}
    largest = max(rounded, key=rounded.get)
    rounded[largest] = round(rounded[largest] + 1.0 - sum(rounded.values()), 3)
    return rounded


def run(args: argparse.Namespace) -> int:
    settings = load_params(args.params)
    dataset = settings.datasets.get(args.dataset)
    if dataset is None:
        raise InputError(args.params, unknown("dataset", args.dataset, settings.datasets), field="datasets")
    if not dataset.get("human_scores"):
        raise InputError(args.params, "this dataset has no human_scores", field=f"datasets.{args.dataset}")
    human_csv = dataset["human_scores"]
    metric_dir = args.results / "metrics" / args.dataset
    paths = sorted(p for m in human_methods(human_csv) for p in (metric_dir / m).glob("*.parquet"))
    if not paths:
        raise InputError(metric_dir, "no metric files: run the pipeline for this dataset first")
    data, columns, _ = join_human_scores(human_csv, paths)
    composite = settings.composite
    target = dataset_language_pair(dataset["path"])[1]
    _, spec_weights = profile_weights(composite, load_cards(settings.languages_dir).get(target))
    candidates = sorted({m for profile in composite.profiles.values() for m in profile})
    documents = _documents(Path(dataset["path"]), data.items)
    rows = rated_rows(data.human, data.systems, data.items, documents, columns, candidates,
                      thaw(composite.normalisation))
    if BASELINE_METRIC not in rows.features:
        raise InputError(metric_dir, f"{BASELINE_METRIC} has no per-entry values on every rated row")
    try:
        report = cross_validate(rows, spec_weights, args.by, args.folds, args.seed, composite.min_entries)
    except FoldError as err:
        raise InputError(human_csv, str(err)) from None
    for warning in report["warnings"]:
        print(f"lyss: warning: {warning}", file=sys.stderr)
    name = args.name or f"fitted_{args.dataset}"
    every_row = np.ones(len(rows.human), dtype=bool)
    final = rounded_profile(fit_weights(rows, every_row, composite.min_entries))
    sparse = too_sparse(rows, every_row, composite.min_entries)
    report.update({"dataset": args.dataset, "metrics": list(rows.features), "spec_weights": spec_weights,
                   "not_fitted": {m: {"varying_rows": n, "rows": len(rows.human)} for m, n in sparse.items()},
                   "profile": {name: final}, "spread": {"spec": metric_spread(rows, spec_weights),
                                                        name: metric_spread(rows, final)}})
    write_json_atomic(args.out / "summary.json", report)
    fold_rows = [{**{k: v for k, v in r.items() if k != "weights"}, "weights": json.dumps(r["weights"])}
                 for r in report["folds"]]
    write_csv(args.out / "cv.csv", ["fold", "rows", "systems", "items",
                                   *[f"{c}_{s}" for c in CONTENDERS for s in ("segment_kendall", "system_pearson")],
                                   "weights"], fold_rows)
    write_text_atomic(args.out / "profile.yaml",
                      f"# Fitted by `lyss weights fit {args.dataset} --by {args.by}`; add under composite.profiles\n"
                      + yaml.safe_dump({name: final}, sort_keys=False))
    print(f"held-out folds by {args.by} ({len(report['folds'])}; each statistic within a fold, then averaged):")
    for contender in CONTENDERS:
        values = report["summary"][contender]
        print(f"  {contender:<18} segment Kendall per item {values['segment_kendall']:.4f}   "
              f"system Pearson {values['system_pearson']:.4f}")
    print(f"profile {name} -> {args.out}/profile.yaml (spread: std of the normalised per-entry values; "
          "influence: share of weight x spread)")
    if sparse:
        print(f"  not fitted (vary on fewer than composite.min_entries = {composite.min_entries} of the "
              f"{len(rows.human)} rated rows): " + ", ".join(f"{m} ({n})" for m, n in sparse.items()))
    for metric, entry in report["spread"][name].items():
        print(f"  {metric:<24} weight {entry['weight']:.3f}   spread {entry['spread']:.4f}   "
              f"influence {entry['influence']:.3f}")
    return 0

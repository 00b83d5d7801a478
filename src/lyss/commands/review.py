"""`lyss review export|import`: community review by bilingual speakers (docs/review.md, lyss.review)."""

import argparse
import sys
from pathlib import Path

from lyss.errors import InputError, unknown
from lyss.io import read_json
from lyss.prep.corpus import read_prepared
from lyss.prep.folders import expand_dataset_folders
from lyss.review.ratings import RatingProblems
from lyss.review.sample import dataset_runs
from lyss.review.settings import review_settings
from lyss.review.study import REVIEWS, export_review, import_reviews, jury_review
from lyss.settings import read_params_file, validate_sections


def register(subparsers) -> None:
    parser = subparsers.add_parser("review", help="community review: a page for speakers, and their ratings in")
    actions = parser.add_subparsers(dest="action", required=True)
    export = actions.add_parser(
        "export", help="write the offline review page of a dataset's outputs and the study key",
        description="Writes one self-contained HTML page (no network) with a blind, shuffled sample of the "
        "dataset's outputs in `review.speakers` packets, and key.json, which says which system wrote each item "
        "(keep it for `lyss review import`; do not hand it to the speakers). Sizes come from params.yaml `review`.")
    export.add_argument("dataset", help="a dataset in params.yaml whose run cards exist")
    export.add_argument("--out", type=Path, required=True, help="output directory")
    _common(export)
    export.set_defaults(func=run_export)
    into = actions.add_parser(
        "import", help="check and store the speakers' ratings files; derive human scores, labels and verdicts",
        description="Checks every file (rater ids, items, 0-100 scores, error spans, duplicates; one line per "
        "problem), stores them under data/corpora/<dataset>/reviews/ and rebuilds human_scores.csv (z-normalised "
        "DA), human_scores_mqm.csv, labels.csv and verdict.json from all stored ratings.")
    into.add_argument("dataset", help="a dataset in params.yaml")
    into.add_argument("files", nargs="+", type=Path, help="ratings files downloaded from the review page")
    into.add_argument("--key", type=Path, help="the key.json written by `lyss review export` (needed the first "
                      "time; later imports use the stored one)")
    _common(into)
    into.set_defaults(func=run_import)
    jury = actions.add_parser(
        "jury", help="LLM judges and a calibrated jury against the stored speakers' ratings (seed 004)",
        description="Reads `lyss judge` output for the reviewed methods (DIR/<judge>/<method>.jsonl), maps each "
        "judge and the jury (mean of the judges) onto the speakers' scale by quantile mapping fitted out of fold, "
        "and writes data/corpora/<dataset>/reviews/jury.json: correlation, error and label agreement with the "
        "speakers, raw and calibrated.")
    jury.add_argument("dataset", help="a dataset in params.yaml with stored reviews")
    jury.add_argument("--judges", type=Path, required=True,
                      help="folder of `lyss judge` outputs, <judge>/<method>.jsonl")
    _common(jury)
    jury.set_defaults(func=run_jury)


def _common(parser) -> None:
    parser.add_argument("--params", type=Path, default=Path("params.yaml"), help="settings (default params.yaml)")
    parser.add_argument("--results", type=Path, default=Path("results"), help="pipeline results (default results)")


def _settings(args) -> tuple[dict, object]:
    params = read_params_file(args.params)
    expand_dataset_folders(params, str(args.params))  # the dataset folder's human_scores, as the workflow sees it
    validate_sections(params, ("datasets", "review"), args.params)
    dataset = params["datasets"].get(args.dataset)
    if dataset is None:
        raise InputError(args.params, unknown("dataset", args.dataset, params["datasets"]), field="datasets")
    return dataset, review_settings(params.get("review"), str(args.params))


def run_export(args: argparse.Namespace) -> int:
    _, settings = _settings(args)
    corpus = args.results / "corpora" / f"{args.dataset}.jsonl"
    meta = args.results / "corpora" / f"{args.dataset}.meta.json"
    if not meta.exists():
        raise InputError(meta, "the dataset is not prepared: run the pipeline for it first")
    dataset = read_json(meta)["dataset"]
    page, key = export_review(dataset, read_prepared(corpus), dataset_runs(args.results, args.dataset), settings,
                              args.out)
    print(f"review page: {page} (hand it to the speakers)\nstudy key:   {key} (keep it; give it to "
          f"`lyss review import {args.dataset} FILES --key {key}`)")
    return 0


def run_import(args: argparse.Namespace) -> int:
    dataset, settings = _settings(args)
    try:
        summary = import_reviews(dataset["path"], args.files, settings, args.key)
    except RatingProblems as problems:
        for problem in problems.problems:
            print(f"lyss: error: {problem}", file=sys.stderr)
        return 2
    reviews = Path(dataset["path"]) / REVIEWS
    agreement = summary["agreement"]
    alpha = agreement["krippendorff_alpha_interval"]
    print(f"{summary['ratings']} ratings of {summary['outputs']} outputs by {summary['speakers']} speakers; "
          f"{summary['pairs_with_min_speakers']} outputs rated by {summary['spec_minimum']['speakers_per_pair']}+ "
          f"speakers; spec §1.6 minimum {'met' if summary['meets_spec_minimum'] else 'not met'}")
    print(f"agreement: Krippendorff alpha (interval) {'—' if alpha is None else f'{alpha:.3f}'}, mean pairwise "
          f"Kendall {agreement['mean_pairwise_kendall'] or float('nan'):.3f}")
    for method, verdict in summary["methods"].items():
        print(f"  {method}: {verdict['usable']} usable / {verdict['unusable']} unusable / {verdict['undecided']} "
              f"undecided of {verdict['outputs']} -> {verdict['verdict']}")
    if dataset.get("human_scores") not in (None, str(reviews / "human_scores.csv")):
        print(f"the evidence stage reads {dataset['human_scores']}; to measure the metrics against these ratings "
              f"instead, set in {args.params}:\n  datasets.{args.dataset}.human_scores: {reviews / 'human_scores.csv'}")
    print(f"stored in {reviews}/ (version it with the dataset: `dvc add` or `git add`)")
    return 0


def run_jury(args: argparse.Namespace) -> int:
    dataset, settings = _settings(args)
    report = jury_review(dataset["path"], args.judges, settings)
    print(f"{report['outputs']} outputs graded by every judge ({', '.join(report['judges'])}); against the speakers:")
    for name, member in report["members"].items():
        raw, calibrated = member["raw"], member["calibrated"]
        print(f"  {name:<12} bias {member['bias']:+.1f}  Kendall {raw['kendall']:.3f} -> {calibrated['kendall']:.3f}  "
              f"MAE {raw['mae']:.1f} -> {calibrated['mae']:.1f}  usable/unusable agreement "
              f"{raw['label_agreement'] or 0:.1%} -> {calibrated['label_agreement'] or 0:.1%}")
    print(f"-> {Path(dataset['path']) / REVIEWS / 'jury.json'}")
    return 0

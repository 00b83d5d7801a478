"""`lyss dataset import-wmt`: a WMT test set (mt-metrics-eval layout) as a dataset folder the pipeline
discovers with no per-system settings (lyss.prep.wmt_import, lyss.prep.folders)."""

from pathlib import Path

from lyss.prep.wmt_import import import_wmt


def register(subparsers) -> None:
    parser = subparsers.add_parser("dataset", help="import a WMT-style test set as a dataset folder")
    actions = parser.add_subparsers(dest="action", required=True)
    wmt = actions.add_parser(
        "import-wmt", help="sources, references, system outputs and human scores of one language pair",
        description="Reads <testset>/sources/<lp>.txt, references/<lp>.<ref>.txt, system-outputs/<lp>/*.txt and "
        "optionally human-scores/<lp>.<kind>.seg.score (mt-metrics-eval's layout) and writes a dataset folder: "
        "source.txt, reference[.<ref>].txt, systems/, human_scores.csv, dataset.yaml. Then add "
        "`<name>: {path: <out>}` under `datasets:` in params.yaml.")
    wmt.add_argument("testset", type=Path, help="the test set folder (e.g. mt-metrics-eval-v2/wmt22)")
    wmt.add_argument("--lp", required=True, help="language pair as the files name it (e.g. en-de)")
    wmt.add_argument("--out", type=Path, required=True, help="the dataset folder to write (e.g. data/corpora/x)")
    wmt.add_argument("--reference", help="the reference to score against (default: the first, e.g. refA)")
    wmt.add_argument("--human", help="the human-score kind to import (e.g. mqm for <lp>.mqm.seg.score)")
    wmt.add_argument("--licence", default="see the test set's terms", help="the dataset card's licence")
    wmt.add_argument("--citation", default="WMT, via mt-metrics-eval", help="the dataset card's citation")
    wmt.set_defaults(func=run_import)


def run_import(args) -> int:
    summary = import_wmt(args.testset, args.lp, args.out, args.reference, args.human, args.licence, args.citation)
    print(f"{args.out}: {summary['segments']} segments, {summary['systems']} systems, {summary['references']} "
          f"reference(s) (scored against {summary['reference']}), {summary['rated_outputs']} rated outputs, "
          f"{summary['language_pair']}. Add `{args.out.name}: {{path: {args.out}}}` under `datasets:` in "
          "params.yaml.")
    return 0

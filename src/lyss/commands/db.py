"""`lyss db`: run cards in the database (spec §9.1; see src/lyss/store.py and docs/results.md).

  lyss db push [CARD.json …]     upsert cards by fingerprint (default: results/runs/*/*.json)
  lyss db query --dataset ID     the leaderboard from the database, sorted by composite, cost or latency

The database is `--db` if given, else `LYSS_DATABASE_URL`, else `database.url` in params.yaml, else the
SQLite file results/lyss.sqlite. A DSN is only ever shown with its password masked.
"""

import argparse
import glob
import json
import sys
from pathlib import Path

from lyss.errors import InputError, did_you_mean
from lyss.report.board import is_oracle
from lyss.settings import read_params_file, validate_sections
from lyss.store import DEFAULT_SQLITE, SORTS, Store, StoreError, configured_url, mask_url, push_cards

DEFAULT_CARDS = "results/runs/*/*.json"


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "db", help="push run cards into the database and query the leaderboard from it",
        description="Run cards in SQLite (default results/lyss.sqlite) or PostgreSQL (a DSN in --db, "
        "LYSS_DATABASE_URL or params.yaml database.url); see docs/results.md.")
    actions = parser.add_subparsers(dest="db_command", required=True)

    push = actions.add_parser("push", help="upsert run cards by fingerprint (a changed card adds a version)")
    push.add_argument("cards", type=Path, nargs="*",
                      help=f"run card files (default: {DEFAULT_CARDS})")
    _database_arguments(push)
    push.set_defaults(func=run_push)

    query = actions.add_parser("query", help="the leaderboard of a dataset, from the database")
    query.add_argument("dataset_name", nargs="?", metavar="DATASET", help="the same as --dataset")
    query.add_argument("--dataset", help="dataset id (default: every dataset)")
    query.add_argument("--method", help="only this method")
    query.add_argument("--sort", choices=list(SORTS), default="composite",
                       help="composite (highest first), cost_per_entry_usd or avg_latency_seconds (lowest "
                       "first); unknown values last (default composite)")
    query.add_argument("--history", action="store_true", help="every version, not only the current one")
    query.add_argument("--json", action="store_true", help="print JSON rows (without the full card)")
    query.add_argument("--full", action="store_true", help="with --json: include each row's full run card")
    _database_arguments(query)
    query.set_defaults(func=run_query)


def _database_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", help="SQLite file or sqlite:///path, or a PostgreSQL DSN (postgresql://…); "
                        "prefer LYSS_DATABASE_URL or PGPASSWORD for secrets, which the process list shows "
                        "otherwise")
    parser.add_argument("--params", type=Path, default=Path("params.yaml"),
                        help="params.yaml whose `database.url` applies (default params.yaml, if present)")


def database_url(args: argparse.Namespace) -> str:
    if args.db:
        return args.db
    section = None
    if args.params.exists():
        params = read_params_file(args.params)
        validate_sections(params, ("database",), args.params)
        section = params.get("database")
    return configured_url(section) or DEFAULT_SQLITE


def run_push(args: argparse.Namespace) -> int:
    paths = args.cards or [Path(p) for p in sorted(glob.glob(DEFAULT_CARDS))]
    if not paths:
        raise InputError(DEFAULT_CARDS, "no run cards found; run the pipeline first or name card files")
    url = database_url(args)
    try:
        label, results = push_cards(paths, url)
    except StoreError as err:
        print(f"lyss: error: {err}", file=sys.stderr)
        return 1
    for result in results:
        print(result.describe())
    counts = {s: sum(r.status == s for r in results) for s in ("added", "updated", "restored", "unchanged")}
    print(f"{len(results)} card(s) -> {label}: " + ", ".join(f"{n} {s}" for s, n in counts.items() if n))
    return 0


def _fmt(value, digits: int) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _oracle_last(rows: list[dict]) -> list[dict]:
    """Each dataset's rows in their order, its reference oracle after its systems, as on the leaderboard."""
    return sorted(rows, key=lambda row: (row["dataset_id"], is_oracle(row["run_card"])))  # a stable sort


def _table(rows: list[dict], history: bool) -> str:
    """Current versions ranked within each dataset, the reference oracle unranked after them (as on the
    leaderboard: what a perfect system scores, not a system); with `history`, every version and no rank."""
    from lyss.metrics import declaration, label, leaderboard_metrics

    shown = [m for m in leaderboard_metrics() if declaration(m, "db_column")][:1]  # the leading metric column
    header = ["dataset", "#", "method", "composite", "tier", *map(label, shown), "cost/entry USD", "avg latency s",
              "entries/min", "fingerprint"]
    if history:
        header[1:3] = ["method", "version", "current"]
    body, rank, last = [], 0, None
    for row in rows if history else _oracle_last(rows):
        rank = rank + 1 if row["dataset_id"] == last else 1
        last = row["dataset_id"]
        oracle = is_oracle(row["run_card"])
        line = [row["dataset_id"], "—" if oracle else str(rank),
                f"{row['method_name']} (oracle)" if oracle else row["method_name"], _fmt(row["composite_score"], 4),
                row["quality_tier"] or "—",
                *(_fmt(row[declaration(m, "db_column")], declaration(m, "decimals")) for m in shown),
                _fmt(row["cost_per_entry_usd"], 6),
                _fmt(row["avg_latency_seconds"], 4), _fmt(row["entries_per_minute"], 1),
                row["fingerprint_hash"][:12]]
        if history:
            line[1:3] = [line[2], str(row["version"]), "yes" if row["is_current"] else ""]
        body.append(line)
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                     for r in [header, *body])


def _missing(args: argparse.Namespace, store: Store) -> tuple[str, str]:
    """(what the query asked for that the database does not hold, the closest name it holds and the list):
    the dataset among its datasets, else the method among the dataset's (or every dataset's) methods."""
    datasets = store.datasets()
    if args.dataset and args.dataset not in datasets:
        listing = f"; it has: {', '.join(datasets)}" if datasets else ""
        return f"dataset {args.dataset!r}", did_you_mean(args.dataset, datasets) + listing
    if args.method:
        methods = sorted({row["method_name"] for row in store.query(dataset=args.dataset)})
        where = f" in dataset {args.dataset!r}" if args.dataset else ""
        return f"method {args.method!r}{where}", f"{did_you_mean(args.method, methods)}; it has: {', '.join(methods)}"
    return "any dataset", ""


def run_query(args: argparse.Namespace) -> int:
    if args.dataset_name and args.dataset and args.dataset_name != args.dataset:
        raise InputError("DATASET", f"two datasets asked for: {args.dataset_name} and --dataset {args.dataset}; "
                                    "give one")
    args.dataset = args.dataset or args.dataset_name
    url = database_url(args)
    try:
        with Store.open(url) as store:
            rows = store.query(dataset=args.dataset, sort=args.sort, history=args.history, method=args.method)
            label = store.label
            missing, known = ("", "") if rows else _missing(args, store)
    except StoreError as err:
        print(f"lyss: error: {err}", file=sys.stderr)
        return 1
    if args.json:
        if not args.full:
            rows = [{k: v for k, v in r.items() if k != "run_card"} for r in rows]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    if not rows:
        print(f"no run cards for {missing} in {mask_url(label)}{known}", file=sys.stderr)
        return 1
    print(_table(rows, args.history))
    print(f"\nsorted by {args.sort}; {'every version' if args.history else 'current versions'}; from {label}")
    return 0

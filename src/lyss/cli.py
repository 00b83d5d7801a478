"""The `lyss` command. Each subcommand lives in `lyss.commands.<name>` and registers itself here."""

import argparse
import importlib
import sys

from lyss import __version__
from lyss.errors import InputError

# One module per subcommand; each exposes `register(subparsers)` and sets `func` on its parser.
COMMAND_MODULES = ["judge", "score", "compare", "labels", "correlate", "jury", "probe", "db", "cluster", "weights"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lyss", description="LYSS bench: MT evaluation from the LYSS spec")
    parser.add_argument("--version", action="version", version=f"lyss {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(f"lyss.commands.{name}").register(subparsers)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args) or 0
    except InputError as err:
        print(f"lyss: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

"""The validation parts rule `validate` runs (params.yaml `validation:`), one module each.

Each module declares its part's options (`register`, an argparse subparser) and the `run` they feed; the
`lyss <part>` subcommands are these same parsers, registered by the CLI. The parser is the one list of a
part's options, so params.yaml `validation.<part>.args` is checked against it (lyss.settings) and turned
into the arguments the command line would give, without the library importing the CLI.
"""

import argparse
import functools
import importlib

STEPS = ("labels", "correlate", "jury", "probe")


def step_parser(part: str) -> argparse.ArgumentParser:
    """The full parser of one part, as `lyss <part>` parses its arguments."""
    subparsers = argparse.ArgumentParser(prog="lyss").add_subparsers()
    importlib.import_module(f"lyss.studies.steps.{part}").register(subparsers)
    return subparsers.choices[part]


@functools.cache
def step_options(part: str) -> frozenset[str]:
    """The optional arguments of a part as params.yaml spells them (dest names), minus --out, which the
    workflow sets."""
    parser = step_parser(part)
    return frozenset(a.dest for a in parser._actions if a.option_strings and a.dest not in ("help", "out"))


def run_step(part: str, argv: list[str]) -> int:
    """Run one part on its command-line arguments (input, options, --out); its exit status."""
    args = step_parser(part).parse_args(argv)
    return args.func(args) or 0

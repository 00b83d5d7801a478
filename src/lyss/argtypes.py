"""Command-line value types shared by the studies' parsers (lyss.studies.steps) and the commands, so range errors
read the same."""

import argparse
import sys


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return value


def non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {text}")
    return value


def open_unit(text: str) -> float:
    """A number strictly between 0 and 1 (confidence levels)."""
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (exclusive), got {text}")
    return value


def non_negative(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {text}")
    return value


def add_resampling(parser: argparse.ArgumentParser, resamples: int) -> None:
    parser.add_argument(
        "--resamples", type=positive_int, default=resamples, help=f"bootstrap resamples (default {resamples})"
    )
    parser.add_argument(
        "--confidence",
        type=open_unit,
        default=0.95,
        help="confidence level of the bootstrap intervals (default 0.95)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed; same seed, same output (default 0)")


def usage_error(command: str, message: str) -> int:
    """Report an inconsistent combination of options the way argparse reports a bad one."""
    print(f"lyss {command}: error: {message}", file=sys.stderr)
    return 2

"""The `lyss` command. Each subcommand lives in `lyss.commands.<name>` and registers itself here; the
validation parts that rule `validate` also runs live in the library, in `lyss.studies.steps.<name>`.

Only the subcommand that runs is imported: the others' libraries (pandas, scipy, sacrebleu, models) cost
seconds to import, so `lyss --help` lists them by the one-line help below without importing them.
"""

import argparse
import importlib
import os
import sys

from lyss import __version__

# One module per subcommand, with the line `lyss --help` shows; each module exposes `register(subparsers)`,
# which sets `func` on its parser and gives it its full description and arguments.
COMMAND_MODULES = {
    "judge": "grade translations with an LLM judge (a probability per grade, from logprobs)",
    "score": "score a hypothesis file against references (the run card's scores block)",
    "compare": "paired significance tests of systems against a baseline (the first hypothesis file)",
    "labels": "derive three-way labels from graded ratings (bootstrap-interval and 80%% share rules)",
    "correlate": "segment- and system-level correlation of metrics with human scores",
    "jury": "score judges and juries of judges against human grades, with out-of-corpus calibration",
    "probe": "label-bias probe: accuracy per prompt condition, McNemar tests, AUROC, two-call test",
    "db": "push run cards into the database and query the leaderboard from it",
    "cluster": "check a SLURM profile against the cluster (partitions, account, resources) before submitting",
    "weights": "fit non-negative composite weights to human scores, cross-validated, as a new profile",
    "dataset": "import a WMT test set (mt-metrics-eval layout) as a dataset folder: no settings per system",
    "review": "community review: an offline page for bilingual speakers, and their ratings in",
}


SIGPIPE_STATUS = 128 + 13  # what a shell reports for a filter its reader closed

# Subcommands whose parser and `run` are library code (lyss.studies.steps): the workflow runs them too.
LIBRARY_COMMANDS = frozenset({"labels", "correlate", "jury", "probe"})


def _command_module(name: str) -> str:
    return f"lyss.studies.steps.{name}" if name in LIBRARY_COMMANDS else f"lyss.commands.{name}"


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser with the chosen subcommand (the first argument naming one) fully registered and the
    others as one-line stubs."""
    argv = sys.argv[1:] if argv is None else argv
    chosen = next((a for a in argv if a in COMMAND_MODULES), None)
    parser = argparse.ArgumentParser(prog="lyss", description="LYSS bench: MT evaluation from the LYSS spec")
    parser.add_argument("--version", action="version", version=f"lyss {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name, help_ in COMMAND_MODULES.items():
        if name == chosen:
            importlib.import_module(_command_module(name)).register(subparsers)
        else:
            subparsers.add_parser(name, help=help_)
    return parser


def main(argv=None) -> int:
    """The command; `argv` None is the process's own arguments: main() is then the program, which ends when it
    returns, so the interpreter's final garbage collection is skipped (lyss.workflow_end says why)."""
    args = build_parser(argv).parse_args(argv)
    from lyss.errors import InputError

    try:
        return args.func(args) or 0
    except InputError as err:
        print(f"lyss: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader stopped reading (`lyss score … | head -3`): it has what it wanted, as from any Unix filter,
        # so no traceback; what is still buffered goes nowhere, and the status is the shell's for SIGPIPE
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return SIGPIPE_STATUS
    finally:
        if argv is None:
            end_without_collection()


def end_without_collection() -> None:
    """Move everything alive out of the collector's reach (`gc.freeze`): the final collection of a `lyss` process
    walked every object of the run (the embedder, its tables, the cards) only to free them, 0.05–0.1 s of each
    command. Only for the program itself: a caller of main(argv) lives on and must still free its cycles."""
    import gc

    gc.freeze()


if __name__ == "__main__":
    sys.exit(main())

"""params.yaml checks run before any job (rules/common.smk), so a typo fails in a second with the key named,
not an hour into a run: the settings themselves (lyss.settings, one JSON Schema), the files they point at
(corpora, dataset cards, human scores, validation inputs), and then what those files hold (`check_inputs`).

While Snakemake loads the workflow, an exception is printed with its stack frames; `one_line_errors` turns
the errors that are the user's to fix into their one line."""

import sys
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from lyss.errors import InputError
from lyss.settings import validate_params


@contextmanager
def one_line_errors():
    """Bad input while the workflow loads: its one line on stderr and exit status 1, no stack frame.
    Snakemake lets a SystemExit raised by a Snakefile end the process without a word of its own, so the
    line is the last thing printed, under `snakemake -n` and `dvc repro` alike."""
    try:
        yield
    except InputError as err:
        print(err, file=sys.stderr)
        raise SystemExit(1) from None


def _require(condition: bool, source: str, key: str, problem: str) -> None:
    if not condition:
        raise InputError(source, problem, field=key)


def check_params(config: dict, source: str = "params.yaml") -> list[str]:
    """Raise InputError naming the first bad key or missing file; return warnings (spec §4.4 sums)."""
    from lyss.languages import load_cards
    from lyss.prep.corpus import load_dataset_card
    from lyss.prep.folders import corpus_files

    warnings = validate_params(config, source)
    language_cards = load_cards(config.get("languages_dir", "data/languages"))
    for name, dataset in config["datasets"].items():
        folder = Path(dataset["path"])
        if dataset.get("human_scores"):
            _require(Path(dataset["human_scores"]).exists(), source, f"datasets.{name}.human_scores",
                     f"{dataset['human_scores']} does not exist")
        _require(corpus_files(folder)[0].exists(), source, f"datasets.{name}.path",
                 f"{folder} has neither corpus.jsonl nor source.txt (docs/corpus.md)")
        # the DAG reads the card's language pair, so a broken card fails here, not as a YAML traceback
        load_dataset_card(folder / "dataset.yaml", language_cards)
    for part, settings in config.get("validation", {}).items():
        _require(Path(settings["input"]).exists(), source, f"validation.{part}.input",
                 f"{settings['input']} does not exist")
    return warnings


def check_inputs(config: dict, dataset_methods: Callable[[str], list[str]], source: str = "params.yaml") -> None:
    """Every file the run reads, read before the first job with the checks of the stage that reads it: each
    corpus and card as rule `prep` checks them, each precomputed system output as rule `translate` reads it,
    each human-scores file against its corpus and the methods the dataset runs. A bad line would otherwise
    stop the run minutes in, after other jobs, with the line buried in Snakemake's output. Costs ~0.1 s for
    the shipped data. `dataset_methods(name)`: the methods that run on the dataset (rules/common.smk)."""
    from lyss.languages import load_cards
    from lyss.prep import check_dataset
    from lyss.translate.simple import precomputed_path, read_precomputed

    language_cards = load_cards(config.get("languages_dir", "data/languages"))
    for name, dataset in config["datasets"].items():
        folder = Path(dataset["path"])
        _, entries = check_dataset(name, folder, folder / "dataset.yaml", language_cards,
                                   config.get("limits"))
        ids = [entry["id"] for entry in entries]
        methods = dataset_methods(name)
        for method in methods:
            options = config["methods"][method]
            if options["kind"] == "precomputed":
                read_precomputed(precomputed_path(options, name, source, method), ids)
        if dataset.get("human_scores"):
            check_human_scores(dataset["human_scores"], methods, set(ids))


def check_human_scores(path, methods, ids: set[str]) -> None:
    """A `method,id,human[,annotators]` CSV whose methods run on the dataset and whose ids are its entries
    (what the evidence stage joins with the metric files), with numbers where numbers belong."""
    from lyss.tables import read_csv

    table = read_csv(path)
    table.numbers("human")
    if "annotators" in table.header:
        table.numbers("annotators")
    for method, entry_id, line in zip(table.strings("method"), table.strings("id"), table.lines, strict=True):
        if method not in methods:
            raise InputError(path, f"method {method!r} does not run on this dataset (it runs: "
                             f"{', '.join(methods)})", line=line, field="method")
        if entry_id not in ids:
            raise InputError(path, f"unknown entry id {entry_id!r} (not in the dataset's corpus)", line=line,
                             field="id")

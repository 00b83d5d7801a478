"""The project's preflight, run before any job (rules/common.smk), so a typo fails in a second with the key
named, not an hour into a run: the settings themselves (lyss.settings, one JSON Schema, checked against the
names the stages' registries declare: `vocabulary`), the files they point at (corpora, dataset cards, human
scores, validation inputs), and then what those files hold (`check_inputs`).

This module sits above the stages (it reads their registries and runs their input checks); lyss.settings,
which every stage imports, sits below them all. While Snakemake loads the workflow, an exception is printed
with its stack frames; `one_line_errors` turns the errors that are the user's to fix into their one line."""

import functools
import sys
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from types import MappingProxyType

from lyss.errors import InputError, did_you_mean
from lyss.settings import Settings, Vocabulary, thaw


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


def missing_folder(folder: Path) -> str:
    """"data/corpora/wmt_smal does not exist (did you mean 'wmt_small'?)", from the folders beside it."""
    beside = [p.name for p in folder.parent.iterdir() if p.is_dir()] if folder.parent.is_dir() else []
    return f"{folder} does not exist{did_you_mean(folder.name, beside)}"


@functools.cache
def vocabulary() -> Vocabulary:
    """The names params.yaml may use, from the registries that declare them: metric ids and each metric's
    options (lyss.metrics), post-processing hooks and method kinds (lyss.translate), sacrebleu's BLEU
    tokenizers, the validation parts and their options (lyss.studies.steps)."""
    from sacrebleu.metrics.bleu import _TOKENIZERS

    from lyss.metrics import REGISTRY, declaration
    from lyss.studies.steps import STEPS, step_options
    from lyss.translate import METHOD_KINDS
    from lyss.translate.hooks import HOOKS

    return Vocabulary(
        metric_options=MappingProxyType({m: MappingProxyType(declaration(m, "options_schema") or {})
                                         for m in REGISTRY}),
        hooks=tuple(HOOKS), method_kinds=tuple(METHOD_KINDS), bleu_tokenizers=tuple(_TOKENIZERS),
        step_options=MappingProxyType({part: step_options(part) for part in STEPS}))


def check_params(config: dict, source: str = "params.yaml") -> Settings:
    """The typed settings (their warnings, spec §4.4 sums, in `.warnings`), or an InputError naming the first
    bad key or missing file."""
    from lyss.languages import load_cards
    from lyss.prep.corpus import load_dataset_card
    from lyss.prep.folders import corpus_files

    settings = Settings.from_mapping(config, vocabulary(), source)
    language_cards = load_cards(settings.languages_dir)
    for name, dataset in settings.datasets.items():
        folder = Path(dataset["path"])
        if dataset.get("human_scores"):
            _require(Path(dataset["human_scores"]).exists(), source, f"datasets.{name}.human_scores",
                     f"{dataset['human_scores']} does not exist")
        if not folder.is_dir():
            raise InputError(source, missing_folder(folder), field=f"datasets.{name}.path")
        _require(corpus_files(folder)[0].exists(), source, f"datasets.{name}.path",
                 f"{folder} has neither corpus.jsonl nor source.txt (docs/corpus.md)")
        # the DAG reads the card's language pair, so a broken card fails here, not as a YAML traceback
        load_dataset_card(folder / "dataset.yaml", language_cards)
    for part, step in settings.validation.items():
        _require(Path(step["input"]).exists(), source, f"validation.{part}.input", f"{step['input']} does not exist")
    return settings


def check_inputs(settings: Settings, dataset_methods: Callable[[str], list[str]], source: str = "params.yaml") -> None:
    """Every file the run reads, read before the first job with the checks of the stage that reads it: each
    corpus and card as rule `prep` checks them, each precomputed system output as rule `translate` reads it,
    each human-scores file against its corpus and the methods the dataset runs. A bad line would otherwise
    stop the run minutes in, after other jobs, with the line buried in Snakemake's output. Costs ~0.1 s for
    the shipped data. `dataset_methods(name)`: the methods that run on the dataset (rules/common.smk), the
    workflow's own (the reference oracle) among them, which read no file."""
    from lyss.languages import load_cards
    from lyss.prep import check_dataset
    from lyss.translate.simple import precomputed_path, read_precomputed

    language_cards = load_cards(settings.languages_dir)
    for name, dataset in settings.datasets.items():
        folder = Path(dataset["path"])
        _, entries = check_dataset(name, folder, folder / "dataset.yaml", language_cards, settings.limits)
        ids = [entry["id"] for entry in entries]
        methods = dataset_methods(name)
        for method in methods:
            configured = settings.methods.get(method)
            if configured is not None and configured.kind == "precomputed":
                read_precomputed(precomputed_path(thaw(configured.options), name, source, method), ids)
        if dataset.get("human_scores"):
            check_human_scores(dataset["human_scores"], methods, set(ids))


def check_human_scores(path, methods, ids: set[str]) -> None:
    """A `method,id,human[,annotators]` CSV whose methods run on the dataset and whose ids are its entries
    (what the evidence stage joins with the metric files), with numbers where numbers belong."""
    from lyss.evidence.dataset import check_one_rating_each
    from lyss.tables import read_csv

    table = read_csv(path)
    table.numbers("human")
    check_one_rating_each(table)
    if "annotators" in table.header:
        table.numbers("annotators")
    for method, entry_id, line in zip(table.strings("method"), table.strings("id"), table.lines, strict=True):
        if method not in methods:
            raise InputError(path, f"method {method!r} does not run on this dataset (it runs: "
                             f"{', '.join(methods)})", line=line, field="method")
        if entry_id not in ids:
            raise InputError(path, f"unknown entry id {entry_id!r} (not in the dataset's corpus)", line=line,
                             field="id")

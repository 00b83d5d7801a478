"""params.yaml checks run before any job (rules/common.smk), so a typo fails in a second with the key named,
not an hour into a run: the settings themselves (lyss.settings, one JSON Schema) and then the files they
point at (corpora, dataset cards, human scores, validation inputs)."""

from pathlib import Path

from lyss.errors import InputError
from lyss.settings import validate_params


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

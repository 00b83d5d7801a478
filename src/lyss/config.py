"""params.yaml validation: run before any job, so a typo fails in a second with the key named,
not an hour into a run."""

import re
from pathlib import Path

from lyss.errors import InputError

SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
VALIDATION_PARTS = ("labels", "correlate", "jury", "probe")
REQUIRED_SECTIONS = ("datasets", "methods", "metrics", "composite", "tiers", "caveats", "stats")


def _require(condition: bool, source: str, key: str, problem: str) -> None:
    if not condition:
        raise InputError(source, problem, field=key)


def _check_names(section: dict, source: str, key: str) -> None:
    for name in section:
        _require(bool(SAFE_NAME.fullmatch(str(name))), source, f"{key}.{name}",
                 "names may hold only letters, digits, '_' and '-' (they become file names)")


def check_params(config: dict, source: str = "params.yaml") -> None:
    """Raise InputError naming the first bad key; checks names, kinds, metric ids and weights."""
    from lyss.corpus import load_dataset_card
    from lyss.languages import load_cards
    from lyss.metrics import REGISTRY
    from lyss.translate import METHOD_KINDS

    _require(isinstance(config, dict), source, None, "expected a mapping at the top level")
    for section in REQUIRED_SECTIONS:
        _require(section in config, source, section, "missing required section")
    for section in ("datasets", "methods"):
        _require(isinstance(config[section], dict) and config[section], source, section, "must be a non-empty mapping")
        _check_names(config[section], source, section)
    language_cards = load_cards(config.get("languages_dir", "data/languages"))
    for name, dataset in config["datasets"].items():
        _require(isinstance(dataset, dict) and "path" in dataset, source, f"datasets.{name}.path", "missing")
        folder = Path(dataset["path"])
        if dataset.get("human_scores"):
            _require(Path(dataset["human_scores"]).exists(), source, f"datasets.{name}.human_scores",
                     f"{dataset['human_scores']} does not exist")
        _require((folder / "corpus.jsonl").exists(), source, f"datasets.{name}.path",
                 f"{folder}/corpus.jsonl does not exist")
        # the DAG reads the card's language pair, so a broken card fails here, not as a YAML traceback
        load_dataset_card(folder / "dataset.yaml", language_cards)
    for name, method in config["methods"].items():
        _require(isinstance(method, dict) and "kind" in method, source, f"methods.{name}.kind", "missing")
        _require(method["kind"] in METHOD_KINDS, source, f"methods.{name}.kind",
                 f"unknown method kind {method['kind']!r}; known: {', '.join(sorted(METHOD_KINDS))}")
    metrics = config["metrics"]
    _require(isinstance(metrics, list) and metrics, source, "metrics", "must be a non-empty list of metric ids")
    for metric in metrics:
        _require(metric in REGISTRY, source, "metrics",
                 f"unknown metric {metric!r}; known: {', '.join(sorted(REGISTRY))}")
    profiles = config["composite"].get("profiles", {})
    for profile in ("A", "B"):
        _require(profile in profiles, source, f"composite.profiles.{profile}", "missing weight profile")
        for metric, weight in profiles[profile].items():
            key = f"composite.profiles.{profile}.{metric}"
            _require(metric in REGISTRY or metric in _SPEC_METRICS, source, key, f"unknown metric {metric!r}")
            _require(isinstance(weight, (int, float)) and weight >= 0, source, key, "weight must be a number ≥ 0")
    for metric, rule in config["composite"].get("normalisation", {}).items():
        _require(rule in ("identity", "divide_by_100", "invert"), source, f"composite.normalisation.{metric}",
                 f"unknown normalisation {rule!r} (identity, divide_by_100, invert)")
    for part, settings in config.get("validation", {}).items():
        key = f"validation.{part}"
        _require(part in VALIDATION_PARTS, source, key,
                 f"unknown validation part; known: {', '.join(VALIDATION_PARTS)}")
        _require(isinstance(settings, dict) and "input" in settings, source, f"{key}.input", "missing")
        _require(Path(settings["input"]).exists(), source, f"{key}.input", f"{settings['input']} does not exist")
        _require(isinstance(settings.get("args", {}), dict), source, f"{key}.args", "must be a mapping of options")
    tiers = config["tiers"]
    _require(isinstance(tiers, list) and tiers and all({"name", "min"} <= set(t) for t in tiers), source, "tiers",
             "must be a list of {name, min}")
    _require([t["min"] for t in tiers] == sorted((t["min"] for t in tiers), reverse=True), source, "tiers",
             "thresholds must be listed from highest to lowest")


# Spec metric ids that may carry a weight before their plugin exists in this installation.
_SPEC_METRICS = {
    "exact_match_rate", "equivalent_match_rate", "chrf_plus_plus", "fst_acceptance_rate", "morphological_accuracy",
    "orthographic_accuracy", "semantic_score", "code_switching_rate", "hallucination_rate",
    "terminology_adherence",
}

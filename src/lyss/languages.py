"""Language cards (`data/languages/<iso639-3>.yaml`): loading, JSON-Schema validation, the COMET model
a language calls for, and the language-specific metric plugins a card declares.

A card says what the harness knows about a language: script, casing, quotes, word tokenisation, FST
analyzer, orthography rules, language-specific metric plugins (`evalMetrics`), which COMET model suits
it (`metricModelSupport`). A language without a card still works with defaults. Adding a language, or
a language→model mapping, is editing data, not code.
"""

import importlib
import json
from importlib import resources
from pathlib import Path

import jsonschema
import pycountry
import yaml

from lyss.errors import InputError


def card_schema() -> dict:
    return json.loads(resources.files("lyss.schemas").joinpath("language_card.schema.json").read_text())


def load_card(path) -> dict:
    path = Path(path)
    try:
        card = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise InputError(path, f"malformed YAML ({getattr(err, 'problem', err)})",
                         line=mark.line + 1 if mark else None) from None
    validator = jsonschema.Draft202012Validator(card_schema())
    errors = sorted(validator.iter_errors(card), key=lambda e: list(e.path))
    if errors:
        first = errors[0]
        raise InputError(path, first.message, field=".".join(str(p) for p in first.path) or None)
    if card["code"] != path.stem:
        raise InputError(path, f"code {card['code']!r} does not match the file name", field="code")
    return card


def load_cards(directory) -> dict[str, dict]:
    return {p.stem: load_card(p) for p in sorted(Path(directory).glob("*.yaml"))}


def is_known_language(code: str, cards: dict) -> bool:
    """A code is known when it has a card or is a valid ISO 639-3 code."""
    return code in cards or pycountry.languages.get(alpha_3=code) is not None


DEFAULT_COMET_MODEL = "Unbabel/wmt22-comet-da"


def resolve_comet_model(card: dict | None, override: str | None = None) -> str:
    """The COMET model for a target language (spec §2.3): an explicit override (params.yaml
    `metric_options.comet_score.model` or `--comet-model`) wins, then the card's
    `metricModelSupport.comet` (e.g. AfriCOMET for the African languages), then the default."""
    if override:
        return override
    return ((card or {}).get("metricModelSupport") or {}).get("comet") or DEFAULT_COMET_MODEL


def language_plugin(card: dict | None, metric_id: str):
    """An instance of the plugin the card declares for `metric_id` under `evalMetrics`, or None.

    A declared plugin that cannot be loaded is a hard error naming the card and the module: silently
    falling back to the generic metric would score the language by other rules than its card says.
    """
    card = card or {}
    declared = [p for p in card.get("evalMetrics", []) if p["metric"] == metric_id]
    if not declared:
        return None
    spec = declared[0]
    where = f"language card {card.get('code', '?')!r}"
    try:
        plugin = getattr(importlib.import_module(spec["module"]), spec["class"])()
    except Exception as err:  # any import or constructor failure is reported the same way
        problem = (f"cannot load plugin {spec['class']!r} from module {spec['module']!r} for metric "
                   f"{metric_id!r}: {type(err).__name__}: {err}")
        raise InputError(where, problem, field="evalMetrics") from err
    if getattr(plugin, "id", None) != metric_id or not callable(getattr(plugin, "score", None)):
        problem = f"plugin {spec['module']}.{spec['class']} is not a metric with id {metric_id!r}"
        raise InputError(where, problem, field="evalMetrics")
    return plugin

"""Language cards (`data/languages/<iso639-3>.yaml`): loading and JSON-Schema validation.

A card says what the harness knows about a language: script, casing, quotes, tokenizer, FST analyzer,
language-specific metric plugins. A language without a card still works with defaults.
"""

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pycountry
import yaml

from lyss.errors import InputError


def _schema() -> dict:
    return json.loads(resources.files("lyss.schemas").joinpath("language_card.schema.json").read_text())


def load_card(path) -> dict:
    path = Path(path)
    try:
        card = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise InputError(path, f"malformed YAML ({getattr(err, 'problem', err)})",
                         line=mark.line + 1 if mark else None) from None
    errors = sorted(jsonschema.Draft202012Validator(_schema()).iter_errors(card), key=lambda e: list(e.path))
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

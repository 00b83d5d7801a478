"""params.yaml checked whole against one JSON Schema (src/lyss/schemas/params.schema.json) and loaded into
typed, frozen settings objects.

Why a schema and not scattered checks: a setting that is misspelled (`tokenise:`) or out of range (`alpha: 5`)
used to be ignored or to fail deep inside a job, an hour into a run, as a Python traceback. Here every key
at every depth is known, typed and bounded, and the first problem is one line naming the file and the key,
with a "did you mean" for unknown keys, before any job runs. What a schema cannot say (a profile's total,
a dataset naming a method that does not exist, the options each `lyss <part>` command accepts) is checked
in `_check_meaning` right after it.
"""

import difflib
import functools
import json
import math
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType

import jsonschema
import yaml

from lyss.errors import InputError
from lyss.studies.steps import step_options

# spec §4.4: "each weight table sums to 1.00"; the composite renormalises anyway, so other sums only warn.
WEIGHT_SUM_TOLERANCE = 0.005
NAME_RULE = "names may hold only letters, digits, '_' and '-' (they become file names)"


@functools.cache
def params_schema() -> dict:
    """The schema with its registry-driven lists filled in, so a new metric, hook or method kind is
    accepted without editing the schema file."""
    from sacrebleu.metrics.bleu import _TOKENIZERS

    from lyss.metrics import REGISTRY, declaration
    from lyss.translate import METHOD_KINDS
    from lyss.translate.hooks import HOOKS

    schema = json.loads(resources.files("lyss.schemas").joinpath("params.schema.json").read_text(encoding="utf-8"))
    defs = schema["$defs"]
    for name, values in (("metric_id", REGISTRY), ("hook", HOOKS), ("method_kind", METHOD_KINDS),
                         ("bleu_tokenizer", _TOKENIZERS)):
        defs[name]["enum"] = sorted(values)
    schema["properties"]["metric_options"]["properties"] = {
        m: {"type": "object", "additionalProperties": False, "properties": declaration(m, "options_schema")}
        for m in REGISTRY if declaration(m, "options_schema")}
    return schema


def _key(path) -> str | None:
    """('tiers', 0, 'min') → 'tiers[0].min', as a person would point at it in the YAML."""
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    return text or None


def _suggest(word: str, choices) -> str:
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _unknown(what: str, value, known) -> str:
    return f"unknown {what} {value!r}{_suggest(value, known)}; known: {', '.join(map(str, known))}"


def _number(value) -> str:
    return repr(value) if not isinstance(value, float) or not value.is_integer() else f"{value:g}"


def _explain(error: jsonschema.ValidationError) -> tuple[str | None, str]:
    """(dotted key, problem) for one schema error, worded for a person editing params.yaml."""
    path, rule, value = list(error.absolute_path), error.validator, error.validator_value
    instance = error.instance
    if "propertyNames" in error.absolute_schema_path:  # a bad key: report the key itself
        key = _key([*path, instance])
        if rule == "pattern":
            return key, NAME_RULE
        if rule == "enum":
            what = "validation part" if path == ["validation"] else "metric"
            return key, _unknown(what, instance, value)
        return key, error.message
    if rule == "additionalProperties":
        known = sorted(error.schema.get("properties", {}))
        unknown = sorted(set(instance) - set(known))
        first = unknown[0]
        listing = f"; known: {', '.join(known)}" if known else "; this section takes no keys"
        return _key([*path, first]), f"unknown key{_suggest(first, known)}{listing}"
    if rule == "required":
        missing = [k for k in value if k not in instance][0]
        what = "required section" if not path else "required key"
        return _key([*path, missing]), f"missing {what}"
    if rule == "enum":
        label = {"metric_id": "metric", "hook": "post-processing hook", "method_kind": "method kind",
                 "bleu_tokenizer": "sacrebleu tokenizer", "normalisation": "normalisation"}
        kind = next((label[d] for d in label if error.schema is params_schema()["$defs"][d]), "value")
        return _key(path), _unknown(kind, instance, value)
    if rule == "type":
        wanted = " or ".join(value) if isinstance(value, list) else value
        return _key(path), f"expected {wanted}, got {_yaml_type(instance)} {instance!r}"
    bounds = {"minimum": "≥", "maximum": "≤", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}
    if rule in bounds:
        return _key(path), f"must be {bounds[rule]} {_number(value)}, got {_number(instance)}"
    if rule == "minItems" or rule == "minProperties":
        return _key(path), "must not be empty" if value == 1 else f"needs at least {value} entries"
    if rule == "uniqueItems":
        return _key(path), "lists an item twice"
    if rule == "pattern":
        return _key(path), f"{instance!r} does not match the expected form {value}"
    return _key(path), error.message


def _yaml_type(value) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "list", dict: "mapping",
            type(None): "null"}.get(type(value), type(value).__name__)


def _non_finite(node, path=()):
    """The first NaN or infinite number anywhere in the settings (YAML spells them .nan and .inf)."""
    if isinstance(node, float) and not math.isfinite(node):
        return path, node
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in items:
        found = _non_finite(child, (*path, key))
        if found:
            return found
    return None


def validate_params(config, source="params.yaml", sections: tuple[str, ...] | None = None) -> list[str]:
    """Raise InputError (file and key) for the first problem; return warnings that do not stop a run.
    `sections`: check only these top-level sections (a command that reads one section, such as `lyss db`
    reading `database`, accepts a settings file that holds just that)."""
    source = str(source)
    if not isinstance(config, dict):
        raise InputError(source, "expected a mapping of settings at the top level")
    found = _non_finite(config)
    if found:
        raise InputError(source, f"must be a finite number, got {found[1]}", field=_key(found[0]))
    schema = params_schema()
    if sections is not None:
        schema = {**schema, "required": [k for k in schema.get("required", []) if k in sections],
                  "properties": {k: v for k, v in schema["properties"].items() if k in sections},
                  "additionalProperties": True}
        config = {k: v for k, v in config.items() if k in sections}
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: (list(map(str, e.absolute_path)), e.validator))
    if errors:
        key, problem = _explain(_most_specific(errors[0]))
        raise InputError(source, problem, field=key)
    return _check_meaning(config, source) if sections is None else []


def _most_specific(error: jsonschema.ValidationError) -> jsonschema.ValidationError:
    """An `anyOf` failure is reported through its closest branch (the deepest sub-error)."""
    while error.context:
        error = max(error.context, key=lambda e: len(e.absolute_path))
    return error


def _check_meaning(config: dict, source: str) -> list[str]:
    """Cross-references the schema cannot express; returns the §4.4 weight-sum warnings."""
    warnings = []
    composite = config["composite"]
    for name, weights in composite["profiles"].items():
        total = sum(weights.values())
        if total <= 0:
            raise InputError(source, "weights sum to 0; at least one metric needs a positive weight",
                             field=f"composite.profiles.{name}")
        if abs(total - 1.0) > WEIGHT_SUM_TOLERANCE:
            warnings.append(f"{source}: field 'composite.profiles.{name}': weights sum to {total:.4g}, not 1.00 "
                            "(spec §4.4); the composite renormalises them")
    chosen = composite.get("profile", "auto")
    if chosen != "auto" and chosen not in composite["profiles"]:
        raise InputError(source, f"no profile {chosen!r} under composite.profiles"
                         f"{_suggest(chosen, composite['profiles'])}; use 'auto' or one of "
                         f"{', '.join(composite['profiles'])}", field="composite.profile")
    tiers = config["tiers"]
    if [t["min"] for t in tiers] != sorted((t["min"] for t in tiers), reverse=True):
        raise InputError(source, "thresholds must be listed from highest to lowest", field="tiers")
    caveats = config["caveats"]
    if caveats["length_ratio_low"] >= caveats["length_ratio_high"]:
        raise InputError(source, "must be below caveats.length_ratio_high", field="caveats.length_ratio_low")
    methods = config["methods"]
    for name, dataset in config["datasets"].items():
        for method in dataset.get("methods", []):
            if method not in methods:
                raise InputError(source, f"no method {method!r} under methods{_suggest(method, methods)}",
                                 field=f"datasets.{name}.methods")
    for name, method in methods.items():
        for dataset in method.get("paths", {}):
            if dataset in config["datasets"]:
                continue
            # A near miss is a typo; a file for a dataset this params.yaml does not run (a trimmed copy of the
            # project's settings, say) is merely unused.
            suggestion = _suggest(dataset, config["datasets"])
            if suggestion:
                raise InputError(source, f"no dataset {dataset!r} under datasets{suggestion}",
                                 field=f"methods.{name}.paths.{dataset}")
            warnings.append(f"{source}: field 'methods.{name}.paths.{dataset}': no dataset {dataset!r} under "
                            "datasets; its file is not used")
    for part, settings in config.get("validation", {}).items():
        known = step_options(part)
        for option in settings.get("args", {}):
            if option not in known:
                raise InputError(source, f"`lyss {part}` has no option --{option.replace('_', '-')}"
                                 f"{_suggest(option, known)}; known: {', '.join(sorted(known))}",
                                 field=f"validation.{part}.args.{option}")
    return warnings


def read_params_file(path) -> dict:
    """params.yaml as a mapping; unreadable or malformed YAML is one line, not a traceback."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise InputError(path, f"cannot read the settings ({err.strerror or err})") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise InputError(path, f"malformed YAML ({getattr(err, 'problem', err)})",
                         line=mark.line + 1 if mark else None) from None


# ----------------------------------------------------------------------------------------- typed settings


def _frozen(value):
    """Deep read-only copy: mappings become MappingProxyType, lists tuples."""
    if isinstance(value, dict):
        return MappingProxyType({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


@dataclass(frozen=True)
class Stats:
    seed: int
    bootstrap_resamples: int
    alpha: float
    ar_trials: int
    min_entries_warning: int = 30


@dataclass(frozen=True)
class Composite:
    profiles: MappingProxyType
    normalisation: MappingProxyType
    profile: str = "auto"
    min_entries: int = 30
    min_coverage: float = 0.1
    min_weight_share: float = 0.5


@dataclass(frozen=True)
class Limits:
    max_entry_chars: int = 10_000
    max_entries: int = 1_000_000


@dataclass(frozen=True)
class Oracle:
    tolerance: float = 0.05


@dataclass(frozen=True)
class Embeddings:
    backend: str = "auto"
    batch_size: int | None = None


@dataclass(frozen=True)
class Tier:
    name: str
    min: float


@dataclass(frozen=True)
class Settings:
    """params.yaml after validation, with defaults filled in. Plain-dict users keep `raw`."""

    datasets: MappingProxyType
    methods: MappingProxyType
    metrics: tuple[str, ...]
    metric_options: MappingProxyType
    composite: Composite
    tiers: tuple[Tier, ...]
    caveats: MappingProxyType
    stats: Stats
    limits: Limits
    oracle: Oracle
    embeddings: Embeddings
    languages_dir: str = "data/languages"
    prices: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    validation: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    database_url: str | None = None
    warnings: tuple[str, ...] = ()
    raw: MappingProxyType = field(default_factory=lambda: MappingProxyType({}), repr=False)

    @classmethod
    def from_mapping(cls, config: dict, source="params.yaml") -> "Settings":
        warnings = validate_params(config, source)
        composite = config["composite"]
        return cls(
            datasets=_frozen(config["datasets"]),
            methods=_frozen(config["methods"]),
            metrics=tuple(config["metrics"]),
            metric_options=_frozen(config.get("metric_options", {})),
            composite=Composite(**_frozen({"normalisation": {}, **composite})),
            tiers=tuple(Tier(t["name"], t["min"]) for t in config["tiers"]),
            caveats=_frozen(config["caveats"]),
            stats=Stats(**config["stats"]),
            limits=Limits(**config.get("limits", {})),
            oracle=Oracle(**config.get("oracle", {})),
            embeddings=Embeddings(**config.get("embeddings", {})),
            languages_dir=config.get("languages_dir", "data/languages"),
            prices=_frozen(config.get("prices", {})),
            validation=_frozen(config.get("validation", {})),
            database_url=(config.get("database") or {}).get("url"),
            warnings=tuple(warnings),
            raw=_frozen(config),
        )


def load_settings(path="params.yaml") -> Settings:
    """Read, validate and type a params.yaml file."""
    return Settings.from_mapping(read_params_file(path), source=str(path))

"""params.yaml checked whole against one JSON Schema (src/lyss/schemas/params.schema.json) and loaded into
typed, frozen settings objects: the one place that reads, checks and types the settings, and the one source of
their defaults (the schema's `default`s, filled in by the loader; no dataclass field or stage restates one).

Why a schema and not scattered checks: a setting that is misspelled (`tokenise:`) or out of range (`alpha: 5`)
used to be ignored or to fail deep inside a job, an hour into a run, as a Python traceback. Here every key
at every depth is known, typed and bounded, and the first problem is one line naming the file and the key,
with a "did you mean" for unknown keys, before any job runs. What a schema cannot say (a profile's total,
a dataset naming a method that does not exist, the options each `lyss <part>` command accepts) is checked
in `_check_meaning` right after it.

Why a `Vocabulary` is passed in: the names the schema accepts (metric ids and their options, hooks, method
kinds, the validation parts' options) are declared by the stages' registries, and every stage receives these
settings, so this module sits below all of them and imports none (tests/test_layout.py). `lyss.config.vocabulary`
gathers the registries above the stages and hands them in; editing a stage's code then changes only the
stages that import it.
"""

import copy
import functools
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import ClassVar

import jsonschema
import yaml

from lyss.errors import InputError, did_you_mean, unknown

# spec §4.4: "each weight table sums to 1.00"; the composite renormalises anyway, so other sums only warn.
WEIGHT_SUM_TOLERANCE = 0.005
NAME_RULE = "names may hold only letters, digits, '_' and '-' (they become file names)"


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """The names the settings may use, as the stages' registries declare them. `metric_options`: per metric
    id, the JSON-Schema properties of the options its class reads (`options_schema`, may be empty);
    `step_options`: per validation part, the options its `lyss <part>` parser accepts. Compared by identity,
    so the schema built from one is cached."""

    metric_options: Mapping[str, Mapping]
    hooks: tuple[str, ...]
    method_kinds: tuple[str, ...]
    bleu_tokenizers: tuple[str, ...]
    step_options: Mapping[str, frozenset[str]]


@functools.cache
def schema_file() -> dict:
    """params.schema.json as written (the registry-driven lists empty), the source of every default."""
    return json.loads(resources.files("lyss.schemas").joinpath("params.schema.json").read_text(encoding="utf-8"))


@functools.cache
def params_schema(vocabulary: Vocabulary) -> dict:
    """The schema with its registry-driven lists filled in, so a new metric, hook or method kind is
    accepted without editing the schema file."""
    schema = copy.deepcopy(schema_file())
    defs = schema["$defs"]
    for name, values in (("metric_id", vocabulary.metric_options), ("hook", vocabulary.hooks),
                         ("method_kind", vocabulary.method_kinds), ("bleu_tokenizer", vocabulary.bleu_tokenizers)):
        defs[name]["enum"] = sorted(values)
    schema["properties"]["validation"]["propertyNames"] = {"enum": list(vocabulary.step_options)}
    schema["properties"]["metric_options"]["properties"] = {
        m: {"type": "object", "additionalProperties": False, "properties": dict(options)}
        for m, options in vocabulary.metric_options.items() if options}
    return schema


def _key(path) -> str | None:
    """('tiers', 0, 'min') → 'tiers[0].min', as a person would point at it in the YAML."""
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    return text or None


def _number(value) -> str:
    return repr(value) if not isinstance(value, float) or not value.is_integer() else f"{value:g}"


def _explain(error: jsonschema.ValidationError, defs: dict) -> tuple[str | None, str]:
    """(dotted key, problem) for one schema error, worded for a person editing params.yaml; `defs`: the
    schema's $defs, which name the kind of an unknown value."""
    path, rule, value = list(error.absolute_path), error.validator, error.validator_value
    instance = error.instance
    if "propertyNames" in error.absolute_schema_path:  # a bad key: report the key itself
        key = _key([*path, instance])
        if rule == "pattern":
            return key, NAME_RULE
        if rule == "enum":
            what = "validation part" if path == ["validation"] else "metric"
            return key, unknown(what, instance, value)
        return key, error.message
    if rule == "additionalProperties":
        known = sorted(error.schema.get("properties", {}))
        first = sorted(set(instance) - set(known))[0]
        listing = f"; known: {', '.join(known)}" if known else "; this section takes no keys"
        return _key([*path, first]), f"unknown key{did_you_mean(first, known)}{listing}"
    if rule == "required":
        missing = [k for k in value if k not in instance][0]
        what = "required section" if not path else "required key"
        return _key([*path, missing]), f"missing {what}"
    if rule == "enum":
        label = {"metric_id": "metric", "hook": "post-processing hook", "method_kind": "method kind",
                 "bleu_tokenizer": "sacrebleu tokenizer", "normalisation": "normalisation"}
        kind = next((label[d] for d in label if error.schema is defs[d]), "value")
        return _key(path), unknown(kind, instance, value)
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


def validate_params(config, vocabulary: Vocabulary, source="params.yaml") -> list[str]:
    """Raise InputError (file and key) for the first problem; return warnings that do not stop a run."""
    _check_schema(config, params_schema(vocabulary), str(source))
    return _check_meaning(with_defaults(config), vocabulary, str(source))


def validate_sections(config, sections: tuple[str, ...], source="params.yaml") -> None:
    """Check only these top-level sections: a command that reads one (`lyss db` reading `database`, `lyss
    review` reading `datasets` and `review`) accepts a settings file that holds just that. None of them
    names a registry's entry, so no Vocabulary is needed (and no stage is imported)."""
    schema = schema_file()
    schema = {**schema, "required": [k for k in schema.get("required", []) if k in sections],
              "properties": {k: v for k, v in schema["properties"].items() if k in sections},
              "additionalProperties": True}
    if isinstance(config, dict):
        config = {k: v for k, v in config.items() if k in sections}
    _check_schema(config, schema, str(source))


def _check_schema(config, schema: dict, source: str) -> None:
    if not isinstance(config, dict):
        raise InputError(source, "expected a mapping of settings at the top level")
    found = _non_finite(config)
    if found:
        raise InputError(source, f"must be a finite number, got {found[1]}", field=_key(found[0]))
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: (list(map(str, e.absolute_path)), e.validator))
    if errors:
        key, problem = _explain(_most_specific(errors[0]), schema["$defs"])
        raise InputError(source, problem, field=key)


def _most_specific(error: jsonschema.ValidationError) -> jsonschema.ValidationError:
    """An `anyOf` failure is reported through its closest branch (the deepest sub-error)."""
    while error.context:
        error = max(error.context, key=lambda e: len(e.absolute_path))
    return error


def _check_meaning(config: dict, vocabulary: Vocabulary, source: str) -> list[str]:
    """Cross-references the schema cannot express (on the settings with their defaults); returns the §4.4
    weight-sum warnings."""
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
    chosen = composite["profile"]
    if chosen != "auto" and chosen not in composite["profiles"]:
        raise InputError(source, f"no profile {chosen!r} under composite.profiles"
                         f"{did_you_mean(chosen, composite['profiles'])}; use 'auto' or one of "
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
                raise InputError(source, f"no method {method!r} under methods{did_you_mean(method, methods)}",
                                 field=f"datasets.{name}.methods")
    for name, method in methods.items():
        for dataset in method.get("paths", {}):
            if dataset in config["datasets"]:
                continue
            # A near miss is a typo; a file for a dataset this params.yaml does not run (a trimmed copy of the
            # project's settings, say) is merely unused.
            suggestion = did_you_mean(dataset, config["datasets"])
            if suggestion:
                raise InputError(source, f"no dataset {dataset!r} under datasets{suggestion}",
                                 field=f"methods.{name}.paths.{dataset}")
            warnings.append(f"{source}: field 'methods.{name}.paths.{dataset}': no dataset {dataset!r} under "
                            "datasets; its file is not used")
    for part, settings in config["validation"].items():
        known = vocabulary.step_options[part]
        for option in settings.get("args", {}):
            if option not in known:
                raise InputError(source, f"`lyss {part}` has no option --{option.replace('_', '-')}"
                                 f"{did_you_mean(option, known)}; known: {', '.join(sorted(known))}",
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


# ----------------------------------------------------------------------------------------- defaults


def with_defaults(config: dict) -> dict:
    """A deep copy of checked settings with every `default` of the schema filled in where the file leaves a
    key out: the one place a default is applied, so no stage (and no dataclass) writes one again."""
    filled = copy.deepcopy(config)
    _fill(filled, schema_file())
    return filled


def _fill(node: dict, schema: dict) -> None:
    for key, sub in schema.get("properties", {}).items():
        if key not in node and "default" in sub:
            node[key] = copy.deepcopy(sub["default"])
        if isinstance(node.get(key), dict):
            _fill(node[key], sub)


def default_of(key: str):
    """The schema's default of a top-level key (`languages_dir` → "data/languages")."""
    return copy.deepcopy(schema_file()["properties"][key]["default"])


def section_defaults(section: str) -> dict:
    """The schema's defaults of one top-level section's keys (`limits` → {max_entry_chars: 10000, …})."""
    properties = schema_file()["properties"][section].get("properties", {})
    return {k: copy.deepcopy(v["default"]) for k, v in properties.items() if "default" in v}


# ----------------------------------------------------------------------------------------- typed settings


def _frozen(value):
    """Deep read-only copy: mappings become MappingProxyType, lists tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value


def thaw(value):
    """Plain dicts and lists again, for code outside the settings that keeps or edits what it is given (a
    translator's options, a metric's options, a rule's params, which Snakemake compares by their repr)."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


class _Section:
    """A params.yaml section as a frozen dataclass. `of` takes the section as checked (the loader's copy, or
    a rule's param) and fills in the schema's defaults of the keys it leaves out, so a library caller
    without settings (`Limits.of()`) gets the same values as the pipeline."""

    SECTION: ClassVar[str]

    @classmethod
    def of(cls, mapping: Mapping | None = None):
        values = {**section_defaults(cls.SECTION), **(mapping or {})}
        names = {f.name for f in fields(cls)}
        return cls(**{k: _frozen(v) for k, v in values.items() if k in names})

    def plain(self) -> dict:
        """The section as params.yaml spells it (what a rule passes as its param)."""
        return {f.name: thaw(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class Stats(_Section):
    SECTION = "stats"
    seed: int
    bootstrap_resamples: int
    alpha: float
    ar_trials: int
    min_entries_warning: int


@dataclass(frozen=True)
class Composite(_Section):
    SECTION = "composite"
    profiles: MappingProxyType
    normalisation: MappingProxyType
    profile: str
    min_entries: int
    min_coverage: float
    min_weight_share: float

    @classmethod
    def of(cls, mapping: Mapping | None = None) -> "Composite":
        """`normalisation` absent: no overrides, each metric's own (kept out of the schema's defaults so the
        section a run card's fingerprint hashes is the one the file holds)."""
        mapping = mapping or {}
        return super().of({**mapping, "normalisation": mapping.get("normalisation", {})})


@dataclass(frozen=True)
class Limits(_Section):
    SECTION = "limits"
    max_entry_chars: int
    max_entries: int


@dataclass(frozen=True)
class Oracle(_Section):
    SECTION = "oracle"
    tolerance: float


@dataclass(frozen=True)
class Embeddings(_Section):
    SECTION = "embeddings"
    backend: str
    batch_size: int


@dataclass(frozen=True)
class Caveats(_Section):
    """`embedder` None: the misaligned_output caveat uses the vectors of rule `embed`."""

    SECTION = "caveats"
    gate_tier: bool
    copy_similarity: float
    length_ratio_low: float
    length_ratio_high: float
    thresholds: MappingProxyType
    embedder: str | None = None


@dataclass(frozen=True)
class Tier:
    name: str
    min: float

    @classmethod
    def all_of(cls, tiers) -> tuple["Tier", ...]:
        """params.yaml `tiers` (a list of {name, min}) in their order, first match wins (spec §5.1)."""
        return tuple(cls(t["name"], t["min"]) for t in tiers)


@dataclass(frozen=True)
class Method:
    """One entry of `methods:`. `options`: everything its translator reads (all but kind and postprocess);
    `postprocess`: the names of its repair hooks, in order (none when the entry lists none)."""

    kind: str
    options: MappingProxyType
    postprocess: tuple[str, ...]

    @classmethod
    def of(cls, mapping: Mapping) -> "Method":
        options = {k: v for k, v in mapping.items() if k not in ("kind", "postprocess")}
        return cls(mapping["kind"], _frozen(options), tuple(mapping.get("postprocess", ())))


@dataclass(frozen=True)
class Price(_Section):
    """A `prices:` row (USD per million tokens). `cached_per_1m` None: cached tokens cost the input rate."""

    SECTION = "prices"
    input_per_1m: float
    output_per_1m: float
    cached_per_1m: float | None = None

    @classmethod
    def of(cls, mapping: Mapping | None = None):
        defaults = schema_file()["$defs"]["price"]["properties"]
        values = {k: v["default"] for k, v in defaults.items() if "default" in v} | dict(mapping or {})
        return cls(**values)


@dataclass(frozen=True)
class MetricOptions:
    """`metric_options:`, per metric id the options its class declares (empty for a metric given none)."""

    by_metric: MappingProxyType

    @classmethod
    def of(cls, mapping: Mapping | None = None) -> "MetricOptions":
        return cls(_frozen(mapping or {}))

    def of_metric(self, metric_id: str) -> dict:
        """A metric's options as the plain dict its ScoringInput carries."""
        return thaw(self.by_metric.get(metric_id, {}))


@dataclass(frozen=True)
class Settings:
    """params.yaml after validation, every default of the schema filled in. `raw`: that same mapping, frozen,
    for the few readers of a section that has no class of its own (datasets, validation, review)."""

    datasets: MappingProxyType
    methods: MappingProxyType
    metrics: tuple[str, ...]
    metric_options: MetricOptions
    composite: Composite
    tiers: tuple[Tier, ...]
    caveats: Caveats
    stats: Stats
    limits: Limits
    oracle: Oracle
    embeddings: Embeddings
    languages_dir: str
    prices: MappingProxyType
    validation: MappingProxyType
    database_url: str | None
    warnings: tuple[str, ...]
    raw: MappingProxyType

    @classmethod
    def from_mapping(cls, config: dict, vocabulary: Vocabulary, source="params.yaml") -> "Settings":
        """Check `config` whole (InputError on the first problem), fill in the defaults and type it."""
        return cls.from_checked(config, tuple(validate_params(config, vocabulary, source)))

    @classmethod
    def from_checked(cls, config: dict, warnings: tuple[str, ...] = ()) -> "Settings":
        """Type settings that were checked already (a workflow job's `config`, which rules/common.smk checked
        when Snakemake loaded): no registry is needed, so a job's code does not depend on every stage."""
        config = with_defaults(config)
        return cls(
            datasets=_frozen(config["datasets"]),
            methods=MappingProxyType({name: Method.of(m) for name, m in config["methods"].items()}),
            metrics=tuple(config["metrics"]),
            metric_options=MetricOptions.of(config["metric_options"]),
            composite=Composite.of(config["composite"]),
            tiers=Tier.all_of(config["tiers"]),
            caveats=Caveats.of(config["caveats"]),
            stats=Stats.of(config["stats"]),
            limits=Limits.of(config["limits"]),
            oracle=Oracle.of(config["oracle"]),
            embeddings=Embeddings.of(config["embeddings"]),
            languages_dir=config["languages_dir"],
            prices=MappingProxyType({model: Price.of(row) for model, row in config["prices"].items()}),
            validation=_frozen(config["validation"]),
            database_url=config["database"]["url"],
            warnings=warnings,
            raw=_frozen(config),
        )

    def plain(self) -> dict:
        """The checked settings with their defaults, as plain dicts and lists (Snakemake's `config`)."""
        return thaw(self.raw)


def load_settings(path, vocabulary: Vocabulary) -> Settings:
    """Read, validate and type a params.yaml file."""
    return Settings.from_mapping(read_params_file(path), vocabulary, source=str(path))

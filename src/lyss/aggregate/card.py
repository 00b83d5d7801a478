"""The one run-card builder: metric results → a whole, schema-checked run card.

Rule `aggregate` (lyss.aggregate.aggregate_run, from the files of a run) and `lyss score` (from plain text
files, lyss.commands.score) both call `build_card`, so the oracle check, the weight profile, coverage, caveats,
the composite and its tier, and the bootstrap intervals are one sequence in one place: a `lyss score` number
and the run card's number for the same rows cannot drift apart. Only the input differs, and it is one small
frozen `CardInput`.
"""

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from lyss.aggregate.caveats import entry_flags, skipped_caveats
from lyss.aggregate.composite import applied_weights, select_profile, weight_share, with_one_profile
from lyss.aggregate.confidence import Resampling, confidence_intervals
from lyss.aggregate.fingerprint import run_fingerprint
from lyss.aggregate.oracle import failed_metrics, reference_check
from lyss.aggregate.runcard import (
    COST_KEYS,
    SCHEMA_VERSION,
    UNTIMED_KINDS,
    Work,
    apply_caveats,
    build_scores,
    metric_coverage,
    rounded,
    totals_block,
    validate_run_card,
    withheld_values,
)
from lyss.aggregate.validation_status import rater_block, tier_review, tier_status, validation_status
from lyss.languages import card_provenance, provenance_warning
from lyss.metrics.base import MetricResult
from lyss.metrics.card_files import missing_card_files

# Which metrics get a bootstrap interval: the card's (ci_metrics(), rule aggregate), every metric the card
# shows (`lyss score --ci`, as sacrebleu's --confidence does for BLEU and TER too), or none.
INTERVALS = ("card", "shown", "none")


class CardSettings(Protocol):
    """The sections of lyss.settings.Settings (params.yaml, typed and frozen) a card is built from; declared
    here, not imported, so that the stage imports nothing from the settings module, which reads the stages'
    registries to build its schema."""

    composite: object  # profiles, normalisation, profile, min_entries, min_coverage, min_weight_share
    tiers: tuple  # each with name and min
    caveats: object  # gate_tier, copy_similarity, length_ratio_low/high, thresholds
    stats: object  # seed, bootstrap_resamples, alpha, min_entries_warning
    oracle: object  # tolerance
    prices: Mapping  # per model
    raw: Mapping  # params.yaml as written (the fingerprint hashes its sections)
    languages_dir: str  # where aggregate_run reads the language cards
    embeddings: object  # backend: the embedder of the cached vectors aggregate_run reads


@dataclass(frozen=True)
class Dataset:
    """Who the entries are: the card's `dataset` block and the two language codes."""

    id: str
    source_lang: str
    target_lang: str
    fingerprint: str
    licence: str | None = None

    @property
    def language_pair(self) -> str:
        return f"{self.source_lang}-{self.target_lang}"


@dataclass(frozen=True)
class Method:
    """The method as params.yaml writes it (`config`: its kind and options) under its name."""

    name: str
    config: Mapping


@dataclass(frozen=True)
class Translation:
    """What the method produced: one record per entry (`prediction`, `latency_s`, tokens, cost, `error`),
    the run's wall time, or `untimed`, why it was not measured."""

    records: Sequence[dict]
    elapsed_seconds: float | None = None
    untimed: str | None = None


@dataclass(frozen=True)
class CardInput:
    """Everything a run card is made from. `reference_results`: the same metrics on the references scored as
    a system (the oracle, docs/oracle.md); `cards`: the language card of each code of `dataset` (None: no
    card); `evidence`: the metric–human studies of the language pair (lyss.aggregate.validation_status);
    `review`: the dataset's community verdict (lyss.review), or None; `raters`: the raters' table of this
    dataset (lyss.evidence.raters), or None; `intervals`: one of INTERVALS."""

    dataset: Dataset
    method: Method
    results: Mapping[str, MetricResult]
    reference_results: Mapping[str, MetricResult]
    entries: Sequence[dict]
    translation: Translation
    settings: CardSettings
    cards: Mapping[str, dict | None]
    embeddings: object = None
    evidence: Sequence[dict] = ()
    review: Mapping | None = None
    raters: Mapping | None = None
    intervals: str = "card"


def plain(value):
    """A frozen settings value as the JSON-like dicts and lists the scoring functions and the fingerprint
    take (a settings section or MappingProxyType → dict, tuple → list)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    return value


def composite_settings(settings: CardSettings) -> dict:
    """params.yaml `composite` with its contract defaults filled in (lyss.settings.Composite)."""
    c = settings.composite
    return {"profiles": plain(c.profiles), "normalisation": plain(c.normalisation), "profile": c.profile,
            "min_entries": c.min_entries, "min_coverage": c.min_coverage, "min_weight_share": c.min_weight_share}


def tier_table(settings: CardSettings) -> list[dict]:
    return [{"name": t.name, "min": t.min} for t in settings.tiers]


def _fingerprint(run: CardInput, evidence: list[dict], profile: str) -> dict:
    """Hash of the corpus, of the params.yaml sections as written that shape the numbers, and of the code. Of
    `composite`, what the workflow's aggregate job takes (rules/common.smk, `applied_composite`): the `profile` the
    card applies and its weights alone, since another profile shapes none of its numbers and reruns no job."""
    raw = run.settings.raw
    shaping = {"method": plain(run.method.config), "metrics": sorted(run.results),
               "composite": with_one_profile(plain(raw["composite"]), profile), "oracle": plain(raw.get("oracle", {})),
               "priced": _priced(run), "tiers": plain(raw["tiers"]), "caveats": plain(raw["caveats"]),
               "stats": plain(raw["stats"]), "evidence": evidence, "review": plain(run.review),
               "raters": plain(run.raters)}
    return run_fingerprint(run.dataset.fingerprint, shaping)


def _priced(run: CardInput) -> bool:
    """Whether the method's model has a price row (`prices`): without one its cost was not measured."""
    return run.method.config.get("model") in run.settings.prices


def _intervals(run: CardInput, results: dict, scores: dict, weights: dict, normalisation: dict) -> dict:
    """Bootstrap intervals of the values the card shows, so the composite's uses the metrics of its value."""
    shown = {m: r for m, r in results.items() if scores.get(m) is not None}
    if run.intervals == "none":
        return {"confidence_intervals": {}, "confidence_intervals_by_tier": {}, "warnings": [],
                "bootstrap": {"resamples": 0, "undefined_resamples": {}}}
    return confidence_intervals(shown, list(run.entries), weights, normalisation, Resampling.of(run.settings.stats),
                                metrics=list(shown) if run.intervals == "shown" else None)


def build_card(run: CardInput) -> dict:
    """The run card of `run`, built whole and checked against the run-card schema (jsonschema.ValidationError
    when it does not follow it). Every metric is first checked on `reference_results`: one that fails is null
    here; caveats count only entries where the reference does not show the pattern; the §1.6 validation status
    comes from `evidence`; speed from `translation` (null with the reason for a method that does no work)."""
    if run.intervals not in INTERVALS:
        raise ValueError(f"intervals must be one of {', '.join(INTERVALS)}, got {run.intervals!r}")
    settings, dataset, method = run.settings, run.dataset, run.method
    results, entries = dict(run.results), list(run.entries)
    composite = composite_settings(settings)
    caveats_in_force, tiers = plain(settings.caveats), tier_table(settings)
    target_card = run.cards.get(dataset.target_lang)
    profile = select_profile(target_card, composite)
    weights, normalisation = composite["profiles"][profile], composite["normalisation"]

    checks = reference_check(dict(run.reference_results), target_card, settings.oracle.tolerance)
    failed = failed_metrics(checks)
    reference_flags = entry_flags(entries, [e["reference"] for e in entries], caveats_in_force, run.embeddings)
    evidence = list(run.evidence)
    validation = validation_status(results, evidence, set(failed))

    untimed = UNTIMED_KINDS.get(method.config["kind"]) or run.translation.untimed
    elapsed = None if untimed else float(run.translation.elapsed_seconds or 0.0)
    records = list(run.translation.records)
    priced = _priced(run)
    totals = totals_block(records, entries, elapsed, priced)
    work = Work(records, elapsed, totals["total_tokens"], totals["cost_per_entry_usd"], untimed)
    scores, reasons = build_scores(results, entries, weights, tiers, composite, excluded=failed, work=work)
    if not priced:
        reasons.update(dict.fromkeys(COST_KEYS, "no price for this method under `prices` in params.yaml: its "
                                                "cost was not measured"))
    prediction_of = {r["id"]: r.get("prediction") for r in records}
    caveats, tier_gate = apply_caveats(scores, entries, [prediction_of.get(e["id"]) for e in entries],
                                       caveats_in_force, run.embeddings, reference_flags)
    intervals = _intervals(run, results, scores, weights, normalisation)
    scores["confidence_intervals"] = intervals["confidence_intervals"]
    scores["confidence_intervals_by_tier"] = intervals["confidence_intervals_by_tier"]
    # Which card each language used (a file, derived from CLDR, or none): a missing card changes what several
    # metrics can measure, so the card says so rather than a line in a log.
    codes = (dataset.source_lang, dataset.target_lang)
    warnings = [f"caveat {k} skipped: {v}" for k, v in skipped_caveats(caveats_in_force, run.embeddings).items()]
    warnings += intervals["warnings"]
    warnings += [w for w in (provenance_warning(code, run.cards.get(code)) for code in codes) if w]
    warnings += missing_card_files(run.cards.get(dataset.target_lang) or {}, list(results))
    method_block = {"name": method.name, "kind": method.config["kind"], **_public(method.config)}
    card = {
        "schema_version": SCHEMA_VERSION,
        "dataset": {"id": dataset.id, "language_pair": dataset.language_pair, "fingerprint": dataset.fingerprint,
                    "licence": dataset.licence},
        "method": method_block,
        "model_slug": method_block.get("model") or method.name,
        "condition": method_block.get("condition", "default"),
        "fingerprint": _fingerprint(run, evidence, profile),
        "elapsed_seconds": totals["elapsed_seconds"],
        "composite_profile": {"profile": profile, "weights": weights,
                              "applied_weights": {k: rounded(v) for k, v in applied_weights(scores, weights).items()},
                              "weight_share": rounded(weight_share(scores, weights))},
        "reference_check": checks,
        "metric_coverage": metric_coverage(results),
        "validation_status": validation,
        "tier_status": tier_status(validation),
        "tier_review": tier_review(scores["quality_tier"], method.name, plain(run.review), tiers),
        "raters": rater_block(plain(run.raters), method.name),
        "signatures": {k: r.signature for k, r in sorted(results.items()) if r.signature},
        "metric_details": {k: r.details for k, r in sorted(results.items()) if r.details},
        "null_reasons": reasons,
        "withheld": withheld_values(results, scores),
        "score_caveats": caveats,
        "tier_gate": tier_gate,
        "warnings": warnings,
        "scores": scores,
        "totals": totals,
        "bootstrap": intervals["bootstrap"],
        "language_cards": {code: card_provenance(run.cards.get(code)) for code in codes},
    }
    validate_run_card(card)
    return card


def _public(config: Mapping) -> dict:
    from lyss.translate.jobs import public_options

    return public_options(plain(config))

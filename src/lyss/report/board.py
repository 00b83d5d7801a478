"""What every leaderboard shows, whatever its format (Markdown in lyss.report, the HTML page in
lyss.report.page, the plots in lyss.report.plots): the ranking, the ★/≈ marks, tier labels and the notes under
each dataset's table. Its own module so that the writers share it without importing each other."""

# §1.6 statuses, strongest first (lyss.aggregate.validation_status).
STATUS_ORDER = ("validated", "contradicted", "evidence", "unvalidated", "invalid here")


def is_oracle(card: dict) -> bool:
    """The reference scored as a method (docs/oracle.md): shown for scale, never ranked among systems."""
    return card["method"].get("kind") == "reference"


def ranked(cards: list[dict]) -> list[dict]:
    """Highest composite first; unscored runs last; the reference oracle after every system."""
    return sorted(cards, key=lambda c: (is_oracle(c), c["scores"]["composite"] is None,
                                        -(c["scores"]["composite"] or 0)))


def can_be_best(card: dict) -> bool:
    """★ goes only to a system with a full, ungated tier: not the reference, not a run kept at baseline
    by its caveats, not a partial or unscored composite."""
    return (not is_oracle(card) and not (card.get("tier_gate") or {}).get("applied")
            and card["scores"].get("quality_tier") not in ("partial", "unscored"))


def rater_objection(card: dict) -> str | None:
    """Why the dataset's own raters contradict a ★ on this run (its card's `raters`, lyss.evidence.raters):
    the systems they significantly prefer to it, or None."""
    raters = card.get("raters") or {}
    preferred = raters.get("preferred_to_it") or []
    if not preferred:
        return None
    listing = "; ".join(f"{p['method']} by {p['delta']:.3g} [{p['ci'][0]:.3g}, {p['ci'][1]:.3g}] "
                        f"(Holm-adjusted p = {p['p_holm']:.2g})" for p in preferred)
    return (f"highest composite, but this dataset's raters ({raters['items']} items) significantly prefer "
            f"{listing}: no ★")


def best_marks(group: list[dict], sig: dict) -> dict[str, tuple[str, str]]:
    """Method → (mark, tooltip): ★ on the highest composite among the runs that can be best, ≈ on the
    systems whose paired test against it (composite, Holm-corrected) is not significant. Where the dataset's
    raters significantly prefer another system to that run, it gets ☆ (no ★): the benchmark does not call
    "best" what the people who rated these very outputs rank below another. No marks without a
    significance file."""
    candidates = [c for c in ranked(group) if can_be_best(c)]
    if not sig or not candidates:
        return {}
    best = candidates[0]["method"]["name"]
    objection = rater_objection(candidates[0])
    marks = {best: ("☆", objection) if objection else
             ("★", "best composite among the systems with a full, ungated tier")}
    for card in group:
        name = card["method"]["name"]
        row = next((r for r in sig.get("comparisons", []) if r.get("metric") == "composite"
                    and {r.get("baseline"), r.get("system")} == {best, name}), None)
        if name == best or is_oracle(card) or row is None or row.get("significant"):
            continue
        p_value = row.get("p_bs_holm")
        detail = "" if p_value is None else f" (Holm-adjusted paired bootstrap p = {p_value:.3g})"
        marks[name] = ("≈", f"not significantly different from {best}{detail}")
    return marks


def review_note(card: dict) -> tuple[str, str] | None:
    """(short label, explanation) of the speakers' verdict on the tier (the card's `tier_review`, docs/review.md):
    confirmed or overturned with the number of speakers and items, or "candidate for review" (§5)."""
    review = card.get("tier_review") or {}
    status = review.get("status")
    if status in ("confirmed", "overturned"):
        share = review.get("usable_share")
        claim = "usable" if review.get("claims_usable") else "not yet usable"
        return (f"{status} by {review['speakers']} speakers ({review['items']} items)",
                f"the tier claims {claim} output; the speakers found {share:.0%} of the reviewed outputs usable "
                f"(verdict: {review.get('verdict')})")
    if status == "candidate for review":
        study = review.get("study")
        so_far = "" if not study else (f"; the review so far ({study['speakers']} speakers, "
                                       f"{study['pairs_with_min_speakers']} outputs rated by 3+) is below spec §1.6")
        return ("candidate for review", "deployable or above on automatic metrics alone: only review by bilingual "
                f"speakers confirms it (spec §5){so_far}")
    return None


def tier_label(card: dict) -> str:
    """The tier, with "provisional" unless the composite is validated on the language pair (§1.6), and the
    speakers' verdict on it when there is one (or "candidate for review")."""
    tier = card["scores"].get("quality_tier") or "unscored"
    provisional = card.get("tier_status", "provisional") == "provisional" and tier not in ("unscored", "partial")
    notes = (["provisional"] if provisional else []) + [note[0] for note in [review_note(card)] if note]
    return f"{tier} ({'; '.join(notes)})" if notes else tier


def dataset_notes(group: list[dict]) -> list[str]:
    """Per dataset: the metrics that fail their reference check, and the §1.6 validation status of each
    metric (both the same in every card of the dataset)."""
    card = next((c for c in group if is_oracle(c)), group[0])
    notes = []
    languages = card.get("language_cards") or {}
    if languages:
        notes.append("Language cards: " + ", ".join(f"{code} ({where['card']})" for code, where in languages.items()))
    failed = {m: c["reference_value"] for m, c in (card.get("reference_check") or {}).items() if c["passed"] is False}
    if failed:
        notes.append("Not valid on this dataset (fail their reference check, null in every card): "
                     + ", ".join(f"{m} (reference scores {v:g})" for m, v in sorted(failed.items())))
    status = card.get("validation_status") or {}
    if status:
        grouped: dict[str, list[str]] = {}
        for metric, value in sorted(status.items()):
            grouped.setdefault(value, []).append(metric)
        notes.append("Validation status (§1.6) on " + card["dataset"]["language_pair"] + ": "
                     + "; ".join(f"{value}: {', '.join(grouped[value])}" for value in STATUS_ORDER
                                 if value in grouped))
    rated = sorted((c for c in group if c.get("raters")), key=lambda c: (c["raters"]["rank"] or 0, c["method"]["name"]))
    if rated:
        items = rated[0]["raters"]["items"]
        notes.append(f"Raters' ranking (mean human score over the {items} items every rated system has; paired "
                     "bootstrap, Holm-corrected, in each card's `raters`): "
                     + ", ".join(f"{c['raters']['rank']}. {c['method']['name']} ({c['raters']['mean']:.3g})"
                                 for c in rated))
    return notes

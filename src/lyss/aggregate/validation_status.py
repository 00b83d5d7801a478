"""Spec §1.6 validation status of each metric and of the composite on a language pair, from the
human-judgment studies of datasets in that pair (`results/evidence/<d>/evidence.json`,
written by the evidence stage; docs/oracle.md, "Validation status (spec §1.6)"):

  validated     a study in this pair meets the §1.6 bar and agrees with people in the metric's direction
  contradicted  a study in this pair meets the §1.6 bar and disagrees: its whole interval lies on the wrong side
  evidence      some human data in this pair, below that bar
  unvalidated   no human data in this pair
  invalid here  the metric fails its reference check on this dataset (lyss.aggregate.oracle)

A tier is "provisional" unless the composite itself is validated on the pair.

A tier is also put to the speakers of a community review (lyss.review, `data/corpora/<d>/reviews/verdict.json`):
with a review that meets the same bar, a tier is `confirmed` when the speakers' verdict on the method agrees
with what the tier claims (deployable and above claim usable output, the tiers below claim it is not) and
`overturned` when it does not; without one, a tier of deployable or above is only a "candidate for review"
(spec §5: no method may claim deployable or above on automatic metrics alone).

Where the dataset itself is rated (`results/evidence/<d>/raters.json`, lyss.evidence.raters), the card also
carries the raters' verdict on its method: its mean and rank among the rated methods and the methods they
significantly prefer to it, which the leaderboard weighs against its ★.
"""

from pathlib import Path

from lyss.io import read_json

STATUSES = ("validated", "contradicted", "evidence", "unvalidated", "invalid here")
# Spec §5: the lowest tier that claims usable output, and so needs the speakers' confirmation.
REVIEWED_FROM = "deployable"
EVIDENCE_FILE = "evidence.json"
RATERS_FILE = "raters.json"


def load_evidence(dirs, language_pair: str) -> list[dict]:
    """The evidence files found in the given study folders whose language pair is `language_pair` (a
    study folder without one has produced no evidence yet)."""
    found = []
    for folder in dirs:
        path = Path(folder) / EVIDENCE_FILE
        if path.exists():
            block = read_json(path)
            if block.get("language_pair") == language_pair:
                found.append(block)
    return found


def load_raters(dirs, dataset: str) -> dict | None:
    """The raters' table of `dataset` itself among the given study folders (those of other datasets in the
    pair rated other outputs), or None."""
    for folder in dirs:
        path = Path(folder) / RATERS_FILE
        if path.exists():
            table = read_json(path)
            if table.get("dataset") == dataset:
                return table
    return None


def rater_block(raters: dict | None, method: str) -> dict | None:
    """The card's `raters`: the method's mean and rank among the rated methods, and the methods the raters
    significantly prefer to it; None when the dataset has no raters' table or they did not rate this method."""
    if not raters or method not in raters["methods"]:
        return None
    return {**raters["methods"][method], "items": raters["items"], "rated_methods": len(raters["methods"]),
            "preferred_to_it": [{"method": p["better"], "delta": p["delta"], "ci": p["ci"], "p_holm": p["p_holm"]}
                                for p in raters["preferred"] if p["worse"] == method]}


def contradicts(study: dict) -> bool:
    """A study that meets the §1.6 bar and whose segment Kendall interval lies wholly on the side that
    disagrees with people in the metric's direction."""
    low, high = (study.get("segment_kendall") or [None, None, None])[1:3]
    if not study.get("meets_spec_minimum") or low is None or high is None:
        return False
    return high < 0 if study.get("direction", "higher") == "higher" else low > 0


def status_of(name: str, evidence: list[dict]) -> str:
    """`validated`, `contradicted`, `evidence` or `unvalidated` for a metric id or "composite", over all
    studies; one study meeting the bar against the metric outweighs another in its favour."""
    studies = [e["metrics"][name] for e in evidence if name in e.get("metrics", {})]
    if any(contradicts(s) for s in studies):
        return "contradicted"
    if any(s.get("status") == "validated" for s in studies):
        return "validated"
    return "evidence" if studies else "unvalidated"


def validation_status(metrics, evidence: list[dict], invalid: set[str]) -> dict[str, str]:
    """Status per metric (those in `invalid` fail their reference check here) and for the composite."""
    out = {m: "invalid here" if m in invalid else status_of(m, evidence) for m in sorted(metrics)}
    out["composite"] = status_of("composite", evidence)
    return out


def tier_status(statuses: dict[str, str]) -> str:
    return "validated" if statuses.get("composite") == "validated" else "provisional"


def claims_usable(tier: str | None, tiers: list[dict]) -> bool:
    """Whether a tier is deployable or above (`tiers` top to bottom, as in params.yaml)."""
    names = [t["name"] for t in tiers]
    return tier in names and REVIEWED_FROM in names and names.index(tier) <= names.index(REVIEWED_FROM)


def tier_review(tier: str | None, method: str, review: dict | None, tiers: list[dict]) -> dict:
    """The card's `tier_review`: `confirmed` or `overturned` by a review that meets the §1.6 bar and rated
    this method; otherwise `candidate for review` for a tier of deployable or above and `not reviewed` below.
    Speakers and items are the method's (outputs rated); the study's totals say how far it is from the bar."""
    claims = claims_usable(tier, tiers)
    verdict = ((review or {}).get("methods") or {}).get(method) or {}
    block = {"claims_usable": claims, "speakers": verdict.get("speakers", 0), "items": verdict.get("outputs", 0),
             "verdict": verdict.get("verdict"), "usable_share": verdict.get("usable_share")}
    if review is not None:
        block["study"] = {k: review[k] for k in ("study", "speakers", "outputs", "pairs_with_min_speakers",
                                                 "meets_spec_minimum")}
    if tier not in [t["name"] for t in tiers]:  # unscored or partial: no tier to confirm
        block["status"] = "not reviewed"
    elif review is not None and review["meets_spec_minimum"] and block["verdict"] is not None:
        block["status"] = "confirmed" if claims == (block["verdict"] == "usable") else "overturned"
    else:
        block["status"] = "candidate for review" if claims else "not reviewed"
    return block

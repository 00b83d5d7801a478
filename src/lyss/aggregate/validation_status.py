"""Spec §1.6 validation status of each metric and of the composite on a language pair, from the
human-judgment studies of datasets in that pair (`results/evidence/<d>/evidence.json`,
written by the agreement step; contract 4 in docs/oracle.md):

  validated     a study in this pair meets the §1.6 bar and agrees with people in the metric's direction
  evidence      some human data in this pair, below that bar
  unvalidated   no human data in this pair
  invalid here  the metric fails its reference check on this dataset (lyss.aggregate.oracle)

A tier is "provisional" unless the composite itself is validated on the pair.
"""

from pathlib import Path

from lyss.io import read_json

STATUSES = ("validated", "evidence", "unvalidated", "invalid here")
EVIDENCE_FILE = "evidence.json"


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


def status_of(name: str, evidence: list[dict]) -> str:
    """`validated`, `evidence` or `unvalidated` for a metric id or "composite", over all studies."""
    studies = [e["metrics"][name] for e in evidence if name in e.get("metrics", {})]
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

"""A WMT test set in mt-metrics-eval's layout turned into a dataset folder (lyss.prep.folders).

mt-metrics-eval (github.com/google-research/mt-metrics-eval) distributes each test set as

    <testset>/sources/<lp>.txt                      one source per line
    <testset>/references/<lp>.<ref>.txt             one file per human reference (refA, refB, …)
    <testset>/system-outputs/<lp>/<system>.txt      one file per system, line-parallel
    <testset>/human-scores/<lp>.<kind>.seg.score    optional: `<system>\\t<score>` per line, segments in order
                                                    (score `None` where a segment was not rated)
    <testset>/documents/<lp>.docs                   optional: `<domain>\\t<document>` per segment

with `<lp>` in ISO 639-1 (`en-de`). The import writes source.txt, reference.txt (the chosen reference) and
reference.<ref>.txt (the others), systems/<system>.txt, human_scores.csv and a dataset.yaml whose pair is in
ISO 639-3; a system file that is a reference (mt-metrics-eval lists references among the outputs) is kept as a
system only when it is not the reference it would be scored against.
"""

import csv
import shutil
from pathlib import Path

import pycountry
import yaml

from lyss.errors import InputError
from lyss.prep.folders import HUMAN_SCORES, REFERENCE, SOURCE, SYSTEMS, read_lines


def iso639_3(code: str, source) -> str:
    """`en` → `eng`; a three-letter code stays as it is; anything else is an error naming the pair."""
    language = pycountry.languages.get(alpha_2=code) if len(code) == 2 else pycountry.languages.get(alpha_3=code)
    if language is None:
        raise InputError(source, f"unknown language code {code!r} (ISO 639-1 or 639-3)", field="language_pair")
    return language.alpha_3


def _lines(path: Path, expected: int | None = None) -> list[str]:
    """lyss.prep.folders.read_lines, with the line count the sources set checked."""
    lines = read_lines(path)
    if expected is not None and len(lines) != expected:
        raise InputError(path, f"has {len(lines)} lines but the sources have {expected}")
    return lines


def human_score_rows(path: Path, systems: set[str], n_segments: int) -> list[dict]:
    """`method,id,human` rows from a `.seg.score` file: each system's lines in segment order."""
    per_system: dict[str, list[str]] = {}
    for line_no, line in enumerate(_lines(path), 1):
        system, tab, score = line.partition("\t")
        if not tab:
            raise InputError(path, "expected `<system>\\t<score>`", line=line_no)
        per_system.setdefault(system, []).append(score.strip())
    rows = []
    for system, scores in sorted(per_system.items()):
        if system not in systems:
            continue  # a reference rated as a system, or a system without outputs
        if len(scores) != n_segments:
            raise InputError(path, f"system {system!r} has {len(scores)} scores for {n_segments} segments")
        for i, score in enumerate(scores, 1):
            if score and score != "None":
                try:
                    rows.append({"method": system, "id": str(i), "human": float(score)})
                except ValueError:
                    raise InputError(path, f"score {score!r} of system {system!r} is not a number") from None
    return rows


def import_wmt(testset: Path, lp: str, out: Path, reference: str | None = None, human: str | None = None,
               licence: str = "see the test set's terms", citation: str = "WMT, via mt-metrics-eval") -> dict:
    """Write dataset folder `out` from `testset` for language pair `lp`; returns a summary (counts, files)."""
    testset, out = Path(testset), Path(out)
    source_lang, _, target_lang = lp.partition("-")
    pair = f"{iso639_3(source_lang, lp)}-{iso639_3(target_lang, lp)}"
    sources = _lines(testset / "sources" / f"{lp}.txt")
    references = {p.name[len(lp) + 1:-len(".txt")]: p for p in sorted((testset / "references").glob(f"{lp}.*.txt"))}
    if not references:
        raise InputError(testset / "references", f"no {lp}.<ref>.txt file")
    chosen = reference or next(iter(references))
    if chosen not in references:
        raise InputError(testset / "references", f"no reference {chosen!r} (found: {', '.join(references)})")
    for path in references.values():
        _lines(path, len(sources))
    # every input is checked before anything is written: a refused import leaves no half-written folder
    systems = [p for p in sorted((testset / "system-outputs" / lp).glob("*.txt")) if p.stem != chosen]
    if not systems:
        raise InputError(testset / "system-outputs" / lp, "no system output files")
    for path in systems:
        _lines(path, len(sources))
    rows = None
    if human:
        rows = human_score_rows(testset / "human-scores" / f"{lp}.{human}.seg.score", {p.stem for p in systems},
                                len(sources))
    if out.exists() and any(out.iterdir()):
        raise InputError(out, "exists and is not empty; give another --out")
    (out / SYSTEMS).mkdir(parents=True)
    shutil.copy(testset / "sources" / f"{lp}.txt", out / SOURCE)
    for label, path in references.items():
        shutil.copy(path, out / (REFERENCE if label == chosen else f"reference.{label}.txt"))
    for path in systems:  # the reference itself is not scored against itself
        shutil.copy(path, out / SYSTEMS / path.name)
    if rows is not None:
        with (out / HUMAN_SCORES).open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=["method", "id", "human"], lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
    card = {"id": out.name, "name": f"{testset.name} {lp}", "language_pair": pair, "licence": licence,
            "citation": citation, "description": f"Imported by `lyss dataset import-wmt` from {testset.name} "
                                                 f"({lp}, reference {chosen})."}
    (out / "dataset.yaml").write_text(yaml.safe_dump(card, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return {"segments": len(sources), "references": len(references), "systems": len(systems),
            "rated_outputs": len(rows or ()), "language_pair": pair, "reference": chosen}

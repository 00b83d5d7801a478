"""Derive the `mqm_ted_ende` dataset from the raw Google MQM files in raw/ (see README.md here).

Writes, next to this script:
- corpus.jsonl: one entry per annotated segment; source = the English sentence, reference = the human
  translation that the annotators rated as system `ref` (the only German translation in the release).
- systems/<system>.jsonl: each MT system's output as `{"id", "prediction"}` for a `precomputed` method.
- human_scores.csv: `method,id,human,annotators` with the published per-segment MQM score (raw/
  mqm_ted_ende.avg_seg_scores.tsv), kept as it is: 0 = no error, more negative = worse, so HIGHER IS BETTER.

Why `ref` is not a method: its text is the corpus reference, so it is exactly the automatic `reference`
oracle method, and every reference-based metric gives it a perfect score by construction; adding its
MQM scores would reward metrics for recognising the reference, not for agreeing with people (the WMT
metrics task drops the reference "system" for the same reason).

Run: python data/corpora/mqm_ted_ende/derive.py  (standard library only; output is deterministic).
"""

import csv
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
RAW = HERE / "raw"
REFERENCE_SYSTEM = "ref"
# The averaged-score file spells the reference system `ref-A`; the error file spells it `ref`.
AVG_FILE_ALIASES = {"ref-A": REFERENCE_SYSTEM}
ERROR_MARK = re.compile(r"</?v>")


def strip_marks(text: str) -> str:
    """Remove the `<v>…</v>` tags that mark an annotated error span (sources carry them for omissions)."""
    return ERROR_MARK.sub("", text)


def entry_id(seg_id: int) -> str:
    return f"ted-{seg_id:03d}"


def read_error_rows(path: Path) -> list[dict]:
    """One row per annotated error or `No-error`. The file is plain TSV without quoting (sources contain
    `"` characters), so csv must not treat quotes specially."""
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def segment_texts(rows: list[dict]):
    """(segments, outputs, raters): seg_id → (doc, source); (system, seg_id) → target; (system, seg_id) →
    rater ids. A segment's rows must agree on its source and each system's target once marks are stripped."""
    segments, outputs, raters = {}, {}, defaultdict(set)
    for line, row in enumerate(rows, start=2):
        seg = int(row["seg_id"])
        source, target = strip_marks(row["source"]), strip_marks(row["target"])
        if segments.setdefault(seg, (row["doc"], source)) != (row["doc"], source):
            sys.exit(f"{RAW / 'mqm_ted_ende.tsv'}:{line}: source of segment {seg} differs between rows")
        if outputs.setdefault((row["system"], seg), target) != target:
            sys.exit(f"{RAW / 'mqm_ted_ende.tsv'}:{line}: target of {row['system']} segment {seg} differs")
        raters[(row["system"], seg)].add(row["rater"])
    return segments, outputs, raters


def read_average_scores(path: Path) -> dict[tuple[str, int], float]:
    """(system, seg_id) → mean MQM over raters; segments that were not annotated (`None`) are left out."""
    scores = {}
    lines = path.read_text(encoding="utf-8").splitlines()
    for line in lines[1:]:
        system, score, seg = line.split()
        if score != "None":
            scores[(AVG_FILE_ALIASES.get(system, system), int(seg))] = float(score)
    return scores


def main() -> None:
    rows = read_error_rows(RAW / "mqm_ted_ende.tsv")
    segments, outputs, raters = segment_texts(rows)
    scores = read_average_scores(RAW / "mqm_ted_ende.avg_seg_scores.tsv")
    systems = sorted({system for system, _ in outputs} - {REFERENCE_SYSTEM})
    seg_ids = sorted(segments)
    missing = [(s, seg) for s in [*systems, REFERENCE_SYSTEM] for seg in seg_ids
               if (s, seg) not in outputs or (s, seg) not in scores]
    if missing:
        sys.exit(f"no target or no MQM score for {missing[:5]} …")

    with (HERE / "corpus.jsonl").open("w", encoding="utf-8") as out:
        for seg in seg_ids:
            doc, source = segments[seg]
            entry = {"id": entry_id(seg), "source": source, "reference": outputs[(REFERENCE_SYSTEM, seg)],
                     "provenance": f"wmt21-ted:{doc}"}
            out.write(json.dumps(entry, ensure_ascii=False) + "\n")

    (HERE / "systems").mkdir(exist_ok=True)
    for system in systems:
        with (HERE / "systems" / f"{method_name(system)}.jsonl").open("w", encoding="utf-8") as out:
            for seg in seg_ids:
                out.write(json.dumps({"id": entry_id(seg), "prediction": outputs[(system, seg)]},
                                     ensure_ascii=False) + "\n")

    with (HERE / "human_scores.csv").open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["method", "id", "human", "annotators"])
        for system in systems:
            for seg in seg_ids:
                writer.writerow([method_name(system), entry_id(seg), repr(scores[(system, seg)] + 0.0),
                                 len(raters[(system, seg)])])
    print(f"{len(seg_ids)} segments, {len(systems)} systems → corpus.jsonl, systems/, human_scores.csv")


def method_name(system: str) -> str:
    """The params.yaml method name of a WMT21 system: `wmt21_` + its lower-case name, `-` as `_`."""
    return "wmt21_" + system.lower().replace("-", "_")


if __name__ == "__main__":
    main()

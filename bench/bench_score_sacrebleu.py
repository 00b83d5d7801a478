"""`lyss score -m chrf_plus_plus,bleu,ter` against the sacrebleu CLI computing the same
(`sacrebleu -m chrf bleu ter --chrf-word-order 2`) on 1,002 real segments, side by side, best of three.

The segments: the WMT21 TED English→German MQM data the project ships (data/corpora/mqm_ted_ende/raw/):
human reference `ref` and the outputs of two systems, 1,002 segments in all.

    .venv/bin/python bench/bench_score_sacrebleu.py [--tsv data/corpora/mqm_ted_ende/raw/mqm_ted_ende.tsv] [--repeats 3]
"""

import argparse
import csv
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
N = 1002


def tsv_rows(tsv: Path) -> dict[tuple[str, str], tuple[str, str]]:
    """(system, segment id) → (source, target without the MQM span marks), once per segment (the file has a row
    per error)."""
    rows: dict[tuple[str, str], tuple[str, str]] = {}
    with tsv.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            target = row["target"].replace("<v>", "").replace("</v>", "")
            rows.setdefault((row["system"], row["seg_id"]), (row["source"], target))
    return rows


def segments(tsv: Path) -> tuple[list[str], list[str], list[str]]:
    """(source, reference, hypothesis) of N segments: two systems' outputs against the human reference."""
    rows = tsv_rows(tsv)
    reference = {seg: text for (system, seg), (_, text) in rows.items() if system == "ref"}
    systems = sorted({s for s, _ in rows} - {"ref"})
    src, ref, hyp = [], [], []
    for system in systems:
        for (s, seg), (source, target) in sorted(rows.items()):
            if s == system and seg in reference and len(src) < N:
                src.append(source), ref.append(reference[seg]), hyp.append(target)
    return src, ref, hyp


def timed(argv: list[str], stdin=None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdin=stdin, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    shipped = Path(__file__).parents[1] / "data/corpora/mqm_ted_ende/raw/mqm_ted_ende.tsv"
    parser.add_argument("--tsv", type=Path, default=shipped)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    src, ref, hyp = segments(args.tsv)
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for name, lines in (("src", src), ("ref", ref), ("hyp", hyp)):
            paths[name] = Path(tmp, name)
            paths[name].write_text("\n".join(line.replace("\n", " ") for line in lines) + "\n", encoding="utf-8")
        lyss = [str(BIN / "lyss"), "score", "-s", paths["src"], "-r", paths["ref"], "-i", paths["hyp"],
                "-l", "eng-deu", "-m", "chrf_plus_plus,bleu,ter"]
        sacre = [str(BIN / "sacrebleu"), paths["ref"], "-i", paths["hyp"], "-m", "chrf", "bleu", "ter",
                 "--chrf-word-order", "2"]
        best = {"lyss": float("inf"), "sacrebleu": float("inf")}
        for _ in range(args.repeats):
            best["lyss"] = min(best["lyss"], timed([str(a) for a in lyss]))
            best["sacrebleu"] = min(best["sacrebleu"], timed([str(a) for a in sacre]))
            best["help"] = min(best.get("help", float("inf")), timed([str(BIN / "lyss"), "--help"]))
    print(f"{len(src)} segments; lyss score {best['lyss']:.2f} s, sacrebleu {best['sacrebleu']:.2f} s, "
          f"ratio {best['lyss'] / best['sacrebleu']:.2f} (target ≤ 1.2); lyss --help {best['help']:.2f} s")


if __name__ == "__main__":
    main()

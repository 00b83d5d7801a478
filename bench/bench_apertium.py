"""Throughput of the `apertium` method against the raw `apertium -u eng-spa` command on the same
10,000 lines, in one process run. Target: ratio (ours / raw throughput) ≥ 0.5."""

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import best_of, scaled  # noqa: E402

from lyss.translate import MethodContext, build_translator  # noqa: E402
from lyss.translate.runner import translate_corpus  # noqa: E402

N = 10_000


def main():
    entries, _ = scaled(N)
    text = "\n".join(e["source"] for e in entries) + "\n"
    context = MethodContext("apertium", {}, "eng", "spa", corpus_ids=[e["id"] for e in entries])

    def raw():
        subprocess.run(["apertium", "-u", "eng-spa"], input=text, capture_output=True, text=True, check=True)

    def ours():
        with tempfile.TemporaryDirectory() as tmp:
            translate_corpus(build_translator("apertium", context), entries, Path(tmp) / "out.jsonl")

    raw_s, ours_s = best_of(raw, 2), best_of(ours, 2)
    print(f"lines: {N} (source lines incl. multi-line entries: {text.count(chr(10))})")
    print(f"raw apertium: {raw_s:.2f} s ({N / raw_s:.0f} entries/s)")
    print(f"lyss apertium method: {ours_s:.2f} s ({N / ours_s:.0f} entries/s)")
    print(f"throughput ratio ours/raw: {raw_s / ours_s:.2f} (target ≥ 0.5)")


if __name__ == "__main__":
    main()

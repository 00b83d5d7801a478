"""Synthetic datasets for the scale benchmark: a corpus of N entries (the demo corpus cycled, ids made
unique, sources and references tagged with the cycle number so no two entries are identical) plus the
outputs of three precomputed "systems" of different quality (references with 0-1, 1-3 and 3-6 seeded
word edits). Deterministic for a given seed.

    .venv/bin/python bench/make_synthetic.py OUT_DIR --sizes 10000 100000

writes OUT_DIR/synth_<n>/{corpus.jsonl,dataset.yaml} and OUT_DIR/synth_<n>/outputs/<system>.jsonl.
"""

import argparse
import json
import random
import sys
import zlib
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import demo_entries, edit  # noqa: E402


class HashingEmbedder:
    """A model-free embedder (bag of words hashed into 256 dimensions) for the misaligned-output caveat in
    the scale benchmark (`caveats.embedder: make_synthetic:HashingEmbedder`, with bench/ on PYTHONPATH), so
    the benchmark measures the pipeline rather than the neural embedder's throughput."""

    name = "bench:hashing-bag-of-words-256"
    DIM = 256

    def embed(self, texts) -> np.ndarray:
        vectors = np.zeros((len(texts), self.DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                vectors[row, zlib.crc32(word.encode()) % self.DIM] += 1.0
        return vectors


SYSTEMS = {"sys_good": (0, 1), "sys_fair": (1, 3), "sys_poor": (3, 6)}  # name → (min, max) word edits


def make_dataset(out_dir: Path, n: int, seed: int = 1) -> Path:
    base = demo_entries()
    folder = out_dir / f"synth_{n}"
    (folder / "outputs").mkdir(parents=True, exist_ok=True)
    rngs = {name: random.Random(f"{seed}:{name}") for name in SYSTEMS}
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as corpus:
        outputs = {name: open(folder / "outputs" / f"{name}.jsonl", "w", encoding="utf-8") for name in SYSTEMS}
        try:
            for i in range(n):
                template = base[i % len(base)]
                cycle = i // len(base)
                entry = {**template, "id": f"s{i:07d}", "source": f"{template['source']} ({cycle})",
                         "reference": f"{template['reference']} ({cycle})",
                         "variants": [f"{v} ({cycle})" for v in template.get("variants", [])]}
                entry = {k: v for k, v in entry.items() if v is not None}
                corpus.write(json.dumps(entry, ensure_ascii=False) + "\n")
                for name, (low, high) in SYSTEMS.items():
                    rng = rngs[name]
                    hypothesis = edit(entry["reference"], rng.randint(low, high), rng)
                    outputs[name].write(json.dumps({"id": entry["id"], "prediction": hypothesis},
                                                   ensure_ascii=False) + "\n")
        finally:
            for handle in outputs.values():
                handle.close()
    (folder / "dataset.yaml").write_text(
        f"id: synth_{n}\nlanguage_pair: eng-spa\nlicence: CC0-1.0\n"
        f'citation: "synthetic: the LYSS demo corpus cycled to {n} entries (bench/make_synthetic.py)"\n',
        encoding="utf-8")
    return folder


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for n in args.sizes:
        print(make_dataset(args.out_dir, n, args.seed))


if __name__ == "__main__":
    main()

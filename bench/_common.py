"""Shared helpers for the benchmarks: synthetic corpora built from the demo corpus, and timing."""

import random
import subprocess
import sys
import time
from pathlib import Path

from lyss.prep.corpus import load_corpus

ROOT = Path(__file__).resolve().parents[1]


def compiled(env: dict) -> None:
    """Byte-compile the lyss package that `lyss` imports under `env`, as `pip install` does for sacrebleu (and
    `make run` for this checkout): with PYTHONDONTWRITEBYTECODE set (as on this machine) a source checkout would
    otherwise compile ~200 modules in every process, a cost no installed package pays."""
    where = subprocess.run([sys.executable, "-c", "import lyss, pathlib; print(pathlib.Path(lyss.__file__).parent)"],
                           check=True, capture_output=True, text=True, env=env).stdout.strip()
    subprocess.run([sys.executable, "-m", "compileall", "-q", where], check=True, env=env)


def demo_entries():
    return load_corpus(ROOT / "data/corpora/demo_eng_spa/corpus.jsonl")


def edit(text: str, n_edits: int, rng: random.Random) -> str:
    """An MT-like hypothesis: `n_edits` seeded word edits (drop, duplicate, swap, reverse a word)."""
    words = text.split()
    for _ in range(n_edits):
        if len(words) < 2:
            break
        i = rng.randrange(len(words))
        op = rng.random()
        if op < 0.35:
            del words[i]
        elif op < 0.6:
            words.insert(i, words[i])
        elif op < 0.85:
            j = rng.randrange(len(words))
            words[i], words[j] = words[j], words[i]
        else:
            words[i] = words[i][::-1]
    return " ".join(words)


def perturb(text: str, rng: random.Random) -> str:
    """A plausible MT-like hypothesis with zero to three word edits."""
    return edit(text, rng.randint(0, 3), rng)


def scaled(n: int, seed: int = 1):
    """n entries cycling the demo corpus, with perturbed hypotheses: (entries, hypotheses)."""
    rng = random.Random(seed)
    base = demo_entries()
    entries, hyps = [], []
    for i in range(n):
        entry = dict(base[i % len(base)], id=f"e{i}")
        entries.append(entry)
        hyps.append(perturb(entry["reference"], rng))
    return entries, hyps


def best_of(fn, repeat: int = 3) -> float:
    """Minimum wall time of `repeat` calls (the least disturbed run)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


class VectorScaling:
    """How many times faster the embedder runs a fixed sample on every core than on one, measured now in this
    process: ≈ 2 where the host gives the machine's two vCPUs two cores' vector units, 1.45–1.7 where they share
    them (docs/performance.md, "The host's two states"). One thread's time does not move between the two states,
    sacrebleu's neither, so a cold line's ratio is read beside the scaling measured just before it."""

    def __init__(self, texts: list[str]):
        from lyss.embed.e5_onnx import OnnxE5

        self.model, self.texts = OnnxE5(), list(dict.fromkeys(texts))
        self.every_core = self.model.workers
        self.model.embed(self.texts[:20])  # the first call's one-time costs stay out of both timings

    def measure(self) -> float:
        seconds = {}
        for workers in (1, self.every_core):
            self.model.workers = workers
            start = time.perf_counter()
            self.model.embed(self.texts)
            seconds[workers] = time.perf_counter() - start
        return seconds[1] / seconds[self.every_core]

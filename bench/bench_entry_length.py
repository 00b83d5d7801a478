"""Peak memory of the string metrics against one entry's length, to show why prep bounds it
(params.yaml `limits.max_entry_chars`, docs/settings.md). Each measurement runs in a fresh process; the
ratio between successive doublings tells linear (≈ 2) from quadratic (≈ 4) growth.

    PYTHONPATH=src python bench/bench_entry_length.py [metric ...]
"""

import argparse
import json
import subprocess
import sys

LENGTHS = [2_500, 5_000, 10_000, 20_000]  # characters; 10,000 is the default limit
CHILD = r"""
import json, random, resource, sys
from lyss.metrics import get_metric
from lyss.metrics.base import ScoringInput
metric, chars = sys.argv[1], int(sys.argv[2])
rng = random.Random(1)
words = []
while sum(len(w) + 1 for w in words) < chars:
    words.append(f"w{rng.randint(0, 500)}")
hyp = " ".join(words)
ref = " ".join(w if rng.random() > 0.3 else "x" for w in words)
data = ScoringInput([{"id": "1", "source": ref, "reference": ref}], [hyp], [hyp], "eng", "spa")
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
get_metric(metric).score(data)
print(json.dumps((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024))
"""


def peak_mb(metric: str, chars: int) -> float:
    done = subprocess.run([sys.executable, "-c", CHILD, metric, str(chars)], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(metrics: list[str]) -> None:
    for metric in metrics:
        previous = None
        for chars in LENGTHS:
            mb = peak_mb(metric, chars)
            ratio = f"  ×{mb / previous:.1f} for ×2 length" if previous and previous > 1 else ""
            print(f"{metric:<16}{chars:>8,} chars  {mb:8.1f} MB above baseline{ratio}")
            previous = mb


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("metrics", nargs="*", default=["ter", "chrf_plus_plus", "bleu"], help="metric ids")
    main(parser.parse_args().metrics)

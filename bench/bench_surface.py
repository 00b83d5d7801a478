"""Scoring the five surface metrics (per-entry values, sufficient statistics, corpus values) for
20,000 entries against sacrebleu computing corpus chrF++, BLEU and TER directly, in one run.
Target: ours ≤ 1.5× sacrebleu's time."""

import sys
from pathlib import Path

import sacrebleu

sys.path.insert(0, str(Path(__file__).parent))
from _common import best_of, scaled  # noqa: E402

from lyss.metrics import ScoringInput, get_metric  # noqa: E402

N = 20_000
SURFACE = ["exact_match_rate", "chrf_plus_plus", "bleu", "ter", "length_ratio"]


def main():
    entries, hyps = scaled(N)
    refs = [e["reference"] for e in entries]
    data = ScoringInput(entries, hyps, hyps, "eng", "spa")
    results = {}

    def ours():
        for metric in SURFACE:
            results[metric] = get_metric(metric).score(data)

    def direct():
        results["sb_chrf"] = sacrebleu.corpus_chrf(hyps, [refs], word_order=2).score
        results["sb_bleu"] = sacrebleu.corpus_bleu(hyps, [refs]).score
        results["sb_ter"] = sacrebleu.corpus_ter(hyps, [refs]).score

    ours_s, direct_s = best_of(ours, 2), best_of(direct, 2)
    print(f"entries: {N}")
    print(f"sacrebleu corpus chrF++/BLEU/TER: {direct_s:.2f} s")
    print(f"lyss five surface metrics (per entry + corpus): {ours_s:.2f} s")
    print(f"time ratio ours/sacrebleu: {ours_s / direct_s:.2f} (target ≤ 1.5)")
    for ours_key, sb_key in (("chrf_plus_plus", "sb_chrf"), ("bleu", "sb_bleu"), ("ter", "sb_ter")):
        print(f"  {ours_key}: lyss {results[ours_key].corpus_value:.6f}  sacrebleu {results[sb_key]:.6f}")


if __name__ == "__main__":
    main()

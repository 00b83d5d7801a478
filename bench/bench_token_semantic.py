"""BERTScore-style token alignment as semantic_score, measured on people before it is built (issue 18, item 1).

    python bench/bench_token_semantic.py [TED_DIR] [--indicmt DIR] [--mafand DIR] [--tokens CACHE.pkl]

TED_DIR is a rated folder shaped like data/corpora/mqm_ted_ende, `--indicmt` the IndicMT-Eval MQM folder
(<Language>.csv; no licence: read from the path given, never copied), `--mafand` the MAFAND-MT dev folder
(dev.eng-<lang>.{eng,<lang>}). Datasets, scoring, composite and statistics are bench/human_agreement.py's
(its per-system results and sentence vectors are cached under /tmp/lyss-human-agreement); this script only
replaces semantic_score's per-entry values by a variant and recomputes the signal's and the composite's
segment Kendall τ per item (with its CI), system Pearson, and the one-sided paired permutation p against
chrF++ (PERM-BOTH, as the evidence stage computes them).

The variants, per entry, with F(a, b) the greedy-matching F1 of BERTScore (Zhang et al., ICLR 2020) over
the embedder's last-layer token vectors of a and b (each token of one matched to its most similar token of
the other by cosine; precision over a's tokens, recall over b's, IDF-weighted with the IDF of the corpus's
references, log((M + 1) / (df + 1)) as BERTScore's `idf=True`), calibrated as semantic_score is against
the chance level c (the mean F of two different references, here over `--shifts` cyclic pairings):

  token_f1            (F(p, r) − c) / (1 − c), clipped to 0–1
  token_f1_src        F(p, r) − max(0, F(p, s) − b) before calibration, b = F(r, s) (scripts shared) or
                      F(p, r) (none shared): today's source rule with F for cos
  token_f1_cos_src    F(p, r) − max(0, cos(p, s) − b_cos) before calibration: today's sentence-level source
                      penalty (pooled cosines) subtracted from the token F1
  mean_cos_token      the mean of today's semantic_score and token_f1_src
  token_precision_src, token_recall_src   token_f1_src with precision or recall for F(p, r) (which side
                      carries the signal)
  *_noidf             the same without IDF (every token weight 1)

The token vectors come from `TokenEncoder` below, the library's own graph with its last layer exposed: the
library is not changed by this measurement (measured and not adopted, docs/validation.md §7).

MAFAND dev gives the sanity rows (mean over entries): the reference (1 by construction), the references
shuffled across segments (issue 18's bar: ≤ 0.35), a copy of the source (near 0), the reference with every
fifth word dropped (high), two adjacent words swapped.

Token vectors are cached by text in `--tokens` (default /tmp/lyss-token-vectors.pkl): TED's ~7,000 outputs
take minutes to embed, the rest is seconds.
"""

import argparse
import os
import pickle
import sys
import time
from dataclasses import replace
from pathlib import Path

import bench_semantic_span as span
import human_agreement as ha
import numpy as np

from lyss.commands.plain_files import Notes, language_cards, load_settings
from lyss.embed.e5_onnx import OnnxE5, batches
from lyss.evidence.correlate import CorrelationOptions, correlation_table, levels_for
from lyss.evidence.orientation import COMPOSITE
from lyss.metrics.base import MetricResult
from lyss.metrics.semantic import shares_a_script
from lyss.stats.correlation import kendall_tau_b
from lyss.text import has_content

SEMANTIC = "semantic_score"


class TokenEncoder:
    """Last-layer token vectors of the project's embedder (lyss.embed.e5_onnx), whose graph outputs the last
    layer and averages it outside the graph. Batches as the library's (windows of one length); E5's `query:`
    prefix, <s> and </s> go through the model but are left out of the result (BERTScore leaves special tokens
    out; the prefix would match across any two texts)."""

    def __init__(self):
        self.embedder = OnnxE5()  # its windows, inputs, batching and last-layer output
        self.weights = self.embedder.weights
        self.prefix = self.weights.tokenize("")[:-1]  # "▁que", "ry", ":"; a text's first token starts with "▁"

    def token_vectors(self, texts: list[str]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per text (token ids (k,), vectors (k, 384) float32); windows of 510 tokens joined in order."""
        windows, owners = [], []
        for i, text in enumerate(texts):
            for window in self.embedder.windows(text):
                windows.append(window)
                owners.append(i)
        pieces = [None] * len(windows)
        for batch in batches([len(w) for w in windows]):
            layer = self.embedder.run([windows[j] for j in batch])
            for row, j in enumerate(batch):
                pieces[j] = layer[row, 1:len(windows[j]) - 1]
        by_text = [[] for _ in texts]
        for j, owner in enumerate(owners):
            by_text[owner].append(j)
        out = []
        for mine in by_text:
            ids = np.asarray([t for j in mine for t in windows[j][1:-1]], dtype=np.int32)
            vectors = np.concatenate([pieces[j] for j in mine]).astype(np.float32)
            skip = len(self.prefix) if ids[:len(self.prefix)].tolist() == self.prefix else 0
            out.append((ids[skip:], vectors[skip:]))
        return out


class TokenTable:
    """text → (token ids, unit token vectors), embedded once and kept in a pickle between runs."""

    def __init__(self, path: Path):
        self.path = path
        self.known = pickle.loads(path.read_bytes()) if path.exists() else {}
        self._model = None
        self.computed = 0

    def get(self, texts) -> list[tuple[np.ndarray, np.ndarray]]:
        missing = list(dict.fromkeys(t for t in texts if t not in self.known))
        if missing:
            self._model = self._model or TokenEncoder()
            started = time.perf_counter()
            for start in range(0, len(missing), 256):
                batch = missing[start:start + 256]
                for text, (ids, vectors) in zip(batch, self._model.token_vectors(batch), strict=True):
                    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
                    self.known[text] = (ids, (vectors / np.maximum(norms, 1e-9)).astype(np.float32))
                self.computed += len(batch)
                print(f"  token vectors {start + len(batch)}/{len(missing)} "
                      f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
                if (start // 256) % 8 == 7:
                    self.save()
            self.save()
        return [self.known[t] for t in texts]

    def save(self) -> None:
        if self.computed:
            tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(pickle.dumps(self.known, protocol=pickle.HIGHEST_PROTOCOL))
            tmp.replace(self.path)
            self.computed = 0


def idf_table(references: list[tuple[np.ndarray, np.ndarray]]) -> dict[int, float]:
    """BERTScore's IDF from the references: log((M + 1) / (df + 1)); a token no reference has gets log(M + 1)."""
    counts: dict[int, int] = {}
    for ids, _ in references:
        for token in set(ids.tolist()):
            counts[token] = counts.get(token, 0) + 1
    m = len(references)
    return {token: float(np.log((m + 1) / (df + 1))) for token, df in counts.items()} | {-1: float(np.log(m + 1))}


def greedy_scores(a, b, idf: dict[int, float] | None) -> tuple[float, float, float]:
    """BERTScore (precision, recall, F1) of candidate a against b: precision = IDF-weighted mean over a's
    tokens of the best cosine with a token of b, recall the same over b's tokens; 0 when a side has none."""
    (ids_a, vec_a), (ids_b, vec_b) = a, b
    if not len(ids_a) or not len(ids_b):
        return 0.0, 0.0, 0.0
    sims = vec_a @ vec_b.T
    default = idf[-1] if idf else 1.0
    w_a = np.array([idf.get(t, default) for t in ids_a.tolist()]) if idf else np.ones(len(ids_a))
    w_b = np.array([idf.get(t, default) for t in ids_b.tolist()]) if idf else np.ones(len(ids_b))
    if w_a.sum() <= 0 or w_b.sum() <= 0:
        return 0.0, 0.0, 0.0
    precision = float(w_a @ sims.max(axis=1) / w_a.sum())
    recall = float(w_b @ sims.max(axis=0) / w_b.sum())
    f1 = 0.0 if precision + recall <= 0 else 2 * precision * recall / (precision + recall)
    return precision, recall, f1


def greedy_f1(a, b, idf: dict[int, float] | None) -> float:
    return greedy_scores(a, b, idf)[2]


def chance_scores(references, idf, shifts: int) -> np.ndarray:
    """Mean (P, R, F1) of reference i against reference (i + k) mod n for k = 1 … shifts: two different
    references, an unrelated fluent output of this corpus (the chance level)."""
    n = len(references)
    pairs = [(i, (i + k) % n) for k in range(1, min(shifts, n - 1) + 1) for i in range(n)]
    return np.mean([greedy_scores(references[i], references[j], idf) for i, j in pairs], axis=0)


def calibrate(similarity, chance: float) -> np.ndarray:
    return np.clip((np.asarray(similarity) - chance) / (1.0 - chance), 0.0, 1.0)


class Variants:
    """Per-entry values of every variant for one corpus (its references fix IDF and chance)."""

    def __init__(self, entries, table: TokenTable, shared: bool, shifts: int):
        self.entries, self.table, self.shared = entries, table, shared
        self.references = table.get([e["reference"] for e in entries])
        self.sources = table.get([e["source"] for e in entries])
        self.idf = idf_table(self.references)
        chance = {idf: chance_scores(self.references, self.idf if idf else None, shifts) for idf in (True, False)}
        self.chance = {idf: float(scores[2]) for idf, scores in chance.items()}  # of F1
        self.side_chance = chance[True][:2]  # of precision and recall, with IDF

    def values(self, predictions, current: MetricResult | None = None) -> dict[str, np.ndarray]:
        """variant → per-entry values; `current` (today's semantic_score result) gives the pooled cosines."""
        content = np.array([has_content(p) for p in predictions])
        tokens = self.table.get([p if c else "" for p, c in zip(predictions, content, strict=True)])
        out = {}
        for idf in (True, False):
            weights, chance, tag = (self.idf if idf else None), self.chance[idf], "" if idf else "_noidf"
            to_ref = np.array([greedy_f1(p, r, weights) for p, r in zip(tokens, self.references, strict=True)])
            to_src = np.array([greedy_f1(p, s, weights) for p, s in zip(tokens, self.sources, strict=True)])
            ref_src = np.array([greedy_f1(r, s, weights) for r, s in zip(self.references, self.sources, strict=True)])
            baseline = ref_src if self.shared else to_ref
            out[f"token_f1{tag}"] = calibrate(to_ref, chance)
            if idf:  # which side carries the signal: precision (output tokens found) or recall (reference covered)
                both = np.array([greedy_scores(p, r, weights) for p, r in zip(tokens, self.references, strict=True)])
                for k, side in enumerate(("precision", "recall")):
                    out[f"token_{side}_src"] = calibrate(both[:, k] - np.maximum(0.0, to_src - baseline),
                                                         self.side_chance[k])
            out[f"token_f1_src{tag}"] = calibrate(to_ref - np.maximum(0.0, to_src - baseline), chance)
            if current is not None:
                cos = {k: np.nan_to_num(current.columns[k]) for k in ("cos_reference", "cos_source",
                                                                       "cos_reference_source")}
                cos_base = cos["cos_reference_source"] if self.shared else cos["cos_reference"]
                out[f"token_f1_cos_src{tag}"] = calibrate(to_ref - np.maximum(0.0, cos["cos_source"] - cos_base),
                                                          chance)
                out[f"mean_cos_token{tag}"] = (current.values + out[f"token_f1_src{tag}"]) / 2
            for name in [k for k in out if k.endswith(tag)]:
                out[name] = np.where(content, out[name], 0.0)
        return out


# ---------------------------------------------------------------- people

def measure_rated(dataset, settings, languages: Path, cache, table: TokenTable, args) -> None:
    started = time.perf_counter()
    scored = ha.score_dataset(dataset, settings, languages, cache)
    _, _, src_card, tgt_card = language_cards(dataset["language_pair"], languages, Notes())
    variants = Variants(dataset["entries"], table, shares_a_script(src_card, tgt_card), args.shifts)
    per_system = {s: variants.values(dataset["predictions"][s], scored["results"][s][SEMANTIC])
                  for s in dataset["systems"]}
    options = CorrelationOptions(group_by_item=True, resamples=args.resamples, permutations=args.permutations,
                                 seed=args.seed, statistics=("kendall", "pearson"))
    print(f"\n## {dataset['name']}: {len(dataset['systems'])} systems × {len(dataset['entries'])} items; "
          f"chance F1 {variants.chance[True]:.3f} (IDF) / {variants.chance[False]:.3f} (no IDF); "
          f"scripts shared: {variants.shared}")
    print("| semantic_score as | signal τ per item [CI] | composite τ per item [CI] | composite − chrF++ (p) "
          "| composite sys r (p) | mean value | signal ~ chrF++ τ per item |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in ["today", *next(iter(per_system.values()))]:
        results = scored["results"] if name == "today" else {
            s: {**r, SEMANTIC: MetricResult(SEMANTIC, per_system[s][name], float(per_system[s][name].mean()))}
            for s, r in scored["results"].items()}
        data, _, _ = ha.score_data(dataset, {**scored, "results": results})
        data = replace(data, metrics={m: data.metrics[m] for m in (COMPOSITE, ha.BASELINE, SEMANTIC)},
                       corpus={m: c for m, c in data.corpus.items() if m in (COMPOSITE, ha.BASELINE, SEMANTIC)})
        rows = {(r["level"], r["metric"]): r for r in correlation_table(data, levels_for(data, options), options)}
        tests = ha.against_baseline(data, options)
        lead = rows[("segment", COMPOSITE)]["kendall"] - rows[("segment", ha.BASELINE)]["kendall"]
        mean = np.mean([results[s][SEMANTIC].values.mean() for s in dataset["systems"]])
        print(f"| {name} | {_tau(rows, SEMANTIC)} | {_tau(rows, COMPOSITE)} | {lead:+.3f} "
              f"({tests[COMPOSITE]['segment_kendall']:.3f}) "
              f"| {rows[('system', COMPOSITE)]['pearson']:+.3f} ({tests[COMPOSITE]['system_pearson']:.3f}) "
              f"| {mean:.3f} | {like_chrf(data):.3f} |")
    base = rows[("segment", ha.BASELINE)]
    print(f"chrF++ τ per item {base['kendall']:+.3f}, system r {rows[('system', ha.BASELINE)]['pearson']:+.3f} "
          f"({time.perf_counter() - started:.0f} s)")
    cache.save_vectors(None)


def like_chrf(data) -> float:
    """Mean Kendall τ-b per item between semantic_score and chrF++: how far the signal only repeats chrF++'s
    ranking of a segment's translations (what it can add to a composite that already weighs chrF++)."""
    items = np.asarray(data.items)
    taus = [kendall_tau_b(data.metrics[SEMANTIC][items == item], data.metrics[ha.BASELINE][items == item])
            for item in dict.fromkeys(data.items)]
    return float(np.nanmean(taus))


def _tau(rows: dict, metric: str) -> str:
    r = rows[("segment", metric)]
    return f"{r['kendall']:+.3f} [{r['kendall_lo']:+.3f}, {r['kendall_hi']:+.3f}]"


# ---------------------------------------------------------------- sanity rows

def measure_mafand(folder: Path, languages: Path, table: TokenTable, args) -> None:
    print("\n## MAFAND dev sanity rows (mean over entries; chance F1 in brackets)")
    print("| dataset | chance | reference | shuffled | copy of source | drop 1 in 5 words | swap 2 words |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for data in span.mafand(folder):
        _, _, src_card, tgt_card = language_cards(data.pair, languages, Notes())
        variants = Variants(data.entries, table, shares_a_script(src_card, tgt_card), args.shifts)
        probes = span.probes(data)
        probes = {k: probes[k] for k in ("reference", "shuffled reference", "copy of source", "drop 1 in 5 words",
                                         "swap 2 adjacent words")}
        values = {k: variants.values(v) for k, v in probes.items()}
        for name in values["reference"]:
            cells = " | ".join(f"{values[k][name].mean():.3f}" for k in probes)
            chance = variants.chance["noidf" not in name]
            print(f"| {data.name} {name} | {chance:.3f} | {cells} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="*", type=Path, help="rated dataset folders (mqm_ted_ende layout)")
    parser.add_argument("--indicmt", type=Path, help="folder with IndicMT-Eval <Language>.csv files")
    parser.add_argument("--mafand", type=Path, help="MAFAND-MT dev folder (sanity rows)")
    parser.add_argument("--params", type=Path, default=ha.ROOT / "params.yaml")
    parser.add_argument("--languages", type=Path, default=ha.ROOT / "data/languages")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/lyss-human-agreement"))
    parser.add_argument("--tokens", type=Path, default=Path("/tmp/lyss-token-vectors.pkl"))
    parser.add_argument("--shifts", type=int, default=20, help="cyclic pairings of references for the chance F1")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    settings = load_settings(args.params, Notes())
    cache = ha.Cache(args.cache, ha.code_key(args.params, args.languages))
    table = TokenTable(args.tokens)
    print(f"load average {os.getloadavg()[0]:.1f}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    if args.mafand:
        measure_mafand(args.mafand, args.languages, table, args)
    rated = []
    if args.indicmt:
        rated += [ha.indicmt(args.indicmt / f"{name}.csv", code) for name, code in (("Gujarati", "guj"),
                                                                                   ("Marathi", "mar"))]
    rated += [ha.ted_like(folder) for folder in args.datasets]
    for dataset in rated:
        measure_rated(dataset, settings, args.languages, cache, table, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Does semantic_score span its scale? Probe table and agreement with people (issue 18, item 1).

    python bench/bench_semantic_span.py DATA_DIR [DATA_DIR ...] [--cache vectors.npz] [--items N]

Each DATA_DIR is recognised by its files:
  MAFAND-MT dev      dev.eng-<lang>.eng + dev.eng-<lang>.<lang>: one dataset per language
  LYSS corpus        corpus.jsonl (+ systems/*.jsonl and human_scores.csv: the shipped TED MQM);
                     without systems/, `apertium <pair>` translates the sources (the demo)
  IndicMT-Eval MQM   <Language>.csv with Source, Reference, Translation, Human_scores, model

Probes on every dataset: the reference itself (the ideal, 1.0), the references shuffled across segments (fluent
text about something else: should sit near 0), a copy of the source (must stay low), two paraphrases of the
reference (every fifth word dropped; two adjacent words swapped) and the real systems where there are any.
Where human scores exist it prints, beside chrF++, the segment-level Kendall τ-b per item (systems ranked
within a segment, averaged over segments) and the system-level Pearson r of the means.

Vectors are embedded once per distinct text; `--cache` keeps them between runs (the rest is seconds).
"""

import argparse
import csv
import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np

from lyss.embed.embedders import Embeddings
from lyss.metrics import ScoringInput
from lyss.metrics.semantic import SemanticScore, root_mean_square_score, source_penalised_similarity
from lyss.stats.correlation import kendall_tau_b, weighted_pearson

SEED = 18


class Dataset:
    """Entries (id, source, reference), named system outputs, and human scores by (system, id) if rated."""

    def __init__(self, name, pair, entries, systems=None, human=None):
        self.name, self.pair, self.entries = name, pair, entries
        self.systems = systems or {}
        self.human = human or {}


def mafand(folder: Path) -> list[Dataset]:
    out = []
    for eng in sorted(folder.glob("dev.eng-*.eng")):
        lang = eng.name.split(".")[1].split("-")[1]
        sources = eng.read_text(encoding="utf-8").splitlines()
        references = (folder / f"dev.eng-{lang}.{lang}").read_text(encoding="utf-8").splitlines()
        entries = [{"id": str(i), "source": s, "reference": r}
                   for i, (s, r) in enumerate(zip(sources, references, strict=True))]
        out.append(Dataset(f"mafand eng-{lang}", f"eng-{lang}", entries))
    return out


def lyss_corpus(folder: Path) -> Dataset:
    entries = [json.loads(line) for line in (folder / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    pair = (folder / "dataset.yaml").read_text(encoding="utf-8").split("language_pair:")[1].split()[0]
    systems, human = {}, {}
    for path in sorted((folder / "systems").glob("*.jsonl")):
        rows = {r["id"]: r["prediction"] for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}
        systems[path.stem] = [rows.get(e["id"]) for e in entries]
    if (folder / "human_scores.csv").exists():
        with open(folder / "human_scores.csv", encoding="utf-8") as handle:
            human = {(r["method"], r["id"]): float(r["human"]) for r in csv.DictReader(handle)}
    if not systems:
        systems["apertium"] = apertium(pair, [e["source"] for e in entries])
    return Dataset(folder.name, pair, entries, systems, human)


def apertium(pair: str, sources: list[str]) -> list[str]:
    """`apertium -u <pair>`, one source per line (the demo has no other system)."""
    text = "\n".join(s.replace("\n", " ") for s in sources) + "\n"
    done = subprocess.run(["apertium", "-u", pair], input=text, capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    if len(lines) != len(sources):
        raise SystemExit(f"apertium {pair}: {len(lines)} lines for {len(sources)} sources")
    return lines


def indicmt(path: Path) -> Dataset:
    """One entry per distinct source; each model's rated output of it is a system output."""
    with open(path, encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r["Human_scores"].strip()]
    index, entries, systems, human = {}, [], {}, {}
    for row in rows:
        key = row["Source"].strip()
        if key not in index:
            index[key] = str(len(entries))
            entries.append({"id": index[key], "source": row["Source"], "reference": row["Reference"]})
    for row in rows:
        entry_id = index[row["Source"].strip()]
        outputs = systems.setdefault(row["model"], {})
        if entry_id not in outputs:  # a source rated twice for one model: the first rating
            outputs[entry_id] = row["Translation"]
            human[(row["model"], entry_id)] = float(row["Human_scores"])
    lang = {"Gujarati": "guj", "Marathi": "mar"}.get(path.stem, path.stem.lower()[:3])
    as_lists = {m: [o.get(e["id"]) for e in entries] for m, o in systems.items()}
    return Dataset(f"indicmt eng-{lang}", f"eng-{lang}", entries, as_lists, human)


def datasets(folder: Path) -> list[Dataset]:
    if list(folder.glob("dev.eng-*.eng")):
        return mafand(folder)
    if (folder / "corpus.jsonl").exists():
        return [lyss_corpus(folder)]
    found = [indicmt(p) for p in sorted(folder.glob("*.csv"))]
    if not found:
        raise SystemExit(f"{folder}: neither MAFAND dev files, corpus.jsonl nor IndicMT csv files")
    return found


def drop_every_fifth(text: str) -> str:
    words = text.split()
    return " ".join(w for i, w in enumerate(words) if i % 5 != 4)


def swap_adjacent(text: str) -> str:
    words = text.split()
    if len(words) >= 2:
        i = len(words) // 2 - 1 if len(words) > 2 else 0
        words[i], words[i + 1] = words[i + 1], words[i]
    return " ".join(words)


def derangement(n: int, rng: random.Random) -> list[int]:
    """A seeded permutation with no fixed point: entry i gets the reference of entry order[i] ≠ i."""
    while True:
        order = list(range(n))
        rng.shuffle(order)
        if all(i != j for i, j in enumerate(order)):
            return order


def probes(data: Dataset) -> dict[str, list]:
    references = [e["reference"] for e in data.entries]
    order = derangement(len(references), random.Random(SEED))
    return {"reference": references,
            "shuffled reference": [references[j] for j in order],
            "copy of source": [e["source"] for e in data.entries],
            "drop 1 in 5 words": [drop_every_fifth(r) for r in references],
            "swap 2 adjacent words": [swap_adjacent(r) for r in references],
            **data.systems}


def semantic(data: Dataset, predictions, table: Embeddings):
    """(corpus value, per-entry values, per-entry uncalibrated similarity, result), NaN where a system has no
    output. The corpus is every entry (the chance level is the corpus's); missing outputs are scored as empty,
    then left out (of the corpus value too: its formula over the rows of the outputs there are)."""
    source, target = data.pair.split("-")
    given = [p or "" for p in predictions]
    result = SemanticScore().score(ScoringInput(data.entries, given, given, source, target, embeddings=table))
    missing = np.array([p is None for p in predictions])
    cosines = [np.nan_to_num(result.columns[k]) for k in ("cos_reference", "cos_source", "cos_reference_source")]
    corpus = float(root_mean_square_score(result.stats[~missing].sum(axis=0)))
    return (corpus, np.where(missing, np.nan, result.values),
            np.where(missing, np.nan, source_penalised_similarity(*cosines)), result)


def chrf(data: Dataset, predictions) -> np.ndarray:
    from sacrebleu.metrics import CHRF

    metric = CHRF(word_order=2)
    return np.array([np.nan if p is None else metric.sentence_score(p, [e["reference"]]).score
                     for e, p in zip(data.entries, predictions, strict=True)])


def agreement(data: Dataset, per_system: dict[str, np.ndarray]) -> tuple[float, float, int]:
    """(mean Kendall τ-b per item over items rated for ≥ 2 systems, system Pearson of means, items)."""
    systems = [s for s in data.systems if any((s, e["id"]) in data.human for e in data.entries)]
    grid_h = np.array([[data.human.get((s, e["id"]), np.nan) for s in systems] for e in data.entries])
    grid_m = np.array([per_system[s] for s in systems]).T
    taus = []
    for h, m in zip(grid_h, grid_m, strict=True):
        rated = ~np.isnan(h) & ~np.isnan(m)
        if rated.sum() >= 2:
            taus.append(kendall_tau_b(h[rated], m[rated]))
    valid = ~np.isnan(grid_h) & ~np.isnan(grid_m)
    means_h = [grid_h[valid[:, k], k].mean() for k in range(len(systems))]
    means_m = [grid_m[valid[:, k], k].mean() for k in range(len(systems))]
    return float(np.nanmean(taus)), float(weighted_pearson(np.array(means_m), np.array(means_h))), len(taus)


def load_table(cache: Path | None) -> Embeddings:
    if cache and cache.exists():
        stored = np.load(cache, allow_pickle=False)
        return Embeddings(known=dict(zip(stored["texts"].tolist(), stored["vectors"], strict=True)))
    return Embeddings()


def save_table(table: Embeddings, cache: Path | None) -> None:
    if cache and table.computed:
        texts = list(table._vectors)
        np.savez(cache, texts=np.array(texts), vectors=np.stack([table._vectors[t] for t in texts]))


def report(data: Dataset, table: Embeddings, items: int | None) -> None:
    if items:
        data.entries = data.entries[:items]
        data.systems = {s: o[:items] for s, o in data.systems.items()}
    runs = probes(data)
    print(f"\n## {data.name} ({len(data.entries)} segments)\n")
    print("| probe | semantic_score (corpus) | mean of the entries | uncalibrated (before) | mean cos(p, r) |")
    print("|---|---|---|---|---|")
    calibrated, uncalibrated, corpus = {}, {}, {}
    for name, predictions in runs.items():
        corpus[name], calibrated[name], uncalibrated[name], result = semantic(data, predictions, table)
        raw = np.nanmean(np.where(np.isnan(calibrated[name]), np.nan, result.columns["cos_reference"]))
        print(f"| {name} | {corpus[name]:.3f} | {np.nanmean(calibrated[name]):.3f} | "
              f"{np.nanmean(uncalibrated[name]):.3f} | {raw:.3f} |")
    print(f"\nchance_cosine {result.details['chance_cosine']} ({result.details['embedder']})")
    real = list(data.systems)
    if real:
        spread = [corpus[s] for s in real]
        print(f"real systems: {min(spread):.3f}–{max(spread):.3f}; "
              f"margin over the shuffled references {min(spread) - corpus['shuffled reference']:.3f}")
    if data.human:
        chrf_values = {s: chrf(data, data.systems[s]) for s in real}
        for label, values in (("semantic_score", calibrated), ("uncalibrated (before)", uncalibrated),
                              ("chrF++", chrf_values)):
            tau, pearson, n_items = agreement(data, values)
            print(f"{label}: segment Kendall τ-b per item {tau:.4f} ({n_items} items), system Pearson {pearson:.4f}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--cache", type=Path, help="npz file of vectors kept between runs")
    parser.add_argument("--items", type=int, help="first N segments of each dataset only")
    args = parser.parse_args(argv)
    table = load_table(args.cache)
    for folder in args.folders:
        for data in datasets(folder):
            report(data, table, args.items)
            save_table(table, args.cache)
            sys.stdout.flush()


if __name__ == "__main__":
    main()

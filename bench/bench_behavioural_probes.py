"""hallucination_rate and code_switching_rate on real text, before and after a change (issue 18).

    bench_behavioural_probes.py --ted data/corpora/mqm_ted_ende --ted-mqm <folder of mqm_ted_ende.avg_seg_scores.tsv>
                                --mafand <folder of dev.eng-<lang>.*> [--baseline <git revision>]

"Before" is src/lyss/metrics/behavioural.py as it was at `--baseline` (read with `git show`), "after" the
working tree's. Both score the same probes with the same shared embedding table:

- TED en→de (529 segments): the 13 WMT21 systems against the corpus reference; the human translation (`ref`, the
  corpus reference) scored against each system's output as its reference, i.e. a second independent translation
  judged against another one (TED has a single human translation); the reference with correct noun paraphrases
  (lines that contain one of PARAPHRASES); a copy of the source; the reference of the next segment (shuffled);
  the reference with three English source words spliced into every fourth line.
- MAFAND dev en→{yor, swa, hau, zul, amh}: reference, copy of the source, the spliced reference.

Columns: the corpus rate (Σ flagged / Σ units), the share of outputs with a flagged unit, and for rated
outputs the share of flagged outputs that MQM calls error-free (score 0) beside the base rate of error-free ones.
"""

import argparse
import json
import random
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np

from lyss.embed.embedders import get_embedder
from lyss.languages import card_for
from lyss.metrics import ScoringInput
from lyss.metrics import behavioural as after

ROOT = Path(__file__).resolve().parents[1]
MAFAND = ("yor", "swa", "hau", "zul", "amh")
# Correct German noun paraphrases (synonyms a translator may choose), applied as whole words.
PARAPHRASES = {"Haus": "Gebäude", "Mutter": "Mama", "Auto": "Wagen", "Sitzung": "Treffen", "Menschen": "Leute",
               "Problem": "Schwierigkeit", "Idee": "Einfall", "Frage": "Fragestellung", "Arbeit": "Tätigkeit",
               "Kinder": "Kids", "Geschichte": "Erzählung", "Beispiel": "Exempel", "Ende": "Schluss",
               "Stadt": "Ortschaft", "Weg": "Pfad", "Anfang": "Beginn", "Ziel": "Zweck", "Land": "Staat",
               "Moment": "Augenblick", "Teil": "Anteil", "Sache": "Angelegenheit", "Bild": "Abbildung",
               "Daten": "Informationen", "Firma": "Unternehmen", "Erde": "Welt"}


def load_baseline(revision: str) -> types.ModuleType:
    """behavioural.py as it was at `revision`, as a module of its own."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{revision}:src/lyss/metrics/behavioural.py"],
                            check=True, capture_output=True, text=True).stdout
    module = types.ModuleType(f"behavioural_{revision}")
    exec(compile(source, f"behavioural.py@{revision}", "exec"), module.__dict__)  # noqa: S102 - our own code
    return module


def paraphrased(text: str) -> str:
    import regex

    return regex.sub(r"\b(" + "|".join(PARAPHRASES) + r")\b", lambda m: PARAPHRASES[m.group(1)], text)


def spliced(entries: list[dict], seed: int = 18) -> tuple[list[str], list[list[str]]]:
    """References with three consecutive (lower-cased) source words inserted mid-line in every fourth line;
    the inserted words of each line."""
    rng, out, pieces = random.Random(seed), [], []
    for i, entry in enumerate(entries):
        words, piece = entry["reference"].split(), []
        if i % 4 == 0 and len(entry["source"].split()) > 4:
            source = [w.strip(".,;:!?\"“”'()") for w in entry["source"].split()]
            start = rng.randrange(1, len(source) - 3)
            piece = [w.lower() for w in source[start:start + 3]]
            at = len(words) // 2
            words[at:at] = piece
        out.append(" ".join(words))
        pieces.append(piece)
    return out, pieces


def recall(result, pieces: list[list[str]]) -> float:
    """Share of the spliced words that code_switching_rate lists among the entry's switched words."""
    found = sum(sum(w in row.casefold().split() for w in piece)
                for row, piece in zip(result.columns["switched_words"], pieces, strict=True))
    return found / max(1, sum(map(len, pieces)))


def switching_rows(metric, entries, pair, cards, embeddings) -> dict:
    """code_switching_rate on the reference and the spliced reference judged without their reference (no
    entry's reference to clear a word): what the evidence rules alone say of clean and of mixed text."""
    blank = [dict(e, reference="") for e in entries]
    refs = [e["reference"] for e in entries]
    mixed, pieces = spliced(entries)
    mixed_result = score(metric, blank, mixed, pair, cards, embeddings)
    return {"reference, judged without a reference": summary(score(metric, blank, refs, pair, cards, embeddings)),
            "spliced, judged without a reference": summary(mixed_result) | {"recall": recall(mixed_result, pieces)}}


def score(metric, entries, predictions, pair, cards, embeddings, references=None):
    if references is not None:
        entries = [dict(e, reference=r) for e, r in zip(entries, references, strict=True)]
    data = ScoringInput(entries, predictions, predictions, *pair, *cards, {}, embeddings)
    return metric().score(data)


def summary(result, human=None) -> dict:
    stats = result.stats
    flagged = stats[:, 0] > 0
    row = {"rate": result.corpus_value, "flagged": float(flagged[stats[:, 1] > 0].mean())}
    if human is not None:
        rated = ~np.isnan(human)
        clean = human[rated] == 0
        row["clean_flagged"] = float(clean[flagged[rated]].mean()) if flagged[rated].any() else float("nan")
        row["clean_base"] = float(clean.mean())
    return row


def pooled(results: list, humans: list | None = None) -> dict:
    stats = np.vstack([r.stats for r in results])
    fake = types.SimpleNamespace(stats=stats, corpus_value=float(stats[:, 0].sum() / stats[:, 1].sum()))
    return summary(fake, None if humans is None else np.concatenate(humans))


def read_mqm(path: Path) -> dict[tuple[str, str], float]:
    """(system, entry id) → published MQM (0 = no error); the averaged file names the human `ref-A`."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        system, value, seg = line.split()
        if value != "None":
            out[(system, f"ted-{int(seg):03d}")] = float(value)
    return out


def ted_probes(folder: Path, mqm_folder: Path) -> tuple:
    entries = [json.loads(line) for line in (folder / "corpus.jsonl").read_text().splitlines()]
    mqm = read_mqm(mqm_folder / "mqm_ted_ende.avg_seg_scores.tsv")
    systems = {}
    for path in sorted((folder / "systems").glob("*.jsonl")):
        rows = {r["id"]: r["prediction"] for r in map(json.loads, path.read_text().splitlines())}
        systems[path.stem] = [rows.get(e["id"]) for e in entries]
    mqm_names = {s.removeprefix("wmt21_"): s for s in systems}
    human = {}
    for (system, entry_id), value in mqm.items():
        key = system.lower().replace("-", "_")
        if key in mqm_names:
            human.setdefault(mqm_names[key], {})[entry_id] = value
    humans = {s: np.array([human[s].get(e["id"], np.nan) for e in entries]) for s in systems}
    human_ref = np.array([mqm.get(("ref-A", e["id"]), np.nan) for e in entries])
    return entries, systems, humans, human_ref


def ted_rows(module, metric_name, entries, systems, humans, human_ref, cards, embeddings):
    metric = getattr(module, metric_name)
    pair = ("eng", "deu")
    refs = [e["reference"] for e in entries]
    rows = {}
    results = [score(metric, entries, out, pair, cards, embeddings) for out in systems.values()]
    rows["13 WMT21 systems vs reference"] = pooled(results, list(humans.values()))
    if metric_name == "HallucinationRate":
        second = [score(metric, entries, refs, pair, cards, embeddings, references=out) for out in systems.values()]
        rows["human translation vs each system as reference"] = pooled(second, [human_ref] * len(systems))
        changed = [i for i, r in enumerate(refs) if paraphrased(r) != r]
        sub = [entries[i] for i in changed]
        rows[f"noun paraphrases ({len(changed)} lines)"] = summary(
            score(metric, sub, [paraphrased(refs[i]) for i in changed], pair, cards, embeddings))
        rows["shuffled (next segment's reference)"] = summary(
            score(metric, entries, refs[1:] + refs[:1], pair, cards, embeddings))
    rows["reference"] = summary(score(metric, entries, refs, pair, cards, embeddings))
    rows["copy of the source"] = summary(score(metric, entries, [e["source"] for e in entries], pair, cards,
                                               embeddings))
    mixed, pieces = spliced(entries)
    rows[f"reference + English spliced in 1/4 of lines ({sum(map(len, pieces))} words)"] = summary(
        score(metric, entries, mixed, pair, cards, embeddings))
    if metric_name == "CodeSwitchingRate":
        rows |= switching_rows(metric, entries, pair, cards, embeddings)
    return rows


def mafand_rows(module, metric_name, folder: Path, embeddings):
    metric = getattr(module, metric_name)
    rows = {}
    for lang in MAFAND:
        sources = (folder / f"dev.eng-{lang}.eng").read_text(encoding="utf-8").splitlines()
        targets = (folder / f"dev.eng-{lang}.{lang}").read_text(encoding="utf-8").splitlines()
        pairs = enumerate(zip(sources, targets, strict=True))
        entries = [{"id": str(i), "source": s, "reference": t} for i, (s, t) in pairs]
        cards, pair = (card_for("eng"), card_for(lang)), ("eng", lang)
        refs = [e["reference"] for e in entries]
        mixed, pieces = spliced(entries)
        n_words = sum(len(r.split()) for r in mixed)
        for name, outputs in (("reference", refs), ("copy of the source", sources),
                              (f"spliced (true share {sum(map(len, pieces)) / n_words:.3f})", mixed),
                              ("shuffled", refs[1:] + refs[:1])):
            if metric_name == "CodeSwitchingRate" and name == "shuffled":
                continue
            rows[f"{lang}: {name}"] = summary(score(metric, entries, outputs, pair, cards, embeddings))
        if metric_name == "CodeSwitchingRate":
            rows |= {f"{lang}: {k}": v for k, v in switching_rows(metric, entries, pair, cards, embeddings).items()}
    return rows


def save_cache(path: Path, embeddings) -> None:
    texts = list(embeddings._vectors)  # the table's own memo: this script owns the process
    np.savez(path, texts=np.array(texts), vectors=np.stack([embeddings._vectors[t] for t in texts]))
    embeddings.computed = 0


def fmt(row: dict | None) -> str:
    if row is None:
        return "—"
    text = f"{row['rate']:.4f} / {row['flagged']:.3f}"
    if "recall" in row:
        text += f" / recall {row['recall']:.2f}"
    if "clean_flagged" in row:
        text += f" / {row['clean_flagged']:.2f} (base {row['clean_base']:.2f})"
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ted", type=Path, default=ROOT / "data/corpora/mqm_ted_ende")
    parser.add_argument("--ted-mqm", type=Path, required=True, help="folder with mqm_ted_ende.avg_seg_scores.tsv")
    parser.add_argument("--mafand", type=Path, help="folder with dev.eng-<lang>.eng / .<lang> (MAFAND-MT dev)")
    parser.add_argument("--baseline", default="848ed7d", help="git revision of the 'before' behavioural.py")
    parser.add_argument("--metric", choices=["hallucination", "code_switching", "both"], default="both")
    parser.add_argument("--cache", type=Path, help="a .npz of sentence vectors kept between runs")
    args = parser.parse_args()
    before = load_baseline(args.baseline)
    embeddings = get_embedder()
    if args.cache and args.cache.exists():
        cached = np.load(args.cache, allow_pickle=False)
        embeddings.add(list(cached["texts"]), cached["vectors"])
    cards = (card_for("eng"), card_for("deu"))
    entries, systems, humans, human_ref = ted_probes(args.ted, args.ted_mqm)
    metrics = {"hallucination": ["HallucinationRate"], "code_switching": ["CodeSwitchingRate"],
               "both": ["HallucinationRate", "CodeSwitchingRate"]}[args.metric]
    for metric_name in metrics:
        tables = {}
        for label, module in (("before", before), ("after", after)):
            start = time.perf_counter()
            rows = ted_rows(module, metric_name, entries, systems, humans, human_ref, cards, embeddings)
            if args.mafand:
                rows |= mafand_rows(module, metric_name, args.mafand, embeddings)
            tables[label] = rows
            if args.cache and embeddings.computed:
                save_cache(args.cache, embeddings)
            print(f"[{metric_name} {label}: {time.perf_counter() - start:.1f} s]", file=sys.stderr)
        print(f"\n{metric_name}: corpus rate / share of outputs flagged / share of flagged outputs error-free "
              "by MQM (base rate)\n")
        print(f"| probe | before ({args.baseline}) | after |\n| --- | --- | --- |")
        for probe in dict.fromkeys([*tables["before"], *tables["after"]]):
            print(f"| {probe} | {fmt(tables['before'].get(probe))} | {fmt(tables['after'].get(probe))} |")


if __name__ == "__main__":
    main()

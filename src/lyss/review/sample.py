"""Which outputs the speakers review, who rates which, and in what blind order: the study key.

The unit is a source segment with every reviewed system's output of it, as in WMT's segment-level studies:
every system is rated on the same segments (stratified by system, so the systems' verdicts and the
metric–human agreement per segment compare like with like), and so every composite band a system reaches is
reviewed. Segments are drawn at random within each document (the corpus field `provenance`), in proportion
to the document's size. Segment j goes to the `overlap` packets j, j+1, … (mod `speakers`): every packet gets
the same load and neighbouring packets share outputs, which is what agreement is measured on.

Item ids are opaque and shuffled, and a packet shows its segments and each segment's systems in a shuffled
order, so nothing on the page says which system wrote an output; the key that unblinds them stays with the
study (`key.json`), never in the page.
"""

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from lyss.errors import InputError
from lyss.io import iter_jsonl, read_json
from lyss.review.settings import ReviewSettings

KEY_FORMAT = "lyss-review-key"


@dataclass(frozen=True)
class System:
    """What the run card says about a reviewed method (the key keeps it; the page never shows it)."""

    composite: float | None
    tier: str | None


def read_outputs(path) -> dict[str, str]:
    """Entry id → output, from results/translations/<dataset>/<method>.jsonl; failed or empty outputs are
    left out (there is nothing to rate)."""
    outputs = {}
    for line, record in iter_jsonl(path):
        if "id" not in record:
            raise InputError(path, "record without an id", line=line, field="id")
        prediction = record.get("prediction")
        if record.get("error") is None and isinstance(prediction, str) and prediction.strip():
            outputs[str(record["id"])] = prediction
    return outputs


def read_system(card_path) -> tuple[str, System] | None:
    """(method kind, composite and tier) of a run card, results/runs/<dataset>/<method>.json."""
    card = read_json(card_path)
    scores = card.get("scores") or {}
    return card["method"]["kind"], System(scores.get("composite"), scores.get("quality_tier"))


def dataset_runs(results_dir, dataset: str) -> dict[str, tuple[Path, Path]]:
    """Method → (translations, run card) for every run card of the dataset except the reference oracle."""
    runs = {}
    for card in sorted(Path(results_dir, "runs", dataset).glob("*.json")):
        translations = Path(results_dir, "translations", dataset, f"{card.stem}.jsonl")
        if read_system(card)[0] != "reference" and translations.exists():
            runs[card.stem] = (translations, card)
    if not runs:
        raise InputError(Path(results_dir, "runs", dataset), "no run card with its translations: run the pipeline "
                         "for this dataset first")
    return runs


def _allocate(sizes: list[int], total: int) -> list[int]:
    """Largest-remainder split of `total` in proportion to `sizes`."""
    exact = np.asarray(sizes, dtype=float) * total / sum(sizes)
    counts = np.floor(exact).astype(int)
    for k in np.argsort(-(exact - counts), kind="stable")[: total - counts.sum()]:
        counts[k] += 1
    return counts.tolist()


def draw_segments(entries: list[dict], count: int, rng) -> list[dict]:
    """`count` entries drawn without replacement, stratified by document, in random order."""
    documents: dict[str, list[dict]] = {}
    for entry in entries:
        documents.setdefault(str(entry.get("provenance") or ""), []).append(entry)
    names = sorted(documents)
    chosen = []
    for name, n in zip(names, _allocate([len(documents[d]) for d in names], count), strict=True):
        group = documents[name]
        chosen += [group[k] for k in sorted(rng.choice(len(group), size=n, replace=False))]
    return [chosen[k] for k in rng.permutation(len(chosen))]


def build_study(dataset: dict, entries: list[dict], outputs: dict[str, dict[str, str]],
                systems: dict[str, System], settings: ReviewSettings) -> dict:
    """The study key: items (opaque id → method, entry id, length of the output, packets), packets (item ids in
    display order), the systems' card values and the settings, under a study id that the ratings files must carry
    back."""
    methods = sorted(outputs)
    if len(methods) < 1:
        raise InputError(dataset["id"], "no method to review")
    eligible = [e for e in entries if all(e["id"] in outputs[m] for m in methods)]
    if not eligible:
        raise InputError(dataset["id"], "no source segment has an output from every reviewed method")
    per_speaker = max(1, settings.items_per_speaker // len(methods))
    count = min(len(eligible), max(1, settings.speakers * per_speaker // settings.overlap))
    rng = np.random.default_rng(settings.seed)
    segments = draw_segments(eligible, count, rng)
    pairs = [(segment["id"], method) for segment in segments for method in methods]
    width = len(str(len(pairs)))
    item_of = {pair: f"o{n + 1:0{width}d}" for n, pair in zip(rng.permutation(len(pairs)), pairs, strict=True)}
    items, packets = {}, [[] for _ in range(settings.speakers)]
    for j, segment in enumerate(segments):
        chosen = sorted((j + t) % settings.speakers for t in range(settings.overlap))
        for method in methods:
            items[item_of[(segment["id"], method)]] = {"method": method, "id": segment["id"],
                                                       "chars": len(outputs[method][segment["id"]]),
                                                       "packets": [p + 1 for p in chosen]}
        for packet in chosen:
            packets[packet].append(segment["id"])
    if any(not packet for packet in packets):
        raise InputError(dataset["id"], f"{len(segments)} segments cannot fill {settings.speakers} packets "
                         f"with overlap {settings.overlap}: raise review.items_per_speaker or lower review.speakers")
    ordered = []
    for packet in packets:
        shown = []
        for k in rng.permutation(len(packet)):
            shown += [item_of[(packet[k], methods[m])] for m in rng.permutation(len(methods))]
        ordered.append(shown)
    body = {"dataset": dataset["id"], "language_pair": dataset["language_pair"], "settings": asdict(settings),
            "systems": {m: asdict(systems[m]) for m in methods}, "items": dict(sorted(items.items())),
            "packets": ordered}
    study = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:12]
    return {"format": KEY_FORMAT, "study": study, **body}


def read_key(path) -> dict:
    key = read_json(path)
    if not isinstance(key, dict) or key.get("format") != KEY_FORMAT:
        raise InputError(path, f"not a review key (expected \"format\": \"{KEY_FORMAT}\")", field="format")
    return key

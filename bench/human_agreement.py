"""Every LYSS signal measured on people: metric–human agreement on rated datasets, in one command.

    .venv/bin/python bench/human_agreement.py data/corpora/mqm_ted_ende [--indicmt DIR] [--json OUT]

DATASET_DIRS are folders shaped like data/corpora/mqm_ted_ende (dataset.yaml with `language_pair`,
corpus.jsonl, systems/<system>.jsonl with `id,prediction`, human_scores.csv with `method,id,human`).
`--indicmt DIR` adds the IndicMT-Eval MQM files found there (<Language>.csv: `Source`, `Reference`,
`Translation`, `Human_scores`, `model`); their data have no licence, so they are read from the path given
and never copied. A source segment is an item; only items rated for every system (and with a human
score for each) are kept, so that every system is scored, and every paired test runs, on the same items.

Metrics are computed by the project's own scoring code, per system, as `lyss score` computes them (every
registered metric that needs no model, the bundled embedder, the reference oracle that voids a metric
failing its reference check, the coverage rules of the composite). The composite is the card's: the
target card's weight profile over the weighted metrics shown for every system. Per dataset and signal:

- segment level: Kendall τ-b per item (WMT's "item" grouping: one source segment's translations ranked
  across systems, averaged over items) with a 95% bootstrap CI over items;
- system level: Pearson of the per-system mean human score with the statistic the leaderboard shows
  (corpus formula over the system's entries: corpus chrF++, the card's composite) with its CI, and SPA;
- the paired permutation test (PERM-BOTH) against chrF++: one-sided p for "agrees better than chrF++"
  at segment level (Kendall) and system level (Pearson);
- the verdict check: the ★ (highest composite, lyss.significance's paired tests as on the leaderboard)
  and whether the raters significantly prefer another system to it (the same paired bootstrap with Holm's
  correction, over the human scores).

All of it reuses lyss.evidence (correlate, dataset) and lyss.significance. Per-system metric results are
cached under --cache (default /tmp/lyss-human-agreement), keyed by a hash of the lyss package, the
language cards, the settings and the texts; sentence vectors are cached by text, so a code change rescores
without re-embedding.
"""

import argparse
import csv
import hashlib
import json
import os
import pickle
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import yaml

from lyss.aggregate.composite import applied_weights, select_profile
from lyss.aggregate.oracle import DEFAULT_TOLERANCE, failed_metrics, reference_check
from lyss.aggregate.runcard import build_scores
from lyss.commands.plain_files import Notes, language_cards, load_settings
from lyss.commands.score import (
    metric_options,
    model_free_metrics,
    needs_embeddings,
    score_metrics,
    shared_embeddings,
)
from lyss.embed.embedders import backend_class
from lyss.evidence.correlate import (
    CorrelationOptions,
    ScoreData,
    correlation_table,
    levels_for,
    significance_table,
)
from lyss.evidence.dataset import compared_metrics, composite_statistic, oriented_statistic, rated_statistics
from lyss.evidence.orientation import COMPOSITE, direction_of, oriented
from lyss.evidence.raters import rater_verdict
from lyss.evidence.weights import FoldError, cross_validate, metric_spread, rated_rows
from lyss.metrics.base import ScoringInput
from lyss.significance import best_cluster, compare_methods

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "chrf_plus_plus"
INDICMT_LANGUAGES = {"Gujarati": "guj", "Marathi": "mar", "Hindi": "hin", "Tamil": "tam", "Malayalam": "mal"}


# ---------------------------------------------------------------- datasets

def ted_like(folder: Path) -> dict:
    """A pipeline-shaped rated dataset: entries, per-system predictions and human scores by id."""
    meta = yaml.safe_load((folder / "dataset.yaml").read_text(encoding="utf-8"))
    entries = [json.loads(line) for line in (folder / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
               if line.strip()]
    predictions = {}
    for path in sorted((folder / "systems").glob("*.jsonl")):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        predictions[path.stem] = {r["id"]: r.get("prediction") or "" for r in rows}
    human: dict[str, dict[str, float]] = {}
    with (folder / "human_scores.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            human.setdefault(row["method"], {})[row["id"]] = float(row["human"])
    return complete_items(meta["id"], meta["language_pair"], entries, predictions, human)


def indicmt(path: Path, code: str) -> dict:
    """IndicMT-Eval MQM: one row per rated translation; an item is a source after stripping whitespace."""
    entries, index, predictions, human = [], {}, {}, {}
    with path.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            source = " ".join(row["Source"].split())
            if source not in index:
                index[source] = f"s{len(index):04d}"
                entries.append({"id": index[source], "source": source, "reference": row["Reference"].strip()})
            if row["Human_scores"].strip() == "":
                continue
            system, entry_id = row["model"], index[source]
            predictions.setdefault(system, {})[entry_id] = row["Translation"].strip()
            human.setdefault(system, {})[entry_id] = float(row["Human_scores"])
    return complete_items(f"indicmt_{path.stem.lower()}", f"eng-{code}", entries, predictions, human)


def complete_items(name, language_pair, entries, predictions, human) -> dict:
    """Keep the items every system has a prediction and a human score for (paired tests need them)."""
    systems = sorted(human)
    keep = [e for e in entries if all(e["id"] in human[s] and e["id"] in predictions.get(s, {}) for s in systems)]
    return {"name": name, "language_pair": language_pair, "entries": keep, "systems": systems,
            "rated_rows": sum(len(h) for h in human.values()),
            "predictions": {s: [predictions[s][e["id"]] for e in keep] for s in systems},
            "human": {s: np.array([human[s][e["id"]] for e in keep]) for s in systems}}


# ---------------------------------------------------------------- scoring with caches

# Parts of lyss that never change a metric value (the statistics downstream of scoring, other commands):
# an edit there reuses the cached per-system results.
NOT_SCORING = {"validate", "significance", "report", "stats", "translate", "store", "migrations"}


def code_key(params: Path, languages: Path) -> str:
    """Hash of what decides a metric value: the scoring part of the lyss package, the language cards and
    the settings."""
    package = ROOT / "src/lyss"
    code = [p for p in package.rglob("*") if not NOT_SCORING & set(p.relative_to(package).parts)
            and (p.parent.name != "commands" or p.name == "score.py")]
    digest = hashlib.sha256()
    for path in sorted([*code, *languages.rglob("*"), params]):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


class Cache:
    """Per-system metric results keyed by code and texts, and sentence vectors keyed by text alone."""

    def __init__(self, folder: Path, key: str):
        self.folder, self.key = folder, key
        folder.mkdir(parents=True, exist_ok=True)

    def vectors_path(self, embeddings) -> Path:
        """Keyed by the backend's cache identity (weights, embed code, runtime, CPU), as the embedding store is:
        keyed by the model name alone, vectors of an older embed code were read back after it changed."""
        backend = backend_class(embeddings.spec)
        identity = backend.cache_id() if callable(getattr(backend, "cache_id", None)) else embeddings.model
        return self.folder / f"vectors-{hashlib.sha256(identity.encode()).hexdigest()[:12]}.pkl"

    def load_vectors(self, embeddings) -> None:
        path = self.vectors_path(embeddings)
        if path.exists():
            embeddings.add(*pickle.loads(path.read_bytes()))

    def save_vectors(self, embeddings) -> None:
        if embeddings is not None and embeddings.computed:
            known = embeddings._vectors  # noqa: SLF001 - the table's own store, written as it is
            texts = list(known)
            data = pickle.dumps((texts, np.stack([known[t] for t in texts])))
            tmp = self.vectors_path(embeddings).with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(data)
            tmp.replace(self.vectors_path(embeddings))
            embeddings.computed = 0

    def results(self, what: str, data: ScoringInput, compute):
        digest = hashlib.sha256(json.dumps([self.key, what, data.entries, data.predictions, data.source_lang,
                                            data.target_lang], ensure_ascii=False).encode()).hexdigest()[:20]
        path = self.folder / f"{what}-{digest}.pkl"
        if path.exists():
            return pickle.loads(path.read_bytes())
        value = compute()
        path.write_bytes(pickle.dumps(value))
        return value


def score_dataset(dataset: dict, settings: dict, languages_dir: Path, cache: Cache) -> dict:
    """Per system: {metric: MetricResult} as `lyss score` computes it; the card composite's weights."""
    metrics = model_free_metrics()
    src, tgt, src_card, tgt_card = language_cards(dataset["language_pair"], languages_dir, Notes())
    options = metric_options(settings, None)
    embeddings = shared_embeddings(settings, needs_embeddings(metrics))
    if embeddings is not None:
        cache.load_vectors(embeddings)
    profile = select_profile(tgt_card, settings["composite"])
    weights = settings["composite"]["profiles"][profile]
    normalisation = settings["composite"].get("normalisation", {})

    def inputs(predictions):
        return ScoringInput(entries=dataset["entries"], predictions=predictions, raw_predictions=predictions,
                            source_lang=src, target_lang=tgt, source_card=src_card, target_card=tgt_card,
                            embeddings=embeddings)

    references = [e["reference"] for e in dataset["entries"]]
    reference_results = cache.results(f"{dataset['name']}-reference-results", inputs(references),
                                      lambda: score_metrics(inputs(references), metrics, options))
    tolerance = (settings.get("oracle") or {}).get("tolerance", DEFAULT_TOLERANCE)
    failed = failed_metrics(reference_check(reference_results, tgt_card, tolerance))
    results, cards = {}, {}
    for system in dataset["systems"]:
        data = inputs(dataset["predictions"][system])
        started = time.perf_counter()
        results[system] = cache.results(f"{dataset['name']}-{system}", data,
                                        lambda d=data: score_metrics(d, metrics, options))
        cache.save_vectors(embeddings)
        cards[system], _ = build_scores(results[system], dataset["entries"], weights, settings["tiers"],
                                        settings["composite"], excluded=failed)
        print(f"  scored {system} ({time.perf_counter() - started:.1f} s)", file=sys.stderr)
    shown = set.intersection(*(set(applied_weights(c, weights)) for c in cards.values()))
    return {"profile": profile, "weights": {m: w for m, w in weights.items() if m in shown},
            "normalisation": normalisation, "results": results, "cards": cards, "failed": failed}


# ---------------------------------------------------------------- measurement

def score_data(dataset: dict, scored: dict) -> tuple[ScoreData, dict, dict]:
    """Rows (system × item) with every metric defined on all rows, the per-entry composite, and the
    corpus statistics of the metrics and of the card's composite."""
    systems, ids = dataset["systems"], [e["id"] for e in dataset["entries"]]
    methods = [s for s in systems for _ in ids]
    items = ids * len(systems)
    human = np.concatenate([dataset["human"][s] for s in systems])
    by_metric = {}
    for system in systems:
        for metric, result in scored["results"][system].items():
            if result.available and metric not in scored["failed"]:
                by_metric.setdefault(metric, {})[system] = (result, ids)
    by_metric = {m: v for m, v in by_metric.items() if len(v) == len(systems)}
    columns = {m: np.concatenate([by_metric[m][s][0].values for s in systems]) for m in by_metric}
    compared, left_out = compared_metrics(columns, scored["weights"], scored["normalisation"])
    corpus = {m: st for m, st in rated_statistics(by_metric, methods, items).items() if m in compared}
    if COMPOSITE in compared and set(scored["weights"]) <= set(corpus):
        corpus[COMPOSITE] = composite_statistic(corpus, scored["weights"], scored["normalisation"])
    data = ScoreData(dataset["name"], human, compared, methods, items, "item", corpus=corpus,
                     lower=frozenset(m for m in compared if direction_of(m) == "lower"))
    return data, left_out, columns


def against_baseline(data: ScoreData, options: CorrelationOptions) -> dict[str, dict[str, float]]:
    """metric → {level: one-sided p for "agrees better than chrF++"} (oriented values, PERM-BOTH)."""
    out = {}
    tested = replace(options, statistics=("kendall", "pearson"))
    for metric in data.metrics:
        if metric == BASELINE or BASELINE not in data.metrics:
            continue
        pair = ScoreData(data.path, data.human, {m: oriented(m, data.metrics[m]) for m in (metric, BASELINE)},
                         data.systems, data.items, data.item_col,
                         corpus={m: oriented_statistic(m, data.corpus[m]) for m in (metric, BASELINE)
                                 if m in data.corpus})
        rows = significance_table(pair, levels_for(pair, tested), tested)
        pick = {(r["level"], r["statistic"]): r["p_value"] for r in rows if r["metric_a"] == metric}
        out[metric] = {"segment_kendall": pick[("segment", "kendall")], "system_pearson": pick[("system", "pearson")]}
    return out


def verdict_check(dataset: dict, scored: dict, settings: dict) -> dict:
    """The ★ by the leaderboard's paired tests, the systems the raters significantly prefer to it (the evidence
    stage's raters' table, lyss.evidence.raters), and the mark the leaderboard shows: ☆ where they do."""
    stats = settings["stats"]
    block = compare_methods(scored["results"], scored["weights"], scored["normalisation"],
                            n_bootstrap=stats["bootstrap_resamples"], n_trials=1000, seed=stats["seed"],
                            alpha=stats["alpha"])
    cluster = best_cluster(block)
    star = cluster["best"]
    systems = dataset["systems"]
    items = [e["id"] for e in dataset["entries"]]
    raters = rater_verdict(dataset["name"], [s for s in systems for _ in items], items * len(systems),
                           np.concatenate([dataset["human"][s] for s in systems]),
                           resamples=stats["bootstrap_resamples"], seed=stats["seed"], alpha=stats["alpha"])
    preferred = [{"system": p["better"], "human_delta": p["delta"], "ci": p["ci"], "p_holm": p["p_holm"]}
                 for p in raters["preferred"] if p["worse"] == star]
    means = {s: v["mean"] for s, v in raters["methods"].items()}
    composite = {s: block["scores"][s].get("composite") for s in systems}
    rank = {s: v["rank"] for s, v in raters["methods"].items()}
    composite_rank = {s: k + 1 for k, s in enumerate(sorted(composite, key=lambda s: -(composite[s] or 0)))}
    return {"star": star, "significantly_best": cluster["methods"] == [star], "human_rank_of_star": rank.get(star),
            "raters_prefer": preferred, "contradicted": bool(preferred), "mark": "☆" if preferred else "★",
            "human_rank": rank, "composite_rank": composite_rank, "human_mean": means, "composite": composite,
            "raters_significant_pairs": len(raters["preferred"])}


def weight_check(data: ScoreData, columns: dict, scored: dict, settings: dict, seed: int) -> dict:
    """The spec profile's weights with their spread and influence, and `lyss weights fit`'s
    cross-validation by system (5 folds asked; the guards may merge them)."""
    composite = settings["composite"]
    candidates = sorted({m for profile in composite["profiles"].values() for m in profile})
    rows = rated_rows(data.human, data.systems, data.items, [""] * len(data.human), columns, candidates,
                      scored["normalisation"])
    profile = composite["profiles"][scored["profile"]]
    out = {"spec_spread": metric_spread(rows, {m: w for m, w in profile.items() if m in rows.features})}
    try:
        cv = cross_validate(rows, scored["weights"], "system", 5, seed, composite["min_entries"])
        out.update(cv_summary=cv["summary"], cv_warnings=cv["warnings"], cv_folds=len(cv["folds"]))
    except FoldError as err:
        out["cv_error"] = str(err)
    return out


def measure(dataset: dict, settings: dict, languages_dir: Path, cache: Cache, args) -> dict:
    started = time.perf_counter()
    scored = score_dataset(dataset, settings, languages_dir, cache)
    data, left_out, columns = score_data(dataset, scored)
    options = CorrelationOptions(group_by_item=True, resamples=args.resamples, permutations=args.permutations,
                                 seed=args.seed, statistics=("kendall", "pearson"))
    table = correlation_table(data, levels_for(data, options), options)
    tests = against_baseline(data, options)
    signals = {}
    for row in table:
        entry = signals.setdefault(row["metric"], {"direction": direction_of(row["metric"])})
        if row["level"] == "segment":
            entry["segment_kendall"] = [row["kendall"], row["kendall_lo"], row["kendall_hi"]]
        else:
            entry["system_pearson"] = [row["pearson"], row["pearson_lo"], row["pearson_hi"]]
            entry["spa"] = row["soft_pairwise_accuracy"]
            entry["system_statistic"] = "corpus formula" if row["metric"] in data.corpus else "mean of entries"
        entry["p_vs_chrf"] = tests.get(row["metric"])
    return {"dataset": dataset["name"], "language_pair": dataset["language_pair"],
            "systems": len(dataset["systems"]), "items": len(dataset["entries"]), "rated_rows": dataset["rated_rows"],
            "rows": len(data.human), "profile": scored["profile"], "composite_weights": scored["weights"],
            "void_by_reference_check": scored["failed"], "left_out": left_out, "signals": signals,
            "verdict": verdict_check(dataset, scored, settings),
            "weights": weight_check(data, columns, scored, settings, args.seed),
            "seconds": round(time.perf_counter() - started, 1)}


# ---------------------------------------------------------------- output

def _ci(values) -> str:
    point, low, high = values
    return "—" if point is None or np.isnan(point) else f"{point:+.3f} [{low:+.3f}, {high:+.3f}]"


def print_report(report: dict) -> None:
    print(f"\n## {report['dataset']} ({report['language_pair']}): {report['systems']} systems × {report['items']} "
          f"items rated by all = {report['rows']} rows (of {report['rated_rows']} rated); composite = profile "
          f"{report['profile']} over {', '.join(report['composite_weights'])} ({report['seconds']} s)")
    print("| signal | segment Kendall per item [95% CI] | system Pearson [95% CI] | SPA | p vs chrF++ seg / sys |")
    print("| --- | --- | --- | --- | --- |")
    order = [COMPOSITE, BASELINE] + sorted(m for m in report["signals"] if m not in (COMPOSITE, BASELINE))
    for metric in (m for m in order if m in report["signals"]):
        s = report["signals"][metric]
        p = s["p_vs_chrf"]
        tested = "—" if p is None else " / ".join("—" if np.isnan(p[k]) else f"{p[k]:.3f}"
                                                  for k in ("segment_kendall", "system_pearson"))
        name = metric + (" (lower better)" if s["direction"] == "lower" else "")
        print(f"| {name} | {_ci(s['segment_kendall'])} | {_ci(s['system_pearson'])} | {s['spa']:.3f} | {tested} |")
    for metric, reason in {**report["void_by_reference_check"], **report["left_out"]}.items():
        print(f"- not measured: {metric}: {reason}")
    v = report["verdict"]
    prefer = "; ".join(f"{p['system']} by {p['human_delta']:.2f} [{p['ci'][0]:.2f}, {p['ci'][1]:.2f}] "
                       f"(Holm p {p['p_holm']:.3g})" for p in v["raters_prefer"]) or "none"
    best = "significantly best" if v["significantly_best"] else "not significantly best"
    print(f"- best composite {v['star']} ({best}); "
          f"raters rank it {v['human_rank_of_star']} of {report['systems']}; systems the raters significantly "
          f"prefer to it: {prefer}; the leaderboard shows {v['mark']} "
          f"({v['raters_significant_pairs']} significant pairs among the raters)")
    print("- ranks (human / composite): " + ", ".join(
        f"{s} {v['human_rank'][s]}/{v['composite_rank'][s]}" for s in sorted(v["human_rank"], key=v["human_rank"].get)))
    w = report["weights"]
    print("- profile weights (spread, influence): " + ", ".join(
        f"{m} {e['weight']:.2f} ({e['spread']:.3f}, {e['influence']:.0%})" for m, e in w["spec_spread"].items()))
    if "cv_summary" in w:
        print(f"- held out by system ({w['cv_folds']} folds{'; ' + w['cv_warnings'][0] if w['cv_warnings'] else ''}): "
              + ", ".join(f"{name} τ {v['segment_kendall']:.3f} / r {v['system_pearson']:.3f}"
                          for name, v in w["cv_summary"].items()))
    else:
        print(f"- weights fit: {w['cv_error']}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="*", type=Path, help="rated dataset folders (mqm_ted_ende layout)")
    parser.add_argument("--indicmt", type=Path, help="folder with IndicMT-Eval <Language>.csv files")
    parser.add_argument("--params", type=Path, default=ROOT / "params.yaml")
    parser.add_argument("--languages", type=Path, default=ROOT / "data/languages")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/lyss-human-agreement"))
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write every number here")
    args = parser.parse_args(argv)
    settings = load_settings(args.params, Notes())
    cache = Cache(args.cache, code_key(args.params, args.languages))
    datasets = [ted_like(folder) for folder in args.datasets]
    if args.indicmt:
        datasets += [indicmt(args.indicmt / f"{name}.csv", code) for name, code in INDICMT_LANGUAGES.items()
                     if (args.indicmt / f"{name}.csv").exists()]
    if not datasets:
        parser.error("no dataset: give DATASET_DIRS and/or --indicmt DIR")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    reports = []
    for dataset in datasets:
        print(f"{dataset['name']}: scoring {len(dataset['systems'])} systems", file=sys.stderr)
        reports.append(measure(dataset, settings, args.languages, cache, args))
        print_report(reports[-1])
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    if args.json:
        args.json.write_text(json.dumps(reports, indent=1, default=float), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reports from run cards: the flat `results/metrics.json` for `dvc metrics diff`, the Markdown leaderboard
ranked by composite, and (rule `report`) the HTML leaderboard, the plot files and the database."""

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from lyss.aggregate.runcard import SPEED_KEYS
from lyss.io import read_json, write_json_atomic, write_text_atomic
from lyss.metrics import declaration, label, leaderboard_metrics, summary_metrics
from lyss.report.board import best_marks, dataset_notes, is_oracle, ranked, tier_label
from lyss.report.page import leaderboard_html
from lyss.settings import Tier

SUMMARY_TOTALS = ["total_cost_usd", "cost_per_entry_usd"]


def summary_scores() -> list[str]:
    """Numeric card fields copied into results/metrics.json (committed; `dvc metrics diff` compares numbers):
    the composite and every metric declared `in_summary`. Quality and cost only: identical inputs give an
    identical file, so a rerun leaves git clean and a diff means a change."""
    return ["composite", "cost_adjusted", *summary_metrics(), "errors"]


def summary(cards: list[dict], scores_kept=None, totals_kept=SUMMARY_TOTALS) -> dict:
    """{dataset: {method: {field: number}}} of the given card fields (default: results/metrics.json's)."""
    scores_kept = summary_scores() if scores_kept is None else scores_kept
    out: dict = {}
    for card in cards:
        scores, totals = card["scores"], card["totals"]
        row = {k: scores[k] for k in scores_kept if scores.get(k) is not None}
        row.update({k: totals[k] for k in totals_kept if totals.get(k) is not None})
        out.setdefault(card["dataset"]["id"], {})[card["method"]["name"]] = row
    return out


def timings(cards: list[dict]) -> dict:
    """The wall-clock fields of the cards (the §7 speed keys and the elapsed time), for results/timings.json:
    they differ on every run, so neither git nor DVC versions them."""
    out = summary(cards, SPEED_KEYS, [])
    for card in cards:
        out[card["dataset"]["id"]][card["method"]["name"]]["elapsed_seconds"] = card["elapsed_seconds"]
    return out


def _fmt(value, digits=4):
    return "—" if value is None else f"{value:.{digits}f}"


def _ci(card: dict, metric: str, digits: int) -> str:
    interval = card["scores"]["confidence_intervals"].get(metric)
    if not interval or interval.get("ci_lower") is None:
        return ""
    return f" [{interval['ci_lower']:.{digits}f}, {interval['ci_upper']:.{digits}f}]"


def _metric_cell(card: dict, metric: str) -> str:
    """A metric's leaderboard cell with its declared decimals, and its CI when it declares one."""
    digits = declaration(metric, "decimals")
    interval = _ci(card, metric, digits) if declaration(metric, "has_ci") else ""
    return f"{_fmt(card['scores'].get(metric), digits)}{interval} | "


def skipped_by_reason(skipped: dict[str, str]) -> dict[str, list[str]]:
    """{reason: [methods]} with each method's own name taken out of its reason, so thirteen precomputed
    systems of another corpus make one line, not thirteen."""
    grouped: dict[str, list[str]] = {}
    for method, reason in skipped.items():
        grouped.setdefault(f"({reason})".replace(f"methods.{method}.", "the method's "), []).append(method)
    return grouped


def leaderboard_markdown(cards: list[dict], significance: dict[str, dict], skipped: dict | None = None) -> str:
    """`skipped`: {dataset: {method: reason}} (results/skipped/), listed under each dataset's table."""
    lines = ["# LYSS leaderboard", ""]
    columns = leaderboard_metrics()
    headers = [label(m) + (" [95% CI]" if declaration(m, "has_ci") else "") for m in columns]
    by_dataset: dict[str, list[dict]] = {}
    for card in cards:
        by_dataset.setdefault(card["dataset"]["id"], []).append(card)
    for dataset in sorted(by_dataset):
        group = ranked(by_dataset[dataset])
        sig = significance.get(dataset, {})
        marks = best_marks(group, sig)
        lines += [f"## {dataset} ({group[0]['dataset']['language_pair']}, profile "
                  f"{group[0]['composite_profile']['profile']})", "",
                  "| # | method | composite [95% CI] | tier | " + "".join(f"{h} | " for h in headers) +
                  "cost/entry USD | entries/min | avg latency s | caveats |",
                  "|---" * (8 + len(headers)) + "|"]
        rank = 0
        for card in group:
            s, t = card["scores"], card["totals"]
            name = card["method"]["name"]
            if is_oracle(card):
                shown_rank, name = "—", f"{name} (oracle)"
            else:
                rank += 1
                shown_rank = str(rank)
            mark = f" {marks[card['method']['name']][0]}" if card["method"]["name"] in marks else ""
            caveats = ", ".join(c["id"] if isinstance(c, dict) else str(c) for c in card.get("score_caveats", []))
            lines.append(
                f"| {shown_rank} | {name}{mark} | {_fmt(s['composite'])}{_ci(card, 'composite', 4)} | "
                f"{tier_label(card)} | {''.join(_metric_cell(card, m) for m in columns)}"
                f"{_fmt(t['cost_per_entry_usd'], 6)} | "
                f"{_fmt(s['entries_per_minute'], 1)} | {_fmt(s['avg_latency_seconds'], 4)} | {caveats or '—'} |")
        lines += [f"\n{note}" for note in dataset_notes(group)]
        for warning in sig.get("warnings", []):
            lines.append(f"\n> **Warning:** {warning}")
        lines += [f"\nSkipped {reason}: {', '.join(f'**{m}**' for m in methods)}"
                  for reason, methods in skipped_by_reason((skipped or {}).get(dataset, {})).items()]
        lines.append("")
    lines.append("★ : best composite among systems with a full, ungated tier; ≈ : not significantly different "
                 "from it (paired bootstrap on the composite, Holm-corrected, α = 0.05); ☆ : the best composite, "
                 "but the dataset's raters significantly prefer another system, so no ★. The reference (oracle) "
                 "row is the references scored as a method: what a perfect system gets. A tier is provisional "
                 "unless the composite is validated against people on the language pair; partial: the composite "
                 "covers less than composite.min_weight_share of the profile's weight. — : not measured.")
    return "\n".join(lines) + "\n"


def write_leaderboard_html(cards: list[dict], significance: dict[str, dict], path, figures_dir=None) -> None:
    """results/leaderboard.html (src/lyss/report/page.py), linking the PNG figures in `figures_dir` (they
    open offline, unlike `dvc plots show`, whose page loads Vega from a CDN)."""
    figures = sorted(Path(figures_dir).glob("*.png")) if figures_dir is not None else []
    links = [os.path.relpath(f, Path(path).parent) for f in figures]
    write_text_atomic(path, leaderboard_html(cards, significance, figures=links))


def write_plot_files(cards: list[dict], plots_dir, datasets=None, tiers: tuple[Tier, ...] = ()) -> None:
    """results/plots/: data for `dvc plots show` and PNG figures for `snakemake --report` (src/lyss/report/plots.py)."""
    from lyss.report.plots import write_plots

    write_plots(cards, plots_dir, datasets=datasets, tiers=tiers)


def store_cards(card_paths, database, extra_url: str | None = None, log=None) -> None:
    """Push the cards into the SQLite file `database` and, when configured, into `extra_url` too (a
    PostgreSQL DSN or another SQLite file); one line per database goes to `log` (default stderr), with
    any password masked."""
    from lyss.store import push_cards

    log = log or sys.stderr
    targets = [str(database)] + ([extra_url] if extra_url and extra_url != str(database) else [])
    for url in targets:
        label, results = push_cards(card_paths, url)
        counts = {s: sum(r.status == s for r in results) for s in ("added", "updated", "restored", "unchanged")}
        log.write(f"database {label}: {len(results)} card(s), "
                  + ", ".join(f"{n} {s}" for s, n in counts.items() if n) + "\n")


@dataclass(frozen=True)
class ReportOutputs:
    """What rule `report` writes: metrics.json and the Markdown leaderboard always; the HTML page, the plot
    files, the SQLite database and the timings file when given. `figures_dir`: PNG figures drawn before (by
    rule `plots`), which the HTML page links; with `plots_dir` the plots are drawn here and linked."""

    metrics: Path
    leaderboard: Path
    html: Path | None = None
    plots_dir: Path | None = None
    database: Path | None = None
    timings: Path | None = None
    figures_dir: Path | None = None


def write_reports(card_paths, significance_paths, outputs: ReportOutputs, *, tiers: tuple[Tier, ...] = (),
                  database_url=None, datasets=None, skipped_paths=()) -> None:
    """The work of rule `report`. `tiers`: params.yaml `tiers` (drawn on the composite figures);
    `database_url`: a second database besides the SQLite file; `skipped_paths`: results/skipped/<dataset>.json."""
    metrics_out, leaderboard_out, html_out = outputs.metrics, outputs.leaderboard, outputs.html
    plots_dir, database, timings_out = outputs.plots_dir, outputs.database, outputs.timings
    figures_dir = outputs.figures_dir or (Path(plots_dir, "figures") if plots_dir is not None else None)
    cards = [read_json(p) for p in card_paths]
    skipped = {Path(p).stem: read_json(p) for p in skipped_paths}
    significance = {}
    for path in significance_paths:
        block = read_json(path)
        significance[block["dataset"]] = block
    write_json_atomic(metrics_out, summary(cards))
    if timings_out is not None:
        write_json_atomic(timings_out, timings(cards))
    write_text_atomic(leaderboard_out, leaderboard_markdown(cards, significance, skipped))
    if plots_dir is not None:
        write_plot_files(cards, plots_dir, datasets=datasets, tiers=tiers)
    if html_out is not None:
        write_leaderboard_html(cards, significance, html_out, figures_dir=figures_dir)
    if database is not None:
        store_cards(card_paths, database, database_url)

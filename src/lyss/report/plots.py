"""Plot data and figures for `dvc plots show` and `snakemake --report`.

Data (small CSV files, declared under `plots:` in dvc.yaml with the templates in .dvc/plots/):
  results/plots/composite/<dataset>.csv   method, composite, ci_lower, ci_upper, quality_tier
  results/plots/tier_chrf/<dataset>.csv   method, difficulty_tier, n, <chrF++ id>, ci_lower, ci_upper
Figures (PNG, matplotlib's Agg canvas, for the Snakemake report): results/plots/figures/
  composite_<dataset>.png, tier_chrf_<dataset>.png.

The human-judgment plots are drawn apart (rule `validation_plots`), so the leaderboard never waits for the
human-judgment study:
  results/validation/plots/correlations.csv   (rows when a validation step ran, else a header)
                                          label, level, metric, statistic, value, ci_lower, ci_upper
  results/validation/plots/figures/validation_correlations.png, and the jury step's own figures copied as
  validation_jury_*.png.

Per-tier chrF++ is by difficulty tier (1–5; the corpus entries' `difficulty`), with the run card's
`confidence_intervals_by_tier` (spec §8.1); CIs are 95% percentile bootstrap intervals.
"""

import csv
import io
import shutil
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from lyss.io import atomic_path, fixed, write_text_atomic
from lyss.metrics import tier_metrics
from lyss.report.board import ranked
from lyss.settings import Tier

COMPOSITE_COLUMNS = ["method", "composite", "ci_lower", "ci_upper", "quality_tier"]
# §9 names the per-tier chrF++ interval `corpus_chrf`; the metric behind it is the one that declares that key.
TIER_CI_KEY = "corpus_chrf"
TIER_METRIC = tier_metrics()[TIER_CI_KEY]
TIER_COLUMNS = ["method", "difficulty_tier", "n", TIER_METRIC, "ci_lower", "ci_upper"]
CORRELATION_COLUMNS = ["label", "level", "metric", "statistic", "value", "ci_lower", "ci_upper"]
CORRELATION_STATISTICS = ("pearson", "spearman", "kendall", "pairwise_accuracy")
JURY_FIGURES = ("jury_sizes.png", "distributions.png")


# ---------------------------------------------------------------------------------------------- data

def _interval(block: dict | None) -> tuple:
    block = block or {}
    return block.get("ci_lower"), block.get("ci_upper")


def composite_rows(cards: list[dict]) -> list[dict]:
    """One row per run of a dataset, best composite first."""
    rows = []
    for card in ranked(cards):
        low, high = _interval(card["scores"].get("confidence_intervals", {}).get("composite"))
        rows.append({"method": card["method"]["name"], "composite": card["scores"].get("composite"),
                     "ci_lower": low, "ci_upper": high, "quality_tier": card["scores"].get("quality_tier")})
    return rows


def _tier_key(tier: str):
    return (0, int(tier)) if str(tier).isdigit() else (1, str(tier))


def tier_chrf_rows(cards: list[dict]) -> list[dict]:
    """chrF++ by difficulty tier with its CI, one row per run × tier that has a chrF++ value."""
    rows = []
    for card in ranked(cards):
        by_tier = card["scores"].get("by_difficulty") or {}
        intervals = card["scores"].get("confidence_intervals_by_tier") or {}
        for tier in sorted(by_tier, key=_tier_key):
            block = by_tier[tier] or {}
            if block.get(TIER_METRIC) is None:
                continue
            low, high = _interval((intervals.get(tier) or {}).get(TIER_CI_KEY))
            rows.append({"method": card["method"]["name"], "difficulty_tier": tier, "n": block.get("n"),
                         TIER_METRIC: block[TIER_METRIC], "ci_lower": low, "ci_upper": high})
    return rows


def _number(text: str | None):
    if text is None or str(text).strip() == "":
        return None
    value = float(text)
    return None if np.isnan(value) else value


def correlation_rows(path) -> list[dict]:
    """`lyss correlate`'s correlations.csv in long form: one row per level × metric × statistic."""
    with open(path, encoding="utf-8", newline="") as handle:
        table = list(csv.DictReader(handle))
    rows = []
    for record in table:
        for statistic in CORRELATION_STATISTICS:
            if statistic not in record:
                continue
            value = _number(record[statistic])
            if value is None:
                continue
            rows.append({"label": f"{record['level']} · {record['metric']} · {statistic}",
                         "level": record["level"], "metric": record["metric"], "statistic": statistic,
                         "value": value, "ci_lower": _number(record.get(f"{statistic}_lo")),
                         "ci_upper": _number(record.get(f"{statistic}_hi"))})
    return rows


def _csv(columns: list[str], rows: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: "" if row.get(k) is None else fixed(row[k]) for k in columns})  # lyss.io precision
    return out.getvalue()


# ---------------------------------------------------------------------------------------------- figures

def _figure(width: float, height: float):
    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _save(figure, path) -> None:
    with atomic_path(path) as tmp:
        figure.savefig(tmp, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})


def _errors(values, lows, highs):
    """Matplotlib's asymmetric error bars; a missing bound draws no bar on that side, and neither does a
    bound on the wrong side of the value (a percentile interval can exclude a skewed estimate)."""
    below = [max(v - lo, 0.0) if v is not None and lo is not None else 0.0 for v, lo in zip(values, lows, strict=True)]
    above = [max(hi - v, 0.0) if v is not None and hi is not None else 0.0 for v, hi in zip(values, highs, strict=True)]
    return np.array([below, above])


def plot_composite(dataset: str, rows: list[dict], tiers: tuple[Tier, ...], path) -> None:
    """Composite by method with 95% CIs, best at the top, over the §5 tier thresholds."""
    rows = [r for r in rows if r["composite"] is not None]
    figure = _figure(7, 1.2 + 0.45 * max(len(rows), 1))
    ax = figure.subplots()
    y = np.arange(len(rows))[::-1]
    values = [r["composite"] for r in rows]
    ax.errorbar(values, y, xerr=_errors(values, [r["ci_lower"] for r in rows], [r["ci_upper"] for r in rows]),
                fmt="o", color="#0b5cad", ecolor="#0b5cad", capsize=4)
    ax.set_yticks(y, [r["method"] for r in rows])
    for tier in tiers:
        if 0 < tier.min < 1:
            ax.axvline(tier.min, color="#999999", linestyle=":", linewidth=1)
            ax.text(tier.min, len(rows) - 0.4, f" {tier.name}", fontsize=7, color="#666666", va="bottom")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.6, len(rows) - 0.1)
    ax.set_xlabel("composite (95% CI)")
    ax.set_title(f"{dataset}: composite by method")
    ax.grid(axis="x", alpha=0.3)
    _save(figure, path)


def plot_tier_chrf(dataset: str, rows: list[dict], path) -> None:
    """chrF++ by difficulty tier with 95% CIs, one line per method."""
    figure = _figure(7, 4)
    ax = figure.subplots()
    tiers = sorted({r["difficulty_tier"] for r in rows}, key=_tier_key)
    position = {t: i for i, t in enumerate(tiers)}
    methods = list(dict.fromkeys(r["method"] for r in rows))
    for k, method in enumerate(methods):
        mine = [r for r in rows if r["method"] == method]
        shift = (k - (len(methods) - 1) / 2) * 0.06
        x = [position[r["difficulty_tier"]] + shift for r in mine]
        values = [r[TIER_METRIC] for r in mine]
        ax.errorbar(x, values, yerr=_errors(values, [r["ci_lower"] for r in mine], [r["ci_upper"] for r in mine]),
                    fmt="o-", capsize=3, label=method)
    ax.set_xticks(range(len(tiers)), [str(t) for t in tiers])
    ax.set_xlabel("difficulty tier")
    ax.set_ylabel("chrF++ (95% CI)")
    ax.set_title(f"{dataset}: chrF++ by difficulty tier")
    ax.grid(alpha=0.3)
    if methods:
        ax.legend(fontsize=8)
    _save(figure, path)


def plot_correlations(rows: list[dict], path) -> None:
    """Metric–human correlation with CIs, one panel per level (segment, system), stacked."""
    levels = list(dict.fromkeys(r["level"] for r in rows))
    heights = [max(len([r for r in rows if r["level"] == level]), 1) for level in levels]
    figure = _figure(7, 0.8 * len(levels) + 0.26 * sum(heights))
    axes = figure.subplots(len(levels), 1, squeeze=False, gridspec_kw={"height_ratios": heights})[:, 0]
    for ax, level in zip(axes, levels, strict=True):
        mine = [r for r in rows if r["level"] == level]
        y = np.arange(len(mine))[::-1]
        values = [r["value"] for r in mine]
        ax.errorbar(values, y, xerr=_errors(values, [r["ci_lower"] for r in mine], [r["ci_upper"] for r in mine]),
                    fmt="o", capsize=3, color="#1a7f37")
        ax.set_yticks(y, [f"{r['metric']} · {r['statistic']}" for r in mine], fontsize=8)
        ax.axvline(0, color="#999999", linewidth=0.8)
        ax.set_xlim(min(-0.05, *(r["ci_lower"] or r["value"] for r in mine)) - 0.05, 1.05)
        ax.set_title(f"{level} level")
        ax.set_xlabel("agreement with human scores (CI)")
        ax.grid(axis="x", alpha=0.3)
    _save(figure, path)


# ---------------------------------------------------------------------------------------------- all

def write_plots(cards: list[dict], out_dir, datasets: list[str] | None = None,
                tiers: tuple[Tier, ...] = ()) -> list[Path]:
    """Write the leaderboard's plot data and figures under `out_dir` (results/plots); returns the files written.

    `datasets` fixes which per-dataset files exist (the Snakemake outputs), even for a dataset without
    cards."""
    out = Path(out_dir)
    by_dataset: dict[str, list[dict]] = {}
    for card in cards:
        by_dataset.setdefault(card["dataset"]["id"], []).append(card)
    datasets = sorted(by_dataset) if datasets is None else list(datasets)
    figures = out / "figures"
    written = []
    for dataset in datasets:
        group = by_dataset.get(dataset, [])
        composite, per_tier = composite_rows(group), tier_chrf_rows(group)
        for name, columns, rows in (("composite", COMPOSITE_COLUMNS, composite),
                                    ("tier_chrf", TIER_COLUMNS, per_tier)):
            path = out / name / f"{dataset}.csv"
            write_text_atomic(path, _csv(columns, rows))
            written.append(path)
        plot_composite(dataset, composite, tiers, figures / f"composite_{dataset}.png")
        plot_tier_chrf(dataset, per_tier, figures / f"tier_chrf_{dataset}.png")
        written += [figures / f"composite_{dataset}.png", figures / f"tier_chrf_{dataset}.png"]
    return written


def write_validation_plots(validation_dirs, out_dir) -> list[Path]:
    """The human-judgment plots under `out_dir` (results/validation/plots) from the validation steps' output
    folders (absent parts are skipped): correlations.csv, always written (only the header without a
    validation step) so the dvc.yaml plot and the Snakemake output exist either way, and figures/."""
    out = Path(out_dir)
    figures = out / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    written = []
    correlations: list[dict] = []
    for folder in map(Path, validation_dirs):
        if (folder / "correlations.csv").exists():
            correlations += correlation_rows(folder / "correlations.csv")
        for name in JURY_FIGURES:
            if (folder / name).exists():
                target = figures / f"validation_jury_{name}"
                with atomic_path(target) as tmp:
                    shutil.copyfile(folder / name, tmp)
                written.append(target)
    write_text_atomic(out / "correlations.csv", _csv(CORRELATION_COLUMNS, correlations))
    written.append(out / "correlations.csv")
    if correlations:
        plot_correlations(correlations, figures / "validation_correlations.png")
        written.append(figures / "validation_correlations.png")
    return written

"""PNG figures for the jury report.

Figures are drawn on matplotlib's Agg canvas directly, without pyplot: no display, no global
backend switch, nothing left open between calls.
"""

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from lyss.io import atomic_path


def _panels(count: int, width: float):
    figure = Figure(figsize=(width * count, 3.4))
    FigureCanvasAgg(figure)
    return figure, figure.subplots(1, count, squeeze=False, sharey=True)


def _save(figure, path) -> None:
    with atomic_path(path) as tmp:
        figure.savefig(tmp, format="png", dpi=110, bbox_inches="tight")


def plot_size_curves(size_rows: list[dict], path) -> None:
    """Exact agreement against jury size (mean over all combinations), raw vs calibrated, per corpus."""
    names = list(dict.fromkeys(r["corpus"] for r in size_rows))
    figure, axes = _panels(len(names), 4)
    for ax, corpus in zip(axes[0], names, strict=True):
        for calibrated, style in ((False, "o--"), (True, "s-")):
            rows = [r for r in size_rows if r["corpus"] == corpus and r["calibrated"] == calibrated]
            if rows:
                ax.plot(
                    [r["size"] for r in rows],
                    [100 * r["exact"] for r in rows],
                    style,
                    label="calibrated" if calibrated else "raw",
                )
        ax.set_title(corpus)
        ax.set_xlabel("jury size")
        ax.set_xticks(sorted({r["size"] for r in size_rows}))
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("exact agreement with humans (%)")
    axes[0][0].legend()
    _save(figure, path)


def plot_distributions(distribution_rows: list[dict], series: list[tuple[str, bool, str]], path) -> None:
    """Grouped bars of the grade distribution per corpus; `series` = (member, calibrated, legend label)."""
    names = list(dict.fromkeys(r["corpus"] for r in distribution_rows))
    grades = sorted({r["grade"] for r in distribution_rows})
    figure, axes = _panels(len(names), 4.5)
    width = 0.8 / len(series)
    for ax, corpus in zip(axes[0], names, strict=True):
        for k, (member, calibrated, label) in enumerate(series):
            share = {
                r["grade"]: r["share"]
                for r in distribution_rows
                if r["corpus"] == corpus and r["member"] == member and r["calibrated"] == calibrated
            }
            if share:
                x = np.arange(len(grades)) + (k - (len(series) - 1) / 2) * width
                ax.bar(x, [100 * share.get(g, 0.0) for g in grades], width, label=label)
        ax.set_title(corpus)
        ax.set_xticks(np.arange(len(grades)), [f"{g:g}" for g in grades])
        ax.set_xlabel("grade")
    axes[0][0].set_ylabel("share of items (%)")
    axes[0][0].legend(fontsize=8)
    _save(figure, path)

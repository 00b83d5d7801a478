"""results/metrics.json is committed and diffed with `dvc metrics diff`, so it holds quality and cost numbers
only: two runs that differ only in how long they took write it byte for byte the same, and their timings go
to results/timings.json, which git ignores (issue 11)."""

import json
import subprocess
from pathlib import Path

from handmade_cards import make_card, write_cards

from lyss.report import write_reports

ROOT = Path(__file__).resolve().parents[1]


def report(folder: Path, entries_per_minute: float, avg_latency: float) -> Path:
    card = make_card(method="alpha", composite=0.61, chrf=55.5, entries_per_minute=entries_per_minute,
                     avg_latency=avg_latency)
    out = folder / "results"
    write_reports(write_cards(folder / "runs", [card]), [], out / "metrics.json", out / "leaderboard.md",
                  timings_out=out / "timings.json")
    return out


def test_metrics_json_does_not_change_with_timing(tmp_path):
    fast, slow = report(tmp_path / "fast", 3000.0, 0.02), report(tmp_path / "slow", 120.0, 0.5)
    assert (fast / "metrics.json").read_bytes() == (slow / "metrics.json").read_bytes()
    row = json.loads((fast / "metrics.json").read_text())["demo"]["alpha"]
    assert row["composite"] == 0.61 and row["chrf_plus_plus"] == 55.5
    assert not any("latency" in key or "per_minute" in key or "second" in key for key in row), row
    assert json.loads((fast / "timings.json").read_text())["demo"]["alpha"] == {
        "entries_per_minute": 3000.0, "avg_latency_seconds": 0.02, "elapsed_seconds": 6.0}
    assert json.loads((slow / "timings.json").read_text())["demo"]["alpha"]["entries_per_minute"] == 120.0


def test_git_ignores_timings_but_tracks_metrics():
    def ignored(path):
        return subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT, check=False).returncode == 0

    assert ignored("results/timings.json")
    assert not ignored("results/metrics.json")

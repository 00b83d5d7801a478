"""Rule `report` (src/lyss/report/__init__.py): every output from hand-written cards, the database keeping history
across runs, and the workflow/DVC declarations of those outputs."""

import json
import re
import sqlite3
from pathlib import Path

import yaml
from handmade_cards import changed, make_card, write_cards

from lyss.report import ReportOutputs, write_reports
from lyss.settings import Tier

ROOT = Path(__file__).resolve().parents[1]
TIERS = Tier.all_of([{"name": "fluent", "min": 0.85}, {"name": "deployable", "min": 0.7},
                     {"name": "functional", "min": 0.5}, {"name": "emerging", "min": 0.3},
                     {"name": "baseline", "min": 0.0}])


def _cards():
    return [make_card(method="alpha", fingerprint="a", composite=0.55, chrf=51.5),
            make_card(method="bravo", fingerprint="b", composite=0.72, composite_ci=(0.7, 0.74), chrf=60.25,
                      tier="deployable"),
            make_card(dataset="other", method="zeta", fingerprint="f", composite=0.4, tier="emerging")]


def _run(tmp_path, cards):
    paths = write_cards(tmp_path / "runs", cards)
    significance = tmp_path / "significance/demo.json"
    significance.parent.mkdir(exist_ok=True)
    significance.write_text(json.dumps({
        "dataset": "demo", "warnings": [], "comparisons": [],
        "best_cluster": {"metric": "composite", "best": "bravo", "methods": ["bravo"]}}))
    out = tmp_path / "results"
    outputs = ReportOutputs(out / "metrics.json", out / "leaderboard.md", html=out / "leaderboard.html",
                            plots_dir=out / "plots", database=out / "lyss.sqlite")
    write_reports(paths, [significance], outputs, datasets=["demo", "other"], tiers=TIERS)
    return out


def _rows(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT dataset_id, method_name, version, is_current, composite_score FROM run_cards "
                            "ORDER BY dataset_id, method_name, version").fetchall()


def test_report_writes_every_output(tmp_path):
    out = _run(tmp_path, _cards())
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["demo"]["bravo"]["composite"] == 0.72 and metrics["other"]["zeta"]["chrf_plus_plus"] == 50.0
    board = (out / "leaderboard.md").read_text()
    assert board.index("| 1 | bravo") < board.index("| 2 | alpha")
    page = (out / "leaderboard.html").read_text()
    assert 'id="board-demo"' in page and 'id="board-other"' in page and "★" in page
    assert _rows(out / "lyss.sqlite") == [("demo", "alpha", 1, 1, 0.55), ("demo", "bravo", 1, 1, 0.72),
                                          ("other", "zeta", 1, 1, 0.4)]
    for name in ("composite/demo.csv", "composite/other.csv", "tier_chrf/demo.csv",
                 "figures/composite_demo.png", "figures/tier_chrf_other.png"):
        assert (out / "plots" / name).exists(), name
    assert (out / "plots/composite/demo.csv").read_text().splitlines()[1] == "bravo,0.72,0.7,0.74,deployable"


def test_the_figures_are_drawn_beside_the_significance_tests_and_linked_by_the_page(tmp_path):
    """Rule `plots` needs the run cards only, so it runs while the significance tests do; rule `report` waits
    for its figures, and the page links the figures drawn there, drawing none itself."""
    rules = (ROOT / "rules/report.smk").read_text()
    plots_rule = rules[rules.index("rule plots:"):rules.index("rule report:")]
    report_rule = rules[rules.index("rule report:"):rules.index("rule validation_plots:")]
    assert "significance" not in plots_rule[plots_rule.index("input:"):plots_rule.index("output:")]
    assert "figures=rules.plots.output.figures" in report_rule[report_rule.index("input:"):report_rule.index("output:")]
    assert "results/plots" not in report_rule[report_rule.index("output:"):]
    drawn = tmp_path / "drawn"
    (drawn / "figures").mkdir(parents=True)
    (drawn / "figures" / "composite_demo.png").write_bytes(b"")
    out = tmp_path / "out"
    write_reports(write_cards(tmp_path / "runs", _cards()), [], ReportOutputs(
        out / "metrics.json", out / "leaderboard.md", html=out / "leaderboard.html",
        figures_dir=drawn / "figures"))
    assert '<a href="../drawn/figures/composite_demo.png">composite_demo</a>' in (out / "leaderboard.html").read_text()
    assert sorted(p.name for p in out.iterdir()) == ["leaderboard.html", "leaderboard.md", "metrics.json"]


def test_database_keeps_history_across_report_runs(tmp_path):
    cards = _cards()
    _run(tmp_path, cards)
    _run(tmp_path, cards)
    cards[0] = changed(cards[0], "9", composite=0.58)
    out = _run(tmp_path, cards)
    assert _rows(out / "lyss.sqlite") == [("demo", "alpha", 1, 0, 0.55), ("demo", "alpha", 2, 1, 0.58),
                                          ("demo", "bravo", 1, 1, 0.72), ("other", "zeta", 1, 1, 0.4)]


def test_workflow_and_dvc_declare_the_report_outputs():
    rule = (ROOT / "rules/report.smk").read_text()
    for output in ('"results/leaderboard.html"', 'update("results/lyss.sqlite")', '"results/plots/composite/',
                   '"results/plots/tier_chrf/', 'directory("results/plots/figures")',
                   '"results/validation/plots/correlations.csv"', 'directory("results/validation/plots/figures")'):
        assert output in rule, output
    assert len(re.findall(r"\breport\(\s*\n?\s*(directory\()?\"results/", rule)) == 3  # in `snakemake --report`
    assert "database=mask_url(configured_url(" in rule  # params are stored by Snakemake: never the password
    # the leaderboard needs the run cards, not the human-judgment study
    report_rule = rule[rule.index("rule report:"):rule.index("rule validation_plots:")]
    assert "validation" not in report_rule[:report_rule.index("output:")]
    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["aggregate"]
    outs = {next(iter(o)) if isinstance(o, dict) else o: o for o in stage["outs"]}
    # what holds this machine's speed or push times is rebuilt, not versioned (docs/settings.md)
    assert set(outs) == {"results/significance", "results/plots"}
    assert "results/validation" not in stage["deps"] and "results/evidence" in stage["deps"]
    assert "database" in stage["params"]
    assert yaml.safe_load((ROOT / "params.yaml").read_text())["database"] == {"url": None}
    for plot in yaml.safe_load((ROOT / "dvc.yaml").read_text())["plots"]:
        path = next(iter(plot)) if isinstance(plot, dict) else plot
        assert path.startswith(("results/plots/", "results/validation/")), path
        if isinstance(plot, dict) and plot[path].get("template", "").startswith("lyss_"):
            assert (ROOT / ".dvc/plots" / f"{plot[path]['template']}.json").exists()


def test_skipped_methods_with_the_same_reason_make_one_line():
    from lyss.report import skipped_by_reason

    skipped = {"sys_a": "no file for this dataset in methods.sys_a.paths (files were given for: ted)",
               "sys_b": "no file for this dataset in methods.sys_b.paths (files were given for: ted)",
               "apertium": "Apertium mode 'eng-fra' is not installed"}
    assert skipped_by_reason(skipped) == {
        "(no file for this dataset in the method's paths (files were given for: ted))": ["sys_a", "sys_b"],
        "(Apertium mode 'eng-fra' is not installed)": ["apertium"]}

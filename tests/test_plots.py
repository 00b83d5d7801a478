"""Plot data and figures (src/lyss/report/plots.py) from hand-written cards, and `dvc plots show` on the plots
declared in the project's dvc.yaml."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from chromium import start_chromium
from handmade_cards import make_card
from selenium.webdriver.support.ui import WebDriverWait

from lyss.report.plots import composite_rows, correlation_rows, tier_chrf_rows, write_plots, write_validation_plots
from lyss.settings import Tier

ROOT = Path(__file__).resolve().parents[1]
PNG = b"\x89PNG\r\n\x1a\n"
TIERS = Tier.all_of([{"name": "fluent", "min": 0.85}, {"name": "deployable", "min": 0.7},
                     {"name": "functional", "min": 0.5}, {"name": "emerging", "min": 0.3},
                     {"name": "baseline", "min": 0.0}])


def cards():
    return [
        make_card(method="alpha", fingerprint="a", composite=0.52, composite_ci=(0.5, 0.54),
                  by_difficulty={"1": (40.0, 35.0, 45.0), "2": (50.0, 46.5, 53.5), "10": (20.0, None, None)}),
        make_card(method="bravo", fingerprint="b", composite=0.61, composite_ci=(0.58, 0.64), tier="functional",
                  by_difficulty={"2": (30.0, 28.0, 32.0)}),
        make_card(method="charlie", fingerprint="c", composite=None, composite_ci=None, tier="unscored"),
    ]


CORRELATIONS = (
    "level,metric,n,grouping,epsilon,pearson,pearson_lo,pearson_hi,spearman,spearman_lo,spearman_hi,"
    "kendall,kendall_lo,kendall_hi,pairwise_accuracy,pairwise_accuracy_lo,pairwise_accuracy_hi\n"
    "segment,chrf,200,none,0,0.8,0.7,0.9,0.75,0.6,0.85,0.5,,,0.7,0.65,0.75\n"
    "system,chrf,3,none,0,1.0,0.9,1.0,,,,0.33,-0.5,1.0,0.66,0.5,1.0\n")


def test_composite_rows_rank_best_first_with_intervals():
    assert composite_rows(cards()) == [
        {"method": "bravo", "composite": 0.61, "ci_lower": 0.58, "ci_upper": 0.64, "quality_tier": "functional"},
        {"method": "alpha", "composite": 0.52, "ci_lower": 0.5, "ci_upper": 0.54, "quality_tier": "functional"},
        {"method": "charlie", "composite": None, "ci_lower": None, "ci_upper": None, "quality_tier": "unscored"},
    ]


def test_tier_rows_follow_difficulty_order_with_their_intervals():
    assert [(r["method"], r["difficulty_tier"], r["chrf_plus_plus"], r["ci_lower"], r["ci_upper"])
            for r in tier_chrf_rows(cards())] == [
        ("bravo", "2", 30.0, 28.0, 32.0),
        ("alpha", "1", 40.0, 35.0, 45.0), ("alpha", "2", 50.0, 46.5, 53.5), ("alpha", "10", 20.0, None, None)]


def test_correlations_in_long_form(tmp_path):
    path = tmp_path / "correlations.csv"
    path.write_text(CORRELATIONS)
    rows = correlation_rows(path)
    assert [(r["level"], r["statistic"], r["value"], r["ci_lower"], r["ci_upper"]) for r in rows] == [
        ("segment", "pearson", 0.8, 0.7, 0.9), ("segment", "spearman", 0.75, 0.6, 0.85),
        ("segment", "kendall", 0.5, None, None), ("segment", "pairwise_accuracy", 0.7, 0.65, 0.75),
        ("system", "pearson", 1.0, 0.9, 1.0), ("system", "kendall", 0.33, -0.5, 1.0),
        ("system", "pairwise_accuracy", 0.66, 0.5, 1.0)]
    assert rows[0]["label"] == "segment · chrf · pearson"


def _validation(tmp_path) -> Path:
    folder = tmp_path / "results/validation/correlate"
    folder.mkdir(parents=True)
    (folder / "correlations.csv").write_text(CORRELATIONS)
    return folder


def test_write_plots_files(tmp_path):
    out = tmp_path / "plots"
    written = write_plots(cards(), out, datasets=["demo", "empty"], tiers=TIERS)
    assert (out / "composite/demo.csv").read_text() == (
        "method,composite,ci_lower,ci_upper,quality_tier\n"
        "bravo,0.61,0.58,0.64,functional\nalpha,0.52,0.5,0.54,functional\ncharlie,,,,unscored\n")
    assert (out / "tier_chrf/demo.csv").read_text().splitlines()[:2] == [
        "method,difficulty_tier,n,chrf_plus_plus,ci_lower,ci_upper", "bravo,2,10,30.0,28.0,32.0"]
    assert (out / "composite/empty.csv").read_text() == "method,composite,ci_lower,ci_upper,quality_tier\n"
    for name in ("composite_demo", "tier_chrf_demo", "composite_empty"):
        data = (out / "figures" / f"{name}.png").read_bytes()
        assert data.startswith(PNG) and len(data) > 5000, name
    assert set(written) == {p for p in out.rglob("*") if p.is_file()}


def test_write_validation_plots_files(tmp_path):
    out = tmp_path / "results/validation/plots"
    written = write_validation_plots([_validation(tmp_path)], out)
    assert len((out / "correlations.csv").read_text().splitlines()) == 8
    data = (out / "figures/validation_correlations.png").read_bytes()
    assert data.startswith(PNG) and len(data) > 5000
    assert set(written) == {p for p in out.rglob("*") if p.is_file()}


def test_without_validation_the_table_is_a_header_and_there_is_no_figure(tmp_path):
    write_validation_plots([], tmp_path)
    assert (tmp_path / "correlations.csv").read_text() == "label,level,metric,statistic,value,ci_lower,ci_upper\n"
    assert not (tmp_path / "figures/validation_correlations.png").exists()


def show_plots(tmp_path) -> Path:
    """`dvc plots show` on the project's `plots:` section, templates and page template, with plot files written
    from hand-made cards; returns the page."""
    env = dict(os.environ, DVC_NO_ANALYTICS="1", PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["dvc", "init", "-q"], cwd=tmp_path, check=True, env=env)
    shutil.copytree(ROOT / ".dvc/plots", tmp_path / ".dvc/plots")
    shutil.copy(ROOT / ".dvc/config", tmp_path / ".dvc/config")  # plots.html_template: the offline page
    declared = yaml.safe_load((ROOT / "dvc.yaml").read_text())["plots"]
    (tmp_path / "dvc.yaml").write_text(yaml.safe_dump({"plots": declared}))
    validation = _validation(tmp_path)
    jury = tmp_path / "results/validation/jury"
    jury.mkdir(parents=True)
    write_plots(cards(), tmp_path / "results/plots", tiers=TIERS)
    write_validation_plots([validation, jury], tmp_path / "results/validation/plots")
    for name in ("jury_sizes.png", "distributions.png"):
        shutil.copy(tmp_path / "results/plots/figures/composite_demo.png", jury / name)

    done = subprocess.run(["dvc", "plots", "show", "--json"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert not shown.get("errors"), shown["errors"]
    data = shown["data"]
    assert {"results/plots/composite/demo.csv", "results/plots/tier_chrf/demo.csv",
            "results/validation/plots/correlations.csv", "results/validation/jury/jury_sizes.png"} <= set(data)
    composite = data["results/plots/composite/demo.csv"][0]["content"]
    assert [v["method"] for v in composite["data"]["values"]] == ["bravo", "alpha", "charlie"]
    assert composite["encoding"]["y"]["field"] == "method"
    assert composite["transform"][0] == {"calculate": "toNumber(datum['composite'])", "as": "lyss_value"}
    tier = data["results/plots/tier_chrf/demo.csv"][0]["content"]
    assert tier["encoding"]["x"]["field"] == "difficulty_tier"
    assert data["results/validation/jury/jury_sizes.png"][0]["type"] == "image"
    done = subprocess.run(["dvc", "plots", "show", "-o", str(tmp_path / "html")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and (tmp_path / "html/index.html").exists()
    return tmp_path / "html/index.html"


def test_dvc_plots_show_renders_the_declared_plots(tmp_path):
    assert "vega-embed" in show_plots(tmp_path).read_text(encoding="utf-8")


def test_dvc_plots_page_draws_every_plot_offline_in_chromium(tmp_path):
    """The page DVC writes through .dvc/plots/offline.html carries Vega itself: with every host name unresolvable,
    each declared Vega plot is drawn (a canvas or SVG with marks) and each image is shown."""
    page = show_plots(tmp_path)
    html = page.read_text(encoding="utf-8")
    assert not re.search(r"<script[^>]+src=|<link[^>]+href=\"?https?:", html)
    driver = start_chromium()
    try:
        driver.get(page.as_uri())
        # vega-embed replaces each plot's <div> content (its <script>) by the drawing
        plots = html.count("vegaEmbed('#")
        WebDriverWait(driver, 60).until(lambda d: d.execute_script(
            "const e = [...document.querySelectorAll('.vega-embed')];"
            "return e.length == arguments[0] && e.every(p => p.querySelector('canvas.marks, svg.marks'))", plots))
        drawn = driver.execute_script(
            "return [...document.querySelectorAll('.vega-embed')].map(p => {"
            " const r = p.querySelector('canvas.marks, svg.marks').getBoundingClientRect();"
            " return [p.id, r.width, r.height]; })")
        images = driver.execute_script("return [...document.images].map(i => i.naturalWidth)")
    finally:
        driver.quit()
    assert len(drawn) == 3, drawn  # composite and tier_chrf (one dataset each), correlations
    assert all(width > 50 and height > 50 for _, width, height in drawn), drawn
    assert len(images) == 2 and all(width > 0 for width in images), images


def test_an_interval_that_excludes_its_value_still_draws(tmp_path):
    """A percentile interval can exclude a skewed point estimate; the figure draws no negative bar."""
    card = make_card(composite=0.6, composite_ci=(0.62, 0.7), by_difficulty={"1": (30.0, 31.0, 35.0)})
    write_plots([card], tmp_path, tiers=TIERS)
    assert (tmp_path / "figures/composite_demo.png").read_bytes().startswith(PNG)

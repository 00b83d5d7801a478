"""results/leaderboard.html (src/lyss/report/page.py): content from hand-written cards, and the page
loaded in headless Chromium: the table renders and clicking a header reorders the rows. (tests/chromium.py)."""

import re

import pytest
from chromium import start_chromium
from handmade_cards import make_card

from lyss.report.page import coverage_warning, leaderboard_html

CAVEAT = {"id": "source_copy", "share": 0.9, "threshold": 0.2, "entries": 9,
          "message": "90% of outputs are (near) copies of their source (threshold 20%)"}


def demo_cards():
    """Four runs: composite order bravo > alpha > charlie; charlie has no composite; delta is cheapest."""
    return [
        make_card(method="alpha", fingerprint="a", composite=0.587, composite_ci=(0.574, 0.601), chrf=48.25,
                  chrf_ci=(46.36, 50.26), cost_per_entry=0.002, cost_adjusted=0.3, entries_per_minute=900.0,
                  avg_latency=0.8),
        make_card(method="bravo", fingerprint="b", composite=0.712, composite_ci=(0.69, 0.73), chrf=61.0,
                  tier="deployable", cost_per_entry=0.004, cost_adjusted=0.25, entries_per_minute=120.0,
                  avg_latency=2.5),
        make_card(method="charlie", fingerprint="c", composite=None, composite_ci=None, chrf=None, chrf_ci=None,
                  tier="unscored", cost_per_entry=None, entries_per_minute=3000.0, avg_latency=0.1),
        make_card(method="delta<script>", fingerprint="d", composite=0.31, composite_ci=(0.29, 0.33), chrf=20.0,
                  tier="baseline", cost_per_entry=0.0005, entries_per_minute=50.0, avg_latency=None,
                  caveats=[CAVEAT]),
    ]


SIGNIFICANCE = {"demo": {
    "warnings": [],
    "best_cluster": {"metric": "composite", "best": "bravo", "methods": ["bravo", "alpha"]},
    "comparisons": [{"baseline": "alpha", "system": "bravo", "metric": "composite", "p_bs_holm": 0.21,
                     "significant": False}],
}}


def test_cells_show_cis_tiers_marks_and_caveats():
    page = leaderboard_html(demo_cards(), SIGNIFICANCE)
    assert '0.587 <span class="ci">[0.574, 0.601]</span>' in page
    assert '48.25 <span class="ci">[46.36, 50.26]</span>' in page
    assert 'class="tier tier-deployable">Deployable<' in page and 'class="tier tier-unscored">Unscored<' in page
    alpha_row = re.search(r'<tr data-method="alpha">.*?</tr>', page).group(0)
    assert "≈" in alpha_row and "p = 0.21" in alpha_row
    assert "★" in re.search(r'<tr data-method="bravo">.*?</tr>', page).group(0)
    assert "≈" not in re.search(r'<tr data-method="charlie">.*?</tr>', page).group(0)
    # a caveat is a compact badge; its sentence is on hover (title) and for screen readers (aria-label)
    badge = re.search(r'<span class="caveat"[^>]*>source_copy</span>', page).group(0)
    assert 'title="source_copy: 90% of outputs are (near) copies' in badge and "aria-label=" in badge
    assert "delta&lt;script&gt;" in page and "<tr data-method=\"delta<script>\"" not in page
    assert page.index('data-method="bravo"') < page.index('data-method="alpha"') < page.index(
        'data-method="delta&lt;script&gt;"') < page.index('data-method="charlie"')


def test_tokens_column_shows_what_an_llm_used_and_a_dash_for_methods_that_use_none():
    cards = demo_cards()
    cards[0]["totals"]["total_tokens"] = 12345
    page = leaderboard_html(cards, SIGNIFICANCE)
    alpha_row = re.search(r'<tr data-method="alpha">.*?</tr>', page).group(0)
    assert '<td data-value="12345.0">12,345</td>' in alpha_row
    bravo_row = re.search(r'<tr data-method="bravo">.*?</tr>', page).group(0)
    assert '<td data-value="">—</td>' in bravo_row  # no tokens used: not sorted as if it were 0
    assert '<th scope="col" data-sort="tokens"' in page


def test_page_is_self_contained():
    page = leaderboard_html(demo_cards(), SIGNIFICANCE)
    assert not re.search(r"https?:|//[a-z]", page, flags=re.I)
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|@import|url\(", page, flags=re.I)
    assert "<style>" in page and "<script>" in page


def test_coverage_warning_only_when_available_metrics_differ():
    same = demo_cards()[:2]
    assert coverage_warning(same) is None
    assert "Metric coverage differs" not in leaderboard_html(same, {})
    differ = [make_card(method="a", applied=("chrf_plus_plus", "exact_match_rate")),
              make_card(method="b", fingerprint="b", applied=("chrf_plus_plus",))]
    warning = coverage_warning(differ)
    assert "a: chrf_plus_plus, exact_match_rate; b: chrf_plus_plus" in warning and "§4.1" in warning
    page = leaderboard_html(differ, {"demo": {"warnings": ["methods differ in available composite metrics"]}})
    assert "Metric coverage differs" in page and "methods differ in available composite metrics" in page


def test_one_section_per_dataset():
    page = leaderboard_html([*demo_cards(), make_card(dataset="other", method="zeta")], {})
    assert page.count('<table class="board"') == 2 and 'href="#dataset-other"' in page


# ---------------------------------------------------------------------------------------------- Chromium

@pytest.fixture(scope="module")
def browser():
    driver = start_chromium()
    yield driver
    driver.quit()


def _methods(driver) -> list[str]:
    return [row.get_attribute("data-method") for row in
            driver.find_elements("css selector", "table.board tbody tr")]


def _click(driver, key: str) -> str:
    header = driver.find_element("css selector", f'th[data-sort="{key}"]')
    header.find_element("tag name", "button").click()
    return header.get_attribute("aria-sort")


def test_table_renders_and_sorts_in_chromium(browser, tmp_path):
    path = tmp_path / "leaderboard.html"
    path.write_text(leaderboard_html(demo_cards(), SIGNIFICANCE), encoding="utf-8")
    browser.get(path.as_uri())
    table = browser.find_element("css selector", "table.board")
    assert table.is_displayed() and table.size["height"] > 100
    assert _methods(browser) == ["bravo", "alpha", "delta<script>", "charlie"]
    composite = browser.find_element("css selector", 'th[data-sort="composite"]')
    assert composite.get_attribute("aria-sort") == "descending"
    first_cells = [c.text for c in browser.find_elements("css selector", "tbody tr:first-child td")]
    # no evidence that the composite agrees with people on eng-spa: the tier is provisional (§1.6)
    assert first_cells[:4] == ["1", "bravo★\ncopy_source", "Deployable\nprovisional", "0.712\n[0.690, 0.730]"]
    # the page fits a 1280 px window: no table scrolls sideways
    assert browser.execute_script(
        "return Array.from(document.querySelectorAll('.table-wrap')).every(w => w.scrollWidth <= w.clientWidth)")

    # cost: cheapest first, the run without a cost last; a second click reverses, unknown still last
    assert _click(browser, "cost") == "ascending"
    assert composite.get_attribute("aria-sort") == "none"
    assert _methods(browser) == ["delta<script>", "alpha", "bravo", "charlie"]
    assert _click(browser, "cost") == "descending"
    assert _methods(browser) == ["bravo", "alpha", "delta<script>", "charlie"]
    # speed: most entries per minute first
    assert _click(browser, "speed") == "descending"
    assert _methods(browser) == ["charlie", "alpha", "bravo", "delta<script>"]
    # chrF++ and cost-adjusted, then back to composite
    assert _click(browser, "chrf_plus_plus") == "descending"
    assert _methods(browser) == ["bravo", "alpha", "delta<script>", "charlie"]
    assert _click(browser, "cost_adjusted") == "descending"  # ties (both unknown) keep the composite ranking
    assert _methods(browser) == ["alpha", "bravo", "delta<script>", "charlie"]
    assert _click(browser, "composite") == "descending"
    assert _methods(browser) == ["bravo", "alpha", "delta<script>", "charlie"]
    assert _click(browser, "composite") == "ascending"
    assert _methods(browser) == ["delta<script>", "alpha", "bravo", "charlie"]
    # nothing was fetched: the page is one file
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert browser.execute_script("return document.querySelectorAll('script[src], link[href]').length") == 0


def oracle_cards():
    """A reference oracle above every system, a gated run and a partial one above the best eligible system."""
    reference = make_card(method="reference", fingerprint="e", composite=0.98, tier="fluent")
    reference["method"]["kind"] = "reference"
    reference["reference_check"] = {
        "semantic_score": {"reference_value": 0.9335, "ideal": 1.0, "direction": "higher", "passed": False},
        "chrf_plus_plus": {"reference_value": 100.0, "ideal": 100.0, "direction": "higher", "passed": True}}
    reference["validation_status"] = {"chrf_plus_plus": "unvalidated", "semantic_score": "invalid here",
                                      "composite": "unvalidated"}
    gated = make_card(method="gated", fingerprint="f", composite=0.9, tier="baseline")
    gated["tier_gate"] = {"enabled": True, "ungated_tier": "fluent", "applied": True}
    part = make_card(method="part", fingerprint="1", composite=0.8, tier="partial")
    part["composite_profile"]["weight_share"] = 0.25
    system = make_card(method="system", fingerprint="2", composite=0.6, tier="functional")
    other = make_card(method="other", fingerprint="3", composite=0.55, tier="functional")
    return [reference, gated, part, system, other]


ORACLE_SIGNIFICANCE = {"demo": {"warnings": [], "comparisons": [
    {"baseline": "other", "system": "system", "metric": "composite", "p_bs_holm": 0.4, "significant": False},
    {"baseline": "reference", "system": "system", "metric": "composite", "p_bs_holm": 0.001, "significant": True}]}}


def test_star_skips_the_oracle_gated_and_partial_runs_and_the_oracle_row_comes_last():
    page = leaderboard_html(oracle_cards(), ORACLE_SIGNIFICANCE)
    row = {m: re.search(rf'<tr data-method="{m}"[^>]*>.*?</tr>', page).group(0)
           for m in ("reference", "gated", "part", "system", "other")}
    assert "★" in row["system"] and "≈" in row["other"]
    assert all("★" not in row[m] and "≈" not in row[m] for m in ("reference", "gated", "part"))
    assert row["reference"].startswith('<tr data-method="reference" class="oracle"><td>—</td>')
    assert page.index('data-method="other"') < page.index('data-method="reference"')
    assert "Partial" in row["part"] and "25% of the profile" in row["part"]
    assert "semantic_score (reference scores 0.9335)" in page
    assert "unvalidated: chrf_plus_plus, composite; invalid here: semantic_score" in page


def test_markdown_shows_the_oracle_unranked_and_provisional_tiers():
    from lyss.report import leaderboard_markdown

    board = leaderboard_markdown(oracle_cards(), ORACLE_SIGNIFICANCE)
    lines = [line for line in board.splitlines() if line.startswith("| ")]
    assert lines[1].startswith("| 1 | gated | 0.9000")
    assert lines[3].startswith("| 3 | system ★ | 0.6000") and "functional (provisional)" in lines[3]
    assert lines[4].startswith("| 4 | other ≈ |")
    assert lines[5].startswith("| — | reference (oracle) | 0.9800")
    assert "| part | 0.8000 [0.4500, 0.5500] | partial |" in lines[2]


def test_figures_are_linked_as_local_files():
    page = leaderboard_html(demo_cards(), SIGNIFICANCE, figures=["plots/figures/composite_demo.png"])
    assert '<a href="plots/figures/composite_demo.png">composite_demo</a>' in page
    assert not re.search(r"https?:", page)  # the plots open offline


def test_the_oracle_row_stays_unranked_under_every_sort_in_chromium(browser, tmp_path):
    path = tmp_path / "leaderboard.html"
    path.write_text(leaderboard_html(oracle_cards(), ORACLE_SIGNIFICANCE), encoding="utf-8")
    browser.get(path.as_uri())
    keys = [h.get_attribute("data-sort") for h in browser.find_elements("css selector", "th[data-sort]")]
    assert {"composite", "chrf_plus_plus", "cost", "speed"} <= set(keys)
    for key in keys:
        for _ in range(2):  # both directions
            _click(browser, key)
            assert _methods(browser)[-1] == "reference", (key, _methods(browser))


def test_a_wide_real_board_keeps_every_column_usable_at_1280_px(browser, tmp_path):
    """13 systems with WMT-length names and up to three caveats each (the TED board): nothing scrolls sideways
    and the caveats column ends inside the window."""
    cards = []
    for i in range(13):
        caveats = [dict(CAVEAT, id=name) for name in ("source_copy", "misaligned_output", "constant_output")[:i % 4]]
        cards.append(make_card(method=f"wmt21_volctrans_glat_{i}", fingerprint=str(i), composite=0.7 - i / 100,
                               composite_ci=(0.69 - i / 100, 0.71 - i / 100), chrf=55.0 - i, chrf_ci=(54.0, 56.0),
                               caveats=caveats, entries_per_minute=12345.6, avg_latency=0.0123))
    path = tmp_path / "leaderboard.html"
    path.write_text(leaderboard_html(cards, {}), encoding="utf-8")
    browser.get(path.as_uri())
    assert browser.execute_script(
        "return Array.from(document.querySelectorAll('.table-wrap')).every(w => w.scrollWidth <= w.clientWidth)")
    right = browser.execute_script(
        "return Math.max(...[...document.querySelectorAll('td.caveats')].map(c => c.getBoundingClientRect().right))")
    assert right <= browser.execute_script("return document.documentElement.clientWidth")

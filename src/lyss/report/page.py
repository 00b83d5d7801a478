"""`results/leaderboard.html`: one self-contained page (inline CSS and JavaScript, no external address, so
it opens offline) with a table per dataset.

Each table starts ranked by composite and sorts by clicking a column header (composite, chrF++, cost per
entry, cost-adjusted, speed, latency; the header carries `aria-sort`, unknown values stay last). A row
shows the tier badge (with the caveat gate, when it applied), the composite and chrF++ with their 95%
bootstrap CIs as "0.587 [0.574, 0.601]", "≈" on methods not significantly different from the best (the
significance file's `best_cluster`), the run's score caveats, and how many weighted metrics its composite
used. Above the table: the spec §4.1 warning when the runs differ in available composite metrics, and the
significance file's own warnings.
"""

import html
import json
from pathlib import Path

from lyss.metrics import declaration, label, leaderboard_metrics
from lyss.report.board import best_marks, dataset_notes, is_oracle, ranked, review_note

TIER_LABELS = {"fluent": "Fluent", "deployable": "Deployable", "functional": "Functional", "emerging": "Emerging",
               "baseline": "Baseline", "unscored": "Unscored", "partial": "Partial"}

# (key, header, card path, first click direction) of the sortable columns around the metric columns, which
# come from the metric declarations (lyss.metrics.leaderboard_metrics).
HEAD_COLUMNS = [("composite", "Composite [95% CI]", ("scores", "composite"), "descending")]
TAIL_COLUMNS = [
    ("cost", "Cost / entry (USD)", ("totals", "cost_per_entry_usd"), "ascending"),
    ("cost_adjusted", "Cost-adjusted", ("scores", "cost_adjusted"), "descending"),
    ("tokens", "Tokens", ("totals", "total_tokens"), "ascending"),
    ("speed", "Entries / min", ("scores", "entries_per_minute"), "descending"),
    ("latency", "Avg latency (s)", ("scores", "avg_latency_seconds"), "ascending"),
]


def sortable_columns() -> list[tuple[str, str, tuple[str, str], str]]:
    """Composite, then one column per leaderboard metric (its label, its CI when it has one, best first by
    its direction), then cost, tokens and speed."""
    metrics = [(m, label(m) + (" [95% CI]" if declaration(m, "has_ci") else ""), ("scores", m),
                "ascending" if declaration(m, "direction") == "lower" else "descending")
               for m in leaderboard_metrics()]
    return HEAD_COLUMNS + metrics + TAIL_COLUMNS


CSS = """
:root { --fg: #1d232a; --muted: #5b6570; --line: #d8dde3; --head: #f3f5f7; --warn-bg: #fff6e0; --warn: #8a5a00; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
       margin: 0 auto; max-width: 1600px; padding: 1.5rem 1rem; }
h1 { margin: 0 0 .25rem; } h2 { margin: 2rem 0 .5rem; } h2 small { color: var(--muted); font-weight: normal; }
p.lead, .note { color: var(--muted); }
.table-wrap { overflow-x: auto; }
table.board { border-collapse: collapse; width: 100%; font-size: 14px; font-variant-numeric: tabular-nums; }
table.board caption { text-align: left; color: var(--muted); padding: .25rem 0; }
table.board th, table.board td { border-bottom: 1px solid var(--line); padding: .35rem .3rem; text-align: right;
       vertical-align: top; white-space: nowrap; }
table.board th { background: var(--head); font-weight: 600; position: sticky; top: 0; white-space: normal;
       vertical-align: bottom; }
table.board th.text, table.board td.text { text-align: left; white-space: normal; }
table.board td.caveats { min-width: 7em; max-width: 14em; }
table.board th button { font: inherit; font-weight: 600; background: none; border: 0; padding: 0; cursor: pointer;
       color: inherit; }
table.board th button::after { content: " \\2195"; color: var(--muted); }
table.board th[aria-sort="descending"] button::after { content: " \\25BC"; color: var(--fg); }
table.board th[aria-sort="ascending"] button::after { content: " \\25B2"; color: var(--fg); }
table.board tbody tr:hover { background: #fafbfc; }
.ci { display: block; color: var(--muted); font-size: .85em; }
.mark { font-weight: 700; margin-left: .3em; cursor: help; }
.mark.best { color: #1a7f37; } .mark.tied { color: #0b5cad; } .mark.withheld { color: #9a6700; }
.sub { display: block; color: var(--muted); font-size: .85em; }
.review-confirmed { color: #116329; font-weight: 600; } .review-overturned { color: #8e1519; font-weight: 600; }
.tier { display: inline-block; border-radius: 999px; padding: .05rem .6rem; font-size: .85em; font-weight: 600;
       border: 1px solid transparent; }
.tier-fluent { background: #dafbe1; color: #116329; border-color: #9be9a8; }
.tier-deployable { background: #ddf4ff; color: #0a4a8a; border-color: #9cd3ff; }
.tier-functional { background: #fff8c5; color: #6b5000; border-color: #f0d96b; }
.tier-emerging { background: #ffe7d1; color: #8a3c00; border-color: #ffb77a; }
.tier-baseline { background: #ffebe9; color: #8e1519; border-color: #ffaba8; }
.tier-unscored, .tier-partial { background: #eef0f2; color: var(--muted); border-color: var(--line); }
tr.oracle { background: #f6f8fa; font-style: italic; }
.caveat { display: inline-block; margin: 0 .2em .2em 0; padding: 0 .45em; border-radius: 4px; cursor: help;
       background: #ffebe9; color: #8e1519; border: 1px solid #ffaba8; font-size: .8em; white-space: nowrap; }
.warning { background: var(--warn-bg); color: var(--warn); border-left: 4px solid #d4a72c; padding: .6rem .9rem;
       margin: .6rem 0; }
.warning strong { color: #6b4500; }
details { margin: .6rem 0; color: var(--muted); } details ul { margin: .3rem 0; }
footer { margin-top: 2.5rem; color: var(--muted); font-size: .9em; border-top: 1px solid var(--line); }
"""

SCRIPT = """
(function () {
  function value(row, index) {
    var raw = row.cells[index].getAttribute("data-value");
    return raw === null || raw === "" ? null : parseFloat(raw);
  }
  document.querySelectorAll("table.board").forEach(function (table) {
    var body = table.tBodies[0];
    Array.prototype.forEach.call(body.rows, function (row, i) { row.setAttribute("data-order", i); });
    table.querySelectorAll("th[data-sort]").forEach(function (header) {
      header.querySelector("button").addEventListener("click", function () {
        var first = header.getAttribute("data-first");
        var now = header.getAttribute("aria-sort");
        var direction = now === first ? (first === "descending" ? "ascending" : "descending") : first;
        table.querySelectorAll("th[data-sort]").forEach(function (h) { h.setAttribute("aria-sort", "none"); });
        header.setAttribute("aria-sort", direction);
        var index = header.cellIndex, sign = direction === "ascending" ? 1 : -1;
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var oracle = a.classList.contains("oracle") - b.classList.contains("oracle");
          if (oracle) return oracle;  // the oracle row is not ranked: it stays below the ranked rows
          var x = value(a, index), y = value(b, index);
          if (x === null || y === null) {
            if (x === null && y !== null) return 1;
            if (y === null && x !== null) return -1;
          } else if (x !== y) {
            return sign * (x - y);
          }
          return a.getAttribute("data-order") - b.getAttribute("data-order");
        });
        rows.forEach(function (row) { body.appendChild(row); });
        table.setAttribute("data-sorted-by", header.getAttribute("data-sort") + " " + direction);
      });
    });
  });
})();
"""


def _esc(value) -> str:
    return html.escape(str(value), quote=True)


def _get(card: dict, path: tuple[str, ...]):
    value = card
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _num(value, digits: int) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def with_ci(value, interval: dict | None, digits: int) -> str:
    """"0.587 [0.574, 0.601]"; the value alone when there is no interval; "—" when there is no value."""
    text = _num(value, digits)
    if value is None or not interval or interval.get("ci_lower") is None or interval.get("ci_upper") is None:
        return _esc(text)
    return (f"{_esc(text)} <span class=\"ci\">[{interval['ci_lower']:.{digits}f}, "
            f"{interval['ci_upper']:.{digits}f}]</span>")


def available_composite_metrics(card: dict) -> list[str]:
    """The weighted metrics the card's composite used (its applied, renormalised weights)."""
    return list(card.get("composite_profile", {}).get("applied_weights", {}))


def coverage_warning(cards: list[dict]) -> str | None:
    """Spec §4.1: the runs of one table differ in which composite metrics are available."""
    sets = {c["method"]["name"]: available_composite_metrics(c) for c in cards}
    profiles = {c["composite_profile"]["profile"] for c in cards}
    if len({frozenset(v) for v in sets.values()}) <= 1 and len(profiles) <= 1:
        return None
    shared = set.intersection(*(set(v) for v in sets.values())) if sets else set()
    listing = "; ".join(f"{name}: {', '.join(v) or 'none'}" for name, v in sets.items())
    return (f"The runs differ in the metrics available to their composite ({listing}). Composites computed "
            "over different metric sets are not directly comparable (spec §4.1): a composite over five metrics "
            "carries more information than the same value over two. For a rigorous comparison use the paired "
            f"significance test over the shared metrics ({', '.join(sorted(shared)) or 'none'}).")


def _tier_cell(card: dict) -> str:
    tier = card["scores"].get("quality_tier") or "unscored"
    badge = f"<span class=\"tier tier-{_esc(tier)}\">{_esc(TIER_LABELS.get(tier, tier))}</span>"
    if card.get("tier_status", "provisional") == "provisional" and tier not in ("unscored", "partial"):
        badge += ("<span class=\"sub\" title=\"the composite is not validated against human judgments on this "
                  "language pair (spec §1.6)\">provisional</span>")
    if tier == "partial":
        share = card.get("composite_profile", {}).get("weight_share")
        shown = "" if share is None else f" ({share:.0%} of the profile's weight)"
        badge += f"<span class=\"sub\">no tier: the composite covers too little of the profile{shown}</span>"
    review = review_note(card)
    if review:
        badge += (f"<span class=\"sub review review-{_esc(card['tier_review']['status'].replace(' ', '-'))}\" "
                  f"title=\"{_esc(review[1])}\">{_esc(review[0])}</span>")
    gate = card.get("tier_gate") or {}
    if gate.get("applied"):
        ungated = gate.get("ungated_tier")
        badge += (f"<span class=\"sub\" title=\"the caveat gate keeps a run with caveats at baseline\">gated; "
                  f"composite alone: {_esc(TIER_LABELS.get(ungated, ungated))}</span>")
    return badge


def _caveats_cell(card: dict) -> str:
    caveats = card.get("score_caveats") or []
    if not caveats:
        return "—"
    parts = []
    for caveat in caveats:
        if isinstance(caveat, dict):  # a compact badge; the full sentence on hover and for screen readers
            message = f"{caveat.get('id', '?')}: {caveat.get('message', '')}"
            parts.append(f"<span class=\"caveat\" tabindex=\"0\" title=\"{_esc(message)}\" "
                         f"aria-label=\"{_esc(message)}\">{_esc(caveat.get('id', '?'))}</span>")
        else:
            parts.append(f"<span class=\"caveat\">{_esc(caveat)}</span>")
    return "".join(parts)


def _sort_value(value) -> str:
    return "" if value is None else repr(float(value))


def _row(rank: int | str, card: dict, marks: dict, weights_total: int) -> str:
    name = card["method"]["name"]
    s, t = card["scores"], card["totals"]
    intervals = s.get("confidence_intervals") or {}
    method = f"{_esc(name)}"
    if is_oracle(card):
        method += ("<span class=\"sub\" title=\"the references scored as a method: what a perfect system "
                   "gets; not ranked\">oracle</span>")
    note = marks.get(name)
    if note:
        mark, tip = note
        css = {"★": "best", "☆": "withheld"}.get(mark, "tied")
        method += f"<span class=\"mark {css}\" title=\"{_esc(tip)}\" aria-label=\"{_esc(tip)}\">{mark}</span>"
    details = [card["method"].get("kind"), card.get("model_slug"), card.get("condition")]
    subtitle = " · ".join(dict.fromkeys(d for d in details if d and d not in (name, "default")))
    if subtitle:
        method += f"<span class=\"sub\">{_esc(subtitle)}</span>"
    cells = [f"<td>{rank}</td>", f"<td class=\"text\">{method}</td>", f"<td class=\"text\">{_tier_cell(card)}</td>"]
    display = {
        "composite": with_ci(s.get("composite"), intervals.get("composite"), 3),
        **{m: with_ci(s.get(m), intervals.get(m), declaration(m, "decimals")) for m in leaderboard_metrics()},
        "cost": _esc(_num(t.get("cost_per_entry_usd"), 6)),
        "cost_adjusted": _esc(_num(s.get("cost_adjusted"), 4)),
        "tokens": _esc(f"{t['total_tokens']:,}" if t.get("total_tokens") else "—"),
        "speed": _esc(_num(s.get("entries_per_minute"), 1)),
        "latency": _esc(_num(s.get("avg_latency_seconds"), 4)),
    }
    for key, _header, path, _first in sortable_columns():
        value = _get(card, path) or None if key == "tokens" else _get(card, path)  # 0 tokens: none used
        cells.append(f"<td data-value=\"{_sort_value(value)}\">{display[key]}</td>")
    used = available_composite_metrics(card)
    cells.append(f"<td title=\"{_esc(', '.join(used) or 'none')}\">{len(used)}/{weights_total}</td>")
    cells.append(f"<td class=\"text caveats\">{_caveats_cell(card)}</td>")
    oracle = " class=\"oracle\"" if is_oracle(card) else ""
    return f"<tr data-method=\"{_esc(name)}\"{oracle}>" + "".join(cells) + "</tr>"


def _table(dataset: str, group: list[dict], sig: dict) -> str:
    profile = group[0]["composite_profile"]
    weights_total = sum(1 for w in profile.get("weights", {}).values() if w)
    head = ["<th scope=\"col\">#</th>", "<th scope=\"col\" class=\"text\">Method</th>",
            "<th scope=\"col\" class=\"text\">Tier</th>"]
    for key, header, _path, first in sortable_columns():
        state = "descending" if key == "composite" else "none"
        head.append(f"<th scope=\"col\" data-sort=\"{key}\" data-first=\"{first}\" aria-sort=\"{state}\">"
                    f"<button type=\"button\">{_esc(header)}</button></th>")
    head += ["<th scope=\"col\" title=\"weighted metrics available to the composite\">Metrics</th>",
             "<th scope=\"col\" class=\"text\">Caveats</th>"]
    marks = best_marks(group, sig)
    ordered = sorted(ranked(group), key=is_oracle)  # the oracle is not ranked: below the ranked rows, no number
    runs = [card for card in ordered if not is_oracle(card)]
    rows = [_row(runs.index(card) + 1 if card in runs else "—", card, marks, weights_total) for card in ordered]
    caption = (f"{len(group)} run(s), ranked by composite; click a column header to sort. CIs: 95% percentile "
               "bootstrap.")
    return (f"<div class=\"table-wrap\"><table class=\"board\" id=\"board-{_esc(dataset)}\" "
            f"data-dataset=\"{_esc(dataset)}\" data-sorted-by=\"composite descending\">"
            f"<caption>{_esc(caption)}</caption><thead><tr>{''.join(head)}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _unavailable(group: list[dict]) -> str:
    items = []
    for card in ranked(group):
        reasons = card.get("null_reasons") or {}
        if reasons:
            listed = "".join(f"<li><code>{_esc(m)}</code>: {_esc(r)}</li>" for m, r in sorted(reasons.items()))
            items.append(f"<li>{_esc(card['method']['name'])}<ul>{listed}</ul></li>")
    if not items:
        return ""
    return f"<details><summary>Metrics without a value, and why</summary><ul>{''.join(items)}</ul></details>"


def _section(dataset: str, group: list[dict], sig: dict) -> str:
    first = group[0]
    entries = first["scores"].get("total")
    title = (f"{_esc(first['dataset'].get('language_pair', ''))} · composite profile "
             f"{_esc(first['composite_profile']['profile'])}" + (f" · {entries} entries" if entries else ""))
    parts = [f"<section class=\"dataset\" id=\"dataset-{_esc(dataset)}\" aria-labelledby=\"h-{_esc(dataset)}\">",
             f"<h2 id=\"h-{_esc(dataset)}\">{_esc(dataset)} <small>{title}</small></h2>"]
    warning = coverage_warning(group)
    if warning:
        parts.append(f"<div class=\"warning coverage\" role=\"note\"><strong>Metric coverage differs.</strong> "
                     f"{_esc(warning)}</div>")
    for text in sig.get("warnings", []):
        parts.append(f"<div class=\"warning significance\" role=\"note\"><strong>Significance.</strong> "
                     f"{_esc(text)}</div>")
    if not sig:
        parts.append("<p class=\"note\">No significance file for this dataset: no ≈ marks.</p>")
    parts.append(_table(dataset, group, sig))
    parts += [f"<p class=\"note\">{_esc(note)}</p>" for note in dataset_notes(group)]
    parts.append(_unavailable(group))
    parts.append("</section>")
    return "\n".join(p for p in parts if p)


def leaderboard_html(cards: list[dict], significance: dict[str, dict], figures=()) -> str:
    """The page for `cards` (any number of datasets); `significance` maps dataset id → its significance file;
    `figures`: relative paths of PNG figures to link (local files, so the plots open offline)."""
    by_dataset: dict[str, list[dict]] = {}
    for card in cards:
        by_dataset.setdefault(card["dataset"]["id"], []).append(card)
    sections = [_section(d, by_dataset[d], significance.get(d, {})) for d in sorted(by_dataset)]
    nav = ""
    if len(by_dataset) > 1:
        nav = "<nav><p>Datasets: " + ", ".join(
            f"<a href=\"#dataset-{_esc(d)}\">{_esc(d)}</a>" for d in sorted(by_dataset)) + "</p></nav>"
    body = "\n".join(sections) if sections else "<p>No run cards yet.</p>"
    if figures:
        body += ("\n<section><h2>Figures</h2><ul>" + "".join(
            f"<li><a href=\"{_esc(f)}\">{_esc(Path(f).stem)}</a></li>" for f in figures) + "</ul></section>")
    footer = (
        "<footer><p><strong>Reading the table.</strong> Composite: the spec §4 weighted mean of the available "
        "metrics, renormalised. Tier: the spec §5 heuristic label of the composite; it is provisional unless the "
        "composite is validated against human judgments on the language pair (§1.6), and only review by "
        "bilingual speakers confirms that an output is usable: a tier is confirmed or overturned by a community "
        "review meeting §1.6 (docs/review.md), and deployable or above without one is a candidate for review; "
        "partial: the composite covers less than "
        "composite.min_weight_share of the profile's weight, so it gets no tier. The oracle row is the "
        "references scored as a method (what a perfect system gets); a metric it fails is not valid on the "
        "dataset. ★ best composite among systems with a full, ungated tier; ≈ not "
        "significantly different from it (paired bootstrap on the composite, Holm-corrected, α = 0.05); ☆ the "
        "best composite, but the dataset's raters significantly prefer another system (no ★). "
        "Cost-adjusted: composite / log2(1 + 1000 × cost per entry), only for paid methods (spec §6.3). "
        "Speed: entries per minute of wall-clock translation time (spec §7). Metrics: weighted composite "
        "metrics with a value, out of those the profile weights. — means no value.</p></footer>")
    data = json.dumps({d: [c["method"]["name"] for c in ranked(g)] for d, g in by_dataset.items()},
                      ensure_ascii=False).replace("</", "<\\/")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<title>LYSS leaderboard</title>\n"
        f"<style>{CSS}</style>\n</head>\n<body>\n<header><h1>LYSS leaderboard</h1>"
        f"<p class=\"lead\">{len(cards)} run card(s) over {len(by_dataset)} dataset(s). Quality, cost and speed "
        "are reported side by side (spec §1.5); sort by any of them.</p></header>\n"
        f"{nav}\n{body}\n{footer}\n"
        f"<script type=\"application/json\" id=\"ranking\">{data}</script>\n"
        f"<script>{SCRIPT}</script>\n</body>\n</html>\n")

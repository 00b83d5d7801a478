"""The review page: one HTML file with its data, style and script inline, so that it opens from a USB stick
with no network (it fetches nothing; tests/test_review_page.py checks that in Chromium).

A speaker types a rater id, picks a packet, and rates each output on WMT's 0–100 direct-assessment scale
(slider or number), optionally marking error spans (select text, then category and severity, as in MQM).
Progress is kept in the browser's localStorage under the study id, rater and packet, so closing the page
loses nothing and two speakers may share a browser; the
export button downloads the ratings file (JSON Lines: a header line, then one rating per line, so that
`lyss review import` can name the line of any problem).
"""

import html
import json

from lyss.review.ratings import CATEGORIES, RATINGS_FORMAT, SEVERITIES


def page_data(key: dict, entries: dict[str, dict], outputs: dict[str, dict[str, str]]) -> dict:
    """What the page needs and nothing more: per item the source, the output and (when shown) the
    reference; never the method or the entry id."""
    show_reference = key["settings"]["show_reference"]
    items = {}
    for item, where in key["items"].items():
        entry = entries[where["id"]]
        items[item] = {"source": entry["source"], "output": outputs[where["method"]][where["id"]]}
        if show_reference:
            items[item]["reference"] = entry.get("reference") or ""
    return {"format": RATINGS_FORMAT, "study": key["study"], "dataset": key["dataset"],
            "language_pair": key["language_pair"], "neutral": key["settings"]["neutral"],
            "categories": list(CATEGORIES), "severities": list(SEVERITIES), "packets": key["packets"],
            "items": items}


def _json_for_script(data: dict) -> str:
    """JSON that cannot close its <script> element or open a comment, whatever the texts hold."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def review_html(key: dict, entries: dict[str, dict], outputs: dict[str, dict[str, str]]) -> str:
    data = page_data(key, entries, outputs)
    title = html.escape(f"Review: {key['dataset']} ({key['language_pair']})")
    return (PAGE.replace("__TITLE__", title).replace("__DATA__", _json_for_script(data)))


PAGE = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
:root { --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; --accent: #0969da; --bg: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 16px/1.5 system-ui, sans-serif; color: var(--ink); margin: 0; background: var(--bg); }
header, main { max-width: 60rem; margin: 0 auto; padding: 1rem 1.5rem; }
header h1 { font-size: 1.3rem; margin: .2rem 0; }
.muted { color: var(--muted); font-size: .9em; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.25rem; margin: .8rem 0; }
.label { font-size: .8em; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 0 0 .2rem; }
.text { font-size: 1.1rem; white-space: pre-wrap; margin: 0 0 .8rem; }
#output { border: 1px dashed var(--line); border-radius: 6px; padding: .5rem .6rem; cursor: text; }
mark { border-radius: 3px; padding: 0 1px; }
mark.minor { background: #fff1a8; } mark.major { background: #ffc1bd; }
.scale { display: flex; align-items: center; gap: 1rem; margin: .6rem 0; }
.scale input[type=range] { flex: 1; }
.scale input[type=number] { width: 5rem; font-size: 1rem; padding: .2rem; }
.ends { display: flex; justify-content: space-between; font-size: .85em; color: var(--muted); }
.unrated { color: #9a6700; font-weight: 600; }
.row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .5rem 0; }
button { font: inherit; padding: .35rem .9rem; border-radius: 6px; border: 1px solid var(--line); background: #fff;
         cursor: pointer; }
button.primary { background: var(--accent); color: #fff; border-color: var(--accent); }
button:disabled { opacity: .5; cursor: default; }
select, input[type=text] { font: inherit; padding: .25rem .4rem; }
ul#spans { margin: .3rem 0; padding-left: 1.2rem; }
progress { width: 12rem; vertical-align: middle; }
[hidden] { display: none !important; }
</style>
</head>
<body>
<header>
  <h1>__TITLE__</h1>
  <p class="muted">Rate how well each translation expresses the meaning of the source, as a speaker of both
  languages. Systems are hidden and shuffled. Your work is saved in this browser as you go; nothing is sent
  anywhere. When you are done, press <b>Download ratings</b> and return the file.</p>
</header>
<main>
  <section id="start" class="card">
    <p class="label">Who is rating</p>
    <div class="row">
      <label>Rater id <input type="text" id="rater" autocomplete="off" placeholder="e.g. speaker-a"></label>
      <label>Packet <select id="packet"></select></label>
      <button class="primary" id="begin">Start</button>
    </div>
    <p class="muted">Use the rater id and packet number you were given. Letters, digits, "-" and "_" only.</p>
    <p id="start-problem" class="unrated" hidden></p>
  </section>
  <section id="work" hidden>
    <div class="row">
      <span id="position"></span>
      <progress id="done" max="1" value="0"></progress>
      <span id="count" class="muted"></span>
      <span style="flex:1"></span>
      <button id="download" class="primary">Download ratings</button>
    </div>
    <div class="card">
      <p class="label">Source</p>
      <p class="text" id="source"></p>
      <div id="reference-block" hidden>
        <p class="label">Reference translation</p>
        <p class="text" id="reference"></p>
      </div>
      <p class="label">Translation to rate (select words to mark an error)</p>
      <p class="text" id="output"></p>
      <div class="row">
        <label>Category <select id="category"></select></label>
        <label>Severity <select id="severity"></select></label>
        <button id="mark">Mark selected text as error</button>
      </div>
      <ul id="spans"></ul>
      <p class="label">Quality (0–100)</p>
      <div class="scale">
        <input type="range" id="slider" min="0" max="100" step="1" value="50" aria-label="quality slider">
        <input type="number" id="score" min="0" max="100" step="1" aria-label="quality score">
        <span id="state" class="unrated">not rated yet</span>
      </div>
      <div class="ends"><span>0: nonsense / meaning lost</span><span>50: usable only after editing</span>
        <span>100: perfect</span></div>
    </div>
    <div class="row">
      <button id="prev">← Previous</button>
      <button id="next" class="primary">Next →</button>
      <button id="next-unrated">Next unrated</button>
    </div>
  </section>
</main>
<script type="application/json" id="data">__DATA__</script>
<script>
"use strict";
const DATA = JSON.parse(document.getElementById("data").textContent);
// One saved state per rater and packet, so two speakers sharing a browser never overwrite each other's work;
// the last one used fills in the start form.
const PREFIX = "lyss-review:" + DATA.study + ":";
const $ = (id) => document.getElementById(id);
let state = {ratings: {}};

function load(rater, packet) {
  try {
    const saved = JSON.parse(localStorage.getItem(PREFIX + rater + ":" + packet));
    if (saved && saved.ratings) return saved;
  } catch (e) { /* unreadable: start afresh */ }
  return {rater, packet, position: 0, ratings: {}};
}
function save() {
  localStorage.setItem(PREFIX + state.rater + ":" + state.packet, JSON.stringify(state));
  localStorage.setItem(PREFIX + "last", JSON.stringify({rater: state.rater, packet: state.packet}));
}
function items() { return DATA.packets[state.packet - 1]; }
function current() { return items()[state.position]; }
function rating(item) {
  if (!state.ratings[item]) state.ratings[item] = {score: null, errors: []};
  return state.ratings[item];
}

function options(select, values) {
  for (const v of values) {
    const o = document.createElement("option");
    o.value = o.textContent = v;
    select.appendChild(o);
  }
}
options($("packet"), DATA.packets.map((_, k) => String(k + 1)));
options($("category"), DATA.categories);
options($("severity"), DATA.severities);

function begin() {
  const rater = $("rater").value.trim();
  if (!/^[A-Za-z0-9_-]+$/.test(rater)) {
    $("start-problem").textContent = "Please type a rater id of letters, digits, '-' or '_'.";
    $("start-problem").hidden = false;
    return;
  }
  const packet = Number($("packet").value);
  state = load(rater, packet);
  save();
  $("start").hidden = true;
  $("work").hidden = false;
  show();
}

function show() {
  const item = current(), text = DATA.items[item], r = rating(item);
  $("position").textContent = "Item " + (state.position + 1) + " of " + items().length;
  $("source").textContent = text.source;
  $("reference-block").hidden = !("reference" in text);
  if ("reference" in text) $("reference").textContent = text.reference;
  drawOutput(text.output, r.errors);
  const rated = r.score !== null;
  $("score").value = rated ? r.score : "";
  $("slider").value = rated ? r.score : 50;
  $("state").textContent = rated ? "rated" : "not rated yet";
  $("state").className = rated ? "muted" : "unrated";
  $("prev").disabled = state.position === 0;
  $("next").disabled = state.position === items().length - 1;
  const done = items().filter((i) => state.ratings[i] && state.ratings[i].score !== null).length;
  $("done").max = items().length;
  $("done").value = done;
  $("count").textContent = done + " rated";
}

function drawOutput(output, errors) {
  const box = $("output");
  box.textContent = "";
  const spans = [...errors].sort((a, b) => a.start - b.start);
  let at = 0;
  for (const e of spans) {
    if (e.start > at) box.appendChild(document.createTextNode(output.slice(at, e.start)));
    const m = document.createElement("mark");
    m.className = e.severity;
    m.title = e.category + " / " + e.severity;
    m.textContent = output.slice(e.start, e.end);
    box.appendChild(m);
    at = e.end;
  }
  if (at < output.length) box.appendChild(document.createTextNode(output.slice(at)));
  const list = $("spans");
  list.textContent = "";
  errors.forEach((e, k) => {
    const li = document.createElement("li");
    li.textContent = "“" + e.text + "” — " + e.category + ", " + e.severity + " ";
    const remove = document.createElement("button");
    remove.textContent = "remove";
    remove.addEventListener("click", () => { rating(current()).errors.splice(k, 1); save(); show(); });
    li.appendChild(remove);
    list.appendChild(li);
  });
}

function offsetIn(box, node, offset) {
  const range = document.createRange();
  range.selectNodeContents(box);
  range.setEnd(node, offset);
  return range.toString().length;
}

function markSelection() {
  const selection = window.getSelection(), box = $("output");
  if (!selection.rangeCount) return;
  const range = selection.getRangeAt(0);
  if (!box.contains(range.startContainer) || !box.contains(range.endContainer)) return;
  let start = offsetIn(box, range.startContainer, range.startOffset);
  let end = offsetIn(box, range.endContainer, range.endOffset);
  const output = DATA.items[current()].output;
  while (start < end && /\s/.test(output[start])) start++;
  while (end > start && /\s/.test(output[end - 1])) end--;
  if (start >= end) return;
  const r = rating(current());
  if (r.errors.some((e) => start < e.end && e.start < end)) return;  // spans do not overlap
  r.errors.push({start, end, text: output.slice(start, end), category: $("category").value,
                 severity: $("severity").value});
  selection.removeAllRanges();
  save();
  show();
}

function setScore(value) {
  if (value === "" || isNaN(Number(value))) return;
  const score = Math.max(0, Math.min(100, Math.round(Number(value))));
  rating(current()).score = score;
  save();
  show();
}

function move(step) {
  state.position = Math.max(0, Math.min(items().length - 1, state.position + step));
  save();
  show();
}

function nextUnrated() {
  const list = items();
  for (let k = 1; k <= list.length; k++) {
    const j = (state.position + k) % list.length;
    if (!state.ratings[list[j]] || state.ratings[list[j]].score === null) {
      state.position = j;
      save();
      show();
      return;
    }
  }
}

function download() {
  const header = {format: DATA.format, study: DATA.study, dataset: DATA.dataset, rater: state.rater,
                  packet: state.packet, exported: new Date().toISOString()};
  const lines = [JSON.stringify(header)];
  for (const item of items()) {
    const r = state.ratings[item];
    if (r && r.score !== null) lines.push(JSON.stringify({item, score: r.score, errors: r.errors}));
  }
  const blob = new Blob([lines.join("\n") + "\n"], {type: "application/x-ndjson"});
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = DATA.dataset + "-" + state.rater + "-packet" + state.packet + ".jsonl";
  document.body.appendChild(link);
  link.click();
  link.remove();
}

$("begin").addEventListener("click", begin);
$("mark").addEventListener("click", markSelection);
$("slider").addEventListener("input", (e) => setScore(e.target.value));
$("score").addEventListener("change", (e) => setScore(e.target.value));
$("prev").addEventListener("click", () => move(-1));
$("next").addEventListener("click", () => move(1));
$("next-unrated").addEventListener("click", nextUnrated);
$("download").addEventListener("click", download);
try {
  const last = JSON.parse(localStorage.getItem(PREFIX + "last"));
  if (last) { $("rater").value = last.rater; $("packet").value = String(last.packet); }
} catch (e) { /* nothing saved yet */ }
</script>
</body>
</html>
"""

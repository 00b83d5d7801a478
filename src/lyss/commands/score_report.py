"""How `lyss score` prints its blocks (one per system): `text` for people, `json` (one system: its block;
several: a list of blocks) and `tsv` (one row per system, or per system × segment with -sl) for programs.

The text of one system lists every score with its interval and every null with its reason; several systems
become one table, a column per system under its short name, so that nothing is 150 columns of file paths.
What all systems share (signatures, the oracle, reasons) is printed once. Warnings went to stderr as they
arose (lyss.commands.plain_files.Notes): the text does not repeat them. `-b` prints the values alone, for
scripts, as sacrebleu's -b does; `-w` sets the text's decimals.
"""

import json

from lyss.metrics import declaration

NOT_A_VALUE = "—"
DECIMALS = 4  # of the text's scores without -w
COUNTS = ("total", "evaluated", "errors")  # the same for every system of a call: in the header line


def render(blocks: list[dict], fmt: str, sentence_level: bool, width: int | None = None) -> str:
    """The blocks in `fmt`; `width` (sacrebleu's -w) sets the decimals of the text's numbers (default
    DECIMALS, and each metric's own for -sl); json and tsv are for programs and keep full precision."""
    if fmt == "json":
        return json.dumps(blocks[0] if len(blocks) == 1 else blocks, ensure_ascii=False, indent=2)
    if fmt == "tsv":
        return segments_tsv(blocks) if sentence_level else corpus_tsv(blocks)
    digits = decimals(width)
    parts = [segments_text(blocks, width)] if sentence_level else []
    parts.append(single_text(blocks[0], digits) if len(blocks) == 1 else table_text(blocks, digits))
    return "\n\n".join(parts)


def scores_only(blocks: list[dict], metrics: list[str], fmt: str, width: int | None = None) -> str:
    """sacrebleu's -b: the values of `metrics` and nothing else, for scripts. One system: a value per line
    (json: the number, or a list of them, as sacrebleu prints); several: a line per system, the values tab-
    separated (json: a list of {"system", metric: value}). A metric measured but kept out of the composite
    (too few entries) prints its value; a null one, or one that fails its reference check, prints nan (json:
    null), its reason on stderr. tsv is the text of several systems; --ci adds the interval in text."""
    digits = decimals(width)
    values = [[score_value(block, m) for m in metrics] for block in blocks]
    if fmt == "json":
        if len(blocks) == 1:
            row = [_rounded(v, width) for v in values[0]]
            return json.dumps(row[0] if len(row) == 1 else row)
        return json.dumps([{"system": b["system"], **{m: _rounded(v, width) for m, v in zip(metrics, row, strict=True)}}
                           for b, row in zip(blocks, values, strict=True)], ensure_ascii=False, indent=2)
    cells = [[_only_cell(block, m, v, digits, fmt) for m, v in zip(metrics, row, strict=True)]
             for block, row in zip(blocks, values, strict=True)]
    if len(blocks) == 1 and fmt == "text":
        return "\n".join(cells[0])
    return "\n".join("\t".join(row) for row in cells)


def score_value(block: dict, metric: str) -> float | None:
    """The value -b prints: the score, or the value measured but kept out of the composite for too few
    entries; None for a null metric and one that fails its reference check (not valid on these data)."""
    value = block["scores"].get(metric)
    if value is None and metric in _left_out(block):
        return block["withheld"][metric]
    return value


def null_reason(block: dict, metric: str) -> str:
    """Why -b prints nan for `metric`: its null reason; for the composite, what it is over and, grouped by
    reason, the metrics measured but kept out of it."""
    if metric in block["null_reasons"]:
        return block["null_reasons"][metric]
    kept: dict[str, list[str]] = {}
    for key, reason in _left_out(block).items():
        kept.setdefault(reason, []).append(key)
    kept_out = [f"{', '.join(keys)} kept out: {reason}" for reason, keys in kept.items()]
    return "; ".join([composite_line(block), *kept_out])


def _rounded(value: float | None, width: int | None) -> float | None:
    return value if value is None or width is None else round(value, width)


def _only_cell(block: dict, metric: str, value: float | None, digits: int, fmt: str) -> str:
    if value is None:
        return "nan"
    if fmt == "text" and block["scores"].get(metric) is not None:
        return _with_ci(metric, block["scores"], digits)
    return f"{value:.{digits}f}"


def _shown(value) -> bool:
    return value is not None and value != "" and not isinstance(value, dict)


def decimals(width: int | None) -> int:
    """The digits after the decimal point of a score printed as text: sacrebleu's -w when given."""
    return DECIMALS if width is None else width


def format_number(value, digits: int) -> str:
    """A value as text with `digits` decimals (a count as it is); an absent one as NOT_A_VALUE."""
    if value is None:
        return NOT_A_VALUE
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def _with_ci(key: str, scores: dict, digits: int) -> str:
    shown = format_number(scores.get(key), digits)
    ci = scores["confidence_intervals"].get(key)
    if ci and ci["ci_lower"] is not None and scores.get(key) is not None:
        shown += f" [{ci['ci_lower']:.{digits}f}, {ci['ci_upper']:.{digits}f}]"
    return shown


def _columns(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]


def _header(block: dict) -> str:
    scores = block["scores"]
    refs = block["references"]
    return (f"profile {block['composite_profile']['profile']} · {scores['total']} segments · "
            f"{refs} reference{'s' if refs > 1 else ''}")


def composite_line(block: dict) -> str:
    """What the composite is over: the profile's metrics (with their share of its weight), or a selection."""
    profile = block["composite_profile"]
    used = ", ".join(profile["applied_weights"]) or "no metric"
    share = f"{profile['weight_share']:.0%} of profile {profile['profile']}'s weight"
    if profile["scope"] == "selection":
        return (f"composite over selection: {used} ({share}; no tier: leaves out "
                f"{', '.join(profile['left_out'])})")
    return f"composite over {used} ({share})"


def _oracle_line(block: dict, digits: int) -> str:
    oracle = block["oracle"]
    tier = oracle["quality_tier"] or "no tier (selection)"
    return f"reference (oracle): composite {format_number(oracle['composite'], digits)}, {tier}"


def _not_valid(block: dict, digits: int) -> list[str]:
    measured = block["withheld"]
    return [f"not valid here: {m}: " + (f"measured {measured[m]:.{digits}f}, not counted: " if m in measured else "")
            + r for m, r in block["null_reasons"].items() if "reference check" in r]


def _left_out(block: dict) -> dict[str, str]:
    """Metric → why its measured value stays out of the composite (too few entries): shown, as sacrebleu would
    show it, with the reason beside it. A value failing its reference check is not: it is not valid here."""
    return {key: reason for key, reason in block["null_reasons"].items()
            if key in block["withheld"] and "reference check" not in reason}


def _null_lines(block: dict) -> list[str]:
    left_out = _left_out(block)
    return [f"{key:<24}{NOT_A_VALUE}  ({reason})" for key, reason in block["null_reasons"].items()
            if block["scores"].get(key) is None and "reference check" not in reason and key != "quality_tier"
            and key not in left_out]


def single_text(block: dict, digits: int) -> str:
    scores = block["scores"]
    lines = [f"{block['system']} · {_header(block)}"]
    left_out = _left_out(block)
    for key, value in scores.items():
        if _shown(value):
            lines.append(f"{key:<24}{_with_ci(key, scores, digits)}")
        elif key in left_out:
            lines.append(f"{key:<24}{block['withheld'][key]:.{digits}f}  (not in the composite: {left_out[key]})")
    if scores.get("composite") is not None and scores.get("quality_tier") is None:
        lines.append(f"{'quality_tier':<24}{NOT_A_VALUE}  (composite over a selection: no tier)")
    lines += _null_lines(block)
    lines += [composite_line(block), _oracle_line(block, digits), *_not_valid(block, digits)]
    lines += [f"{name} signature: {sig}" for name, sig in block["signatures"].items()]
    lines += [f"caveat: {c['id']}: {c['message']}" for c in block["score_caveats"]]
    lines += [f"caveat skipped: {k}: {v}" for k, v in block["skipped_caveats"].items()]
    return "\n".join(lines)


def _once_or_each(blocks: list[dict], line_of) -> list[str]:
    """A line every system shares once; lines that differ, one per system, named."""
    lines = [line_of(b) for b in blocks]
    if len(set(lines)) == 1:
        return lines[:1]
    return [f"{b['system']}: {line}" for b, line in zip(blocks, lines, strict=True)]


def table_text(blocks: list[dict], digits: int) -> str:
    keys = [k for k in blocks[0]["scores"] if k not in COUNTS
            and any(_shown(b["scores"].get(k)) or k in b["null_reasons"] for b in blocks)]
    rows = [["", *(b["system"] for b in blocks)]]
    rows += [[key, *(_table_cell(key, b, digits) for b in blocks)] for key in keys]
    lines = [_header(blocks[0]), *_columns(rows)]
    for key in dict.fromkeys(k for b in blocks for k in b["null_reasons"] if k != "quality_tier"):
        systems_of: dict[str, list[str]] = {}
        for b in blocks:
            if key in b["null_reasons"]:
                systems_of.setdefault(_table_note(key, b, digits), []).append(b["system"])
        for note, systems in systems_of.items():
            which = "" if len(systems) == len(blocks) else f" ({', '.join(systems)})"
            lines.append(note.format(which=which))
    lines += _once_or_each(blocks, composite_line)
    lines.append(_oracle_line(blocks[0], digits))
    for name in blocks[0]["signatures"]:
        lines += [f"{name} signature: {s}" for s in _once_or_each(blocks, lambda b, n=name: b["signatures"][n])]
    for block in blocks:
        lines += [f"caveat: {block['system']}: {c['id']}: {c['message']}" for c in block["score_caveats"]]
    lines += [f"caveat skipped: {k}: {v}" for k, v in blocks[0]["skipped_caveats"].items()]
    return "\n".join(lines)


def _table_cell(key: str, block: dict, digits: int) -> str:
    """The value, with its interval; a value measured but left out of the composite, plainly (its note says
    why)."""
    if key in _left_out(block):
        return format_number(block["withheld"][key], digits)
    return _with_ci(key, block["scores"], digits)


def _table_note(key: str, block: dict, digits: int) -> str:
    """The note under the table for a value it does not show or does not count; `{which}` names the systems."""
    reason = block["null_reasons"][key]
    if key in _left_out(block):
        return f"{key}{{which}}: not in the composite: {reason}"
    measured = f"measured {block['withheld'][key]:.{digits}f}, not counted: " if key in block["withheld"] else ""
    return f"{NOT_A_VALUE} {key}{{which}}: {measured}{reason}"


def _segment_metrics(blocks: list[dict]) -> list[str]:
    return list(dict.fromkeys(k for b in blocks for k in b["segments"][0] if k != "segment"))


def segments_text(blocks: list[dict], width: int | None) -> str:
    metrics = _segment_metrics(blocks)
    several = len(blocks) > 1
    rows = [[*(["system"] if several else []), "segment", *metrics]]
    for block in blocks:
        for row in block["segments"]:
            rows.append([*([block["system"]] if several else []), str(row["segment"]),
                         *(format_number(row.get(m), declaration(m, "decimals") if width is None else width)
                           for m in metrics)])
    return "\n".join(_columns(rows))


def _tsv_cell(value) -> str:
    return "" if value is None else str(value)


def corpus_tsv(blocks: list[dict]) -> str:
    keys = [k for k, v in blocks[0]["scores"].items() if not isinstance(v, dict)]
    ci_keys = list(dict.fromkeys(k for b in blocks for k in b["scores"]["confidence_intervals"]))
    header = ["system", *keys, *(f"{k}_{end}" for k in ci_keys for end in ("ci_lower", "ci_upper"))]
    lines = ["\t".join(header)]
    for block in blocks:
        scores, cis = block["scores"], block["scores"]["confidence_intervals"]
        cells = [block["system"], *(_tsv_cell(scores.get(k)) for k in keys)]
        cells += [_tsv_cell(cis.get(k, {}).get(end)) for k in ci_keys for end in ("ci_lower", "ci_upper")]
        lines.append("\t".join(cells))
    return "\n".join(lines)


def segments_tsv(blocks: list[dict]) -> str:
    metrics = _segment_metrics(blocks)
    lines = ["\t".join(["system", "segment", *metrics])]
    for block in blocks:
        lines += ["\t".join([block["system"], str(row["segment"]), *(_tsv_cell(row.get(m)) for m in metrics)])
                  for row in block["segments"]]
    return "\n".join(lines)

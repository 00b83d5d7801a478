"""Post-translation repair hooks, configured per method (`methods.<name>.postprocess: [...]`).

A hook takes the entry, the current prediction and the target language card and returns the repaired
prediction. The raw output is kept beside it (`raw_prediction`) so compliance can be measured on both
(spec §2.5, the compliance index and repair effectiveness). The typographic definitions here (what a
placeholder and a quotation mark are) are the ones compliance measures, so a hook fixes exactly what the
metric counts.
"""

import regex

from lyss.errors import InputError
from lyss.text import NON_LINGUISTIC

# `{variable}`; also matches what translators make of one, e.g. `{el nombre}` for `{name}`.
PLACEHOLDER = regex.compile(r"\{[^{}]*\}")
DOUBLE_QUOTES = frozenset('"“”„‟«»‹›「」『』＂')
SINGLE_QUOTES = frozenset("‘’‚‛")  # also apostrophes: a mark between two letters is not a quote
# A quotation mark after one of these (or at the start) opens a quotation; elsewhere it closes one.
OPENING_CONTEXT = regex.compile(r"(?:^|[\s(\[{¿¡—–-])$")
_LATIN_RUN = r"\p{Latin}[\p{Latin}\p{M}]*"
_WORD_CHAR = r"[\p{L}\p{M}\p{N}]"
LATIN_WORD = regex.compile(rf"(?<!{_WORD_CHAR}){_LATIN_RUN}(?:['’-]{_LATIN_RUN})*(?!{_WORD_CHAR})")


def quote_positions(text: str) -> list[int]:
    """Indexes of the quotation marks in `text`: double-style marks, guillemets, corner brackets, and
    curly single quotes that are not apostrophes. The ASCII apostrophe (') is never counted."""
    out = []
    for i, char in enumerate(text):
        if char in DOUBLE_QUOTES:
            out.append(i)
        elif char in SINGLE_QUOTES:
            between_letters = 0 < i < len(text) - 1 and text[i - 1].isalpha() and text[i + 1].isalpha()
            if not between_letters:
                out.append(i)
    return out


def card_quotes(card: dict) -> list[tuple[str, str]]:
    """The card's (open, close) pairs, primary first; empty when the card declares none."""
    quotes = card.get("quotes") or {}
    return [tuple(quotes[level]) for level in ("primary", "secondary") if level in quotes]


def latin_leak_applies(card: dict) -> bool:
    """Latin letters are leakage in caseless scripts whose card does not list Latin among its scripts."""
    return bool(card.get("caseless")) and "Latn" not in card.get("scripts", [])


def restore_placeholders(entry: dict, text: str, target_card: dict) -> str:
    """Put back `{variables}` the translator altered: placeholders in the output that are not in the
    source are replaced, in order, by the source placeholders missing from the output."""
    wanted = PLACEHOLDER.findall(entry["source"])
    missing = [p for p in wanted if p not in text]
    if not missing:
        return text
    queue = iter(missing)

    def swap(match):
        if match.group(0) in wanted:
            return match.group(0)
        return next(queue, match.group(0))

    return PLACEHOLDER.sub(swap, text)


def fix_quotes(entry: dict, text: str, target_card: dict) -> str:
    """Replace every quotation mark by the card's: a mark that follows a space, an opening bracket or the
    start and is followed by text opens a quotation (primary pair outside, secondary pair nested); any
    other mark closes the innermost open one. Unchanged when the card declares no quotes."""
    pairs = card_quotes(target_card)
    if not pairs:
        return text
    chars, depth = list(text), 0
    for i in quote_positions(text):
        followed_by_text = i + 1 < len(text) and not text[i + 1].isspace()
        opening = depth == 0 or (OPENING_CONTEXT.search(text[:i]) is not None and followed_by_text)
        if opening:
            chars[i] = pairs[min(depth, len(pairs) - 1)][0]
            depth += 1
        else:
            depth -= 1
            chars[i] = pairs[min(depth, len(pairs) - 1)][1]
    return "".join(chars)


def remove_latin_leakage(entry: dict, text: str, target_card: dict) -> str:
    """Delete Latin-script words from output in a caseless script (spec §2.5 casing check); placeholders,
    URLs, e-mail addresses and codes with digits (flight IB3456) stay. Unchanged for other cards."""
    if not latin_leak_applies(target_card):
        return text
    kept, last = [], 0
    for match in NON_LINGUISTIC.finditer(text):
        kept += [LATIN_WORD.sub("", text[last:match.start()]), match.group(0)]
        last = match.end()
    kept.append(LATIN_WORD.sub("", text[last:]))
    cleaned = regex.sub(r"[ \t]{2,}", " ", "".join(kept))
    return regex.sub(r"[ \t]+([.,;:!?])", r"\1", cleaned).strip(" \t")


HOOKS = {"restore_placeholders": restore_placeholders, "fix_quotes": fix_quotes,
         "remove_latin_leakage": remove_latin_leakage}


def resolve_hooks(names, source: str, method: str):
    """The hook functions for `methods.<method>.postprocess`, checked by name. Called when the workflow is
    parsed (rules/common.smk), so a misspelt hook stops the run before any job deletes an output."""
    field = f"methods.{method}.postprocess"
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise InputError(source, f"expected a list of hook names; known: {sorted(HOOKS)}", field=field)
    unknown = [n for n in names if n not in HOOKS]
    if unknown:
        raise InputError(source, f"unknown post-processing hook(s) {unknown}; known: {sorted(HOOKS)}", field=field)
    return [(n, HOOKS[n]) for n in names]


def apply_hooks(record: dict, entry: dict, hooks, target_card: dict) -> dict:
    """A raw record (as the method returned it) with its prediction repaired by `hooks` in order and the
    method's own output kept as `raw_prediction`; `hooks_applied` names the hooks that changed something."""
    raw = record.get("prediction")
    repaired = {**record, "raw_prediction": raw, "prediction": raw, "hooks_applied": []}
    if raw is None:
        return repaired
    text = raw
    for name, hook in hooks:
        changed = hook(entry, text, target_card)
        if changed != text:
            repaired["hooks_applied"].append(name)
        text = changed
    repaired["prediction"] = text
    return repaired

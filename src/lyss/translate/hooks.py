"""Post-translation repair hooks, configured per method (`methods.<name>.postprocess: [...]`).

A hook takes the entry, the current prediction and the target language card and returns the repaired
prediction. The raw output is kept beside it (`raw_prediction`) so compliance can be measured on both.
"""

import re

from lyss.errors import InputError

PLACEHOLDER = re.compile(r"\{[^{}\n]+\}")


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


HOOKS = {"restore_placeholders": restore_placeholders}


def resolve_hooks(names: list[str], source: str, method: str):
    unknown = [n for n in names if n not in HOOKS]
    if unknown:
        raise InputError(source, f"unknown post-processing hook(s) {unknown}; known: {sorted(HOOKS)}",
                         field=f"methods.{method}.postprocess")
    return [(n, HOOKS[n]) for n in names]

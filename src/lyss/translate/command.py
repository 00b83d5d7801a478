"""Any stdin→stdout translator (`command`) and Apertium (`apertium`), each one process per corpus.

Entries are written one per line (optionally with blank lines between them); an entry's own line
breaks are kept, and the output is regrouped by counting lines, so multi-line entries stay aligned.
Line-preserving tools (Apertium, Moses-style decoders, `sed`) satisfy this; a mismatch in the line
count is an error for every entry, not a silent misalignment.
"""

import shlex
import shutil
import subprocess
import time

from lyss.errors import InputError
from lyss.translate.base import MethodContext, TranslationRecord


def _split_aligned(output: str, line_counts: list[int], gap: int) -> list[str] | None:
    """Regroup output lines into entries of `line_counts` lines separated by `gap` blank lines;
    None when the structure does not match (a separator line that is not blank counts as a mismatch)."""
    lines = output.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) != sum(line_counts) + gap * (len(line_counts) - 1):
        return None
    grouped, start = [], 0
    for count in line_counts:
        if any(line.strip() for line in lines[start - gap : start]):
            return None
        grouped.append("\n".join(lines[start : start + count]))
        start += count + gap
    return grouped


class CommandTranslator:
    """Runs `options.cmd` (a string or list) once over the corpus, one entry per line."""

    def __init__(self, context: MethodContext, argv: list[str] | None = None):
        self.context = context
        cmd = argv or context.options.get("cmd")
        if not cmd:
            raise InputError(context.source, "command method needs 'cmd'", field=f"methods.{context.name}.cmd")
        self.argv = shlex.split(cmd) if isinstance(cmd, str) else [str(c) for c in cmd]
        if shutil.which(self.argv[0]) is None:
            raise InputError(context.source, f"command {self.argv[0]!r} not found on PATH",
                             field=f"methods.{context.name}.cmd")
        self.timeout = float(context.options.get("timeout_s", 3600))
        self.tidy = context.options.get("normalise_whitespace", False)
        self.gap = int(context.options.get("blank_lines_between", 0))

    def translate(self, entries):
        if not entries:
            return
        texts = [e["source"].replace("\r\n", "\n") for e in entries]
        started = time.perf_counter()
        try:
            joined = ("\n" * (self.gap + 1)).join(texts) + "\n"
            done = subprocess.run(self.argv, input=joined, capture_output=True, text=True, timeout=self.timeout,
                                  check=False)
            error = None if done.returncode == 0 else f"exit status {done.returncode}: {done.stderr.strip()[:500]}"
            counts = [t.count("\n") + 1 for t in texts]
            outputs = _split_aligned(done.stdout, counts, self.gap) if error is None else None
            if error is None and outputs is None:
                error = "output line count does not match the input (the command must preserve lines)"
        except subprocess.TimeoutExpired:
            error, outputs = f"timed out after {self.timeout:g} s", None
        latency = (time.perf_counter() - started) / len(entries)
        for i, entry in enumerate(entries):
            text = outputs[i] if outputs is not None else None
            if text is not None and self.tidy:
                text = "\n".join(" ".join(line.split()) for line in text.split("\n"))
            yield TranslationRecord(entry["id"], text, text, latency_s=latency, error=error)


class ApertiumTranslator(CommandTranslator):
    """Real rule-based MT through the `apertium` CLI; mode defaults to `<source>-<target>`.
    Apertium leaves doubled and leading spaces where it drops words (e.g. subject pronouns), so
    whitespace is tidied by default (`normalise_whitespace: false` keeps it). Its transfer rules can
    move words across a single line break, so entries are separated by a blank line."""

    def __init__(self, context: MethodContext):
        context.options.setdefault("normalise_whitespace", True)
        context.options.setdefault("blank_lines_between", 1)
        mode = context.options.get("mode") or f"{context.source_lang}-{context.target_lang}"
        argv = ["apertium"]
        if not context.options.get("mark_unknown", False):
            argv.append("-u")
        argv.append(mode)
        super().__init__(context, argv)
        modes = subprocess.run(["apertium", "-l"], capture_output=True, text=True, check=False).stdout.split()
        if mode not in modes:
            raise InputError(context.source, f"Apertium mode {mode!r} is not installed (installed: "
                             f"{', '.join(modes) or 'none'}); install the pair package, e.g. apertium-eng-spa",
                             field=f"methods.{context.name}.mode")

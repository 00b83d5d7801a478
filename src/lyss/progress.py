"""Progress for long jobs: a live line (done/total, rate, ETA) on a terminal; in non-interactive logs
nothing but, when asked for, one summary line at the end.

Pipeline jobs send stderr to their log file (lyss.scripting.logged), yet the person who typed
`make run` should still see a translation advance: when no stream is given, the live line goes to the
process's original stderr if that is a terminal, and the summary to the (redirected) log."""

import sys
import time


class Progress:
    def __init__(self, total: int, label: str, stream=None, min_interval_s: float = 0.2, summary: bool = True):
        self.total, self.label, self.done, self.summary = total, label, 0, summary
        self.log = stream or sys.stderr
        terminal = sys.__stderr__ if stream is None else stream
        self.interactive = terminal is not None and hasattr(terminal, "isatty") and terminal.isatty()
        self.stream = terminal if self.interactive else self.log
        self.started = self._last = time.monotonic()
        self.min_interval_s = min_interval_s

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        rate = self.done / elapsed
        eta = (self.total - self.done) / rate if rate > 0 else float("inf")
        eta_text = f"{eta:.0f}s" if eta != float("inf") else "?"
        return f"{self.label}: {self.done}/{self.total} entries, {rate:.1f}/s, ETA {eta_text}"

    def advance(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if self.interactive and (now - self._last >= self.min_interval_s or self.done == self.total):
            self.stream.write("\r" + self.line())
            self.stream.flush()
            self._last = now

    def close(self) -> None:
        if self.interactive:
            self.stream.write("\n")
            self.stream.flush()
        if self.summary and (not self.interactive or self.log is not self.stream):
            self.log.write(self.line().replace(", ETA 0s", "") + "\n")
            self.log.flush()

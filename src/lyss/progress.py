"""Progress for long jobs: a live line (done/total, rate, ETA) on a terminal; in non-interactive logs
nothing but, when asked for, one summary line at the end."""

import sys
import time


class Progress:
    def __init__(self, total: int, label: str, stream=None, min_interval_s: float = 0.2, summary: bool = True):
        self.total, self.label, self.done, self.summary = total, label, 0, summary
        self.stream = stream or sys.stderr
        self.interactive = hasattr(self.stream, "isatty") and self.stream.isatty()
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
        elif self.summary:
            self.stream.write(self.line().replace(", ETA 0s", "") + "\n")
        self.stream.flush()

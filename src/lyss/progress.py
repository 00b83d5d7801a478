"""Progress for long jobs: a live line (done/total, rate, ETA) on a terminal; elsewhere (CI, `make run`
piped to a file) a heartbeat line every `heartbeat_s` seconds, so that a long step is never silent, and,
when asked for, one summary line at the end.

Pipeline jobs send stderr to their log file (lyss.scripting.logged), yet the person who typed
`make run` should still see a translation advance: when no stream is given, the live line (or the
heartbeat) goes to the process's original stderr, and the summary to the (redirected) log. The label names
what is being done to what (`translate demo_eng_spa/apertium`, `embed mqm_ted_ende/source`)."""

import sys
import time

HEARTBEAT_S = 30.0


class Progress:
    def __init__(self, total: int, label: str, stream=None, min_interval_s: float = 0.2, summary: bool = True,
                 heartbeat_s: float = HEARTBEAT_S, clock=time.monotonic):
        self.total, self.label, self.done, self.summary = total, label, 0, summary
        self.log = stream or sys.stderr
        terminal = sys.__stderr__ if stream is None else stream
        self.interactive = terminal is not None and hasattr(terminal, "isatty") and terminal.isatty()
        self.stream = terminal if self.interactive else self.log
        # the heartbeat goes where a person watches (Snakemake's own stderr), not only into the job's log
        self.heartbeat_stream = terminal if terminal is not None else self.log
        self.clock = clock
        self.started = self._last = self._beat = clock()
        self.min_interval_s, self.heartbeat_s = min_interval_s, heartbeat_s

    def line(self) -> str:
        elapsed = max(self.clock() - self.started, 1e-9)
        rate = self.done / elapsed
        eta = (self.total - self.done) / rate if rate > 0 else float("inf")
        eta_text = f"{eta:.0f}s" if eta != float("inf") else "?"
        return f"{self.label}: {self.done}/{self.total} entries, {rate:.1f}/s, ETA {eta_text}"

    def advance(self, n: int = 1) -> None:
        self.done += n
        now = self.clock()
        if self.interactive and (now - self._last >= self.min_interval_s or self.done == self.total):
            self.stream.write("\r" + self.line())
            self.stream.flush()
            self._last = now
        elif not self.interactive and now - self._beat >= self.heartbeat_s and self.done < self.total:
            self.heartbeat_stream.write(self.line() + "\n")
            self.heartbeat_stream.flush()
            self._beat = now

    def close(self) -> None:
        if self.interactive:
            self.stream.write("\n")
            self.stream.flush()
        if self.summary and (not self.interactive or self.log is not self.stream):
            self.log.write(self.line().replace(", ETA 0s", "") + "\n")
            self.log.flush()

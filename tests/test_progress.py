"""Progress: live updates with rate and ETA on a terminal, quiet (or one summary line) in logs."""

import io

from lyss.progress import Progress


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_terminal_shows_done_total_rate_and_eta():
    stream = FakeTerminal()
    progress = Progress(4, "translate", stream=stream, min_interval_s=0)
    progress.advance(2)
    assert "\rtranslate: 2/4 entries" in stream.getvalue() and "/s, ETA " in stream.getvalue()
    progress.advance(2)
    progress.close()
    assert stream.getvalue().endswith("\n") and "4/4 entries" in stream.getvalue()


def test_log_gets_one_summary_line_or_nothing():
    log = io.StringIO()
    progress = Progress(3, "translate", stream=log)
    for _ in range(3):
        progress.advance()
    assert log.getvalue() == ""  # nothing while running
    progress.close()
    assert log.getvalue().count("\n") == 1 and log.getvalue().startswith("translate: 3/3 entries")
    quiet = io.StringIO()
    silent = Progress(3, "embed", stream=quiet, summary=False)
    silent.advance(3)
    silent.close()
    assert quiet.getvalue() == ""


def test_job_with_redirected_log_still_shows_progress_on_the_terminal(monkeypatch):
    terminal, log = FakeTerminal(), io.StringIO()
    monkeypatch.setattr("sys.__stderr__", terminal)
    monkeypatch.setattr("sys.stderr", log)  # what lyss.scripting.logged does inside a pipeline job
    progress = Progress(2, "translate demo/apertium", min_interval_s=0)
    progress.advance(2)
    progress.close()
    assert "\rtranslate demo/apertium: 2/2 entries" in terminal.getvalue()
    assert log.getvalue().startswith("translate demo/apertium: 2/2 entries") and log.getvalue().count("\n") == 1


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_without_a_terminal_a_heartbeat_line_every_30_seconds_names_the_step():
    log, clock = io.StringIO(), FakeClock()
    progress = Progress(100, "embed mqm_ted_ende/source", stream=log, clock=clock)
    clock.now += 10
    progress.advance(10)
    assert log.getvalue() == ""  # under 30 s: quiet
    clock.now += 20  # 30 s since the start, 20 entries in 30 s
    progress.advance(10)
    assert log.getvalue() == "embed mqm_ted_ende/source: 20/100 entries, 0.7/s, ETA 120s\n"
    clock.now += 29
    progress.advance(10)
    assert log.getvalue().count("\n") == 1  # the next beat is 30 s after the last one
    clock.now += 1
    progress.advance(10)
    assert log.getvalue().splitlines()[-1] == "embed mqm_ted_ende/source: 40/100 entries, 0.7/s, ETA 90s"


def test_the_heartbeat_goes_to_the_original_stderr_of_a_pipeline_job(monkeypatch):
    original, log, clock = io.StringIO(), io.StringIO(), FakeClock()
    monkeypatch.setattr("sys.__stderr__", original)  # Snakemake's stderr, not a terminal (CI)
    monkeypatch.setattr("sys.stderr", log)  # the job's log file
    progress = Progress(10, "translate demo_eng_spa/apertium", clock=clock)
    clock.now += 31
    progress.advance(5)
    progress.close()
    assert original.getvalue() == "translate demo_eng_spa/apertium: 5/10 entries, 0.2/s, ETA 31s\n"
    assert log.getvalue() == "translate demo_eng_spa/apertium: 5/10 entries, 0.2/s, ETA 31s\n"  # the summary

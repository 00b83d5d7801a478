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

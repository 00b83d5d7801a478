"""The metrics that read no vectors, scored in a child process beside the embedding (lyss.commands.score_beside):
the child's results are the scorer's, a failing child changes nothing but where they are computed, one core starts
no child, and `lyss score` prints the same bytes on one core (no child) as on two."""

import multiprocessing
import os
import shutil
import subprocess
import sys

import pytest
from plain_text_files import ROOT

from lyss.commands.score_beside import ScoredBeside


def scored_where(data, metrics):
    """A result that says which process computed it."""
    return {m: (os.getpid(), data, m) for m in metrics}


def test_the_child_scores_the_metrics_and_sends_them_back():
    beside = ScoredBeside(["a", "b"], ["chrf", "ter"], scored_where, cores=2)
    first, second = beside.results(0), beside.results(1)
    child = first["chrf"][0]
    assert child != os.getpid()
    assert first == {"chrf": (child, "a", "chrf"), "ter": (child, "a", "ter")}
    assert second == {"chrf": (child, "b", "chrf"), "ter": (child, "b", "ter")}


def sized(data, metrics):
    """A result that says which process read how much of the input, and how it ends."""
    return {m: (os.getpid(), len(data), data[-3:]) for m in metrics}


def test_inputs_larger_than_a_pipe_holds_reach_the_child_whole():
    """The work goes to the child through a pipe (64 KB on Linux) that a thread of the parent fills while the
    child starts; several megabytes arrive whole and the results come back."""
    inputs = ["x" * 3_000_000 + "end", "y" * 100_000 + "fin"]
    beside = ScoredBeside(inputs, ["chrf"], sized, cores=2)
    child = beside._child[0].pid
    assert beside.results(0) == {"chrf": (child, 3_000_003, "end")}
    assert beside.results(1) == {"chrf": (child, 100_003, "fin")}
    assert beside._child is None  # collected: the child has ended


def fails_in_a_child(data, metrics):
    if multiprocessing.parent_process() is not None:
        raise RuntimeError("the child fails")
    return scored_where(data, metrics)


def test_a_failing_child_leaves_the_metrics_to_this_process():
    beside = ScoredBeside(["a"], ["chrf"], fails_in_a_child, cores=2)
    assert beside.results(0) == {"chrf": (os.getpid(), "a", "chrf")}


def test_a_scorer_that_cannot_be_sent_is_run_here():
    beside = ScoredBeside(["a"], ["chrf"], lambda data, metrics: scored_where(data, metrics), cores=2)
    assert beside._child is None and beside.results(0) == {"chrf": (os.getpid(), "a", "chrf")}


def test_a_child_started_after_lingua_ran_here_does_not_hang(monkeypatch):
    """A forked child inherits lingua's thread pool without its threads and waits for it forever; a fresh
    interpreter does not."""
    from lyss.metrics import langid

    monkeypatch.setenv("LYSS_LOOKUP_CACHE", "0")  # lingua answers in both processes, none read from a store

    detector = langid.pair_detector("eng", "deu")
    langid.alone_source_words(detector, "eng", {"house", "Haus"})  # lingua's parallel call, in this process
    beside = ScoredBeside([["the", "Haus"]], ["eng"], source_words, cores=2)
    child = beside._child[0].pid
    assert beside.results(0) == {"eng": (child, ["the"])}


def source_words(words, metrics):
    """Which words lingua gives the source language, read alone (a lingua call in the child)."""
    from lyss.metrics import langid

    detector = langid.pair_detector("eng", "deu")
    return {m: (os.getpid(), sorted(langid.alone_source_words(detector, "eng", set(words)))) for m in metrics}


def test_one_core_starts_no_child_and_leaves_every_metric_to_the_caller():
    beside = ScoredBeside(["a"], ["chrf"], scored_where, cores=1)
    assert beside.metrics == [] and beside._child is None and beside.results(0) == {}


@pytest.mark.skipif(shutil.which("taskset") is None, reason="taskset (util-linux) pins a process to one core")
def test_lyss_score_prints_the_same_with_and_without_the_child(files, tmp_path):
    paths, _, common = files
    lyss = [sys.executable, "-c", "import sys; from lyss.cli import main; sys.exit(main())"]
    argv = ["score", "-s", paths["src"], "-r", paths["ref"], "-i", paths["a"], paths["c"], "-l", "eng-spa", *common,
            "-m", "semantic_score,chrf_plus_plus,ter,code_switching_rate,orthographic_accuracy", "-f", "json"]
    outputs = []
    for name, pin in (("two_cores", []), ("one_core", ["taskset", "-c", "0"])):
        env = {**os.environ, "LYSS_CACHE_DIR": str(tmp_path / name)}  # each run embeds and looks words up anew
        done = subprocess.run([*pin, *lyss, *map(str, argv)], capture_output=True, text=True, env=env, cwd=ROOT,
                              check=True)
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] and '"semantic_score"' in outputs[0]

"""lyss.scripting: pipeline jobs that run on threads of Snakemake's process (rules' `run:` through `run_script`)
each write their stderr to their own log, bad input ends a job with its one line and leaves the process running,
and a script reads its job from `snakemake` as under `script:`."""

import io
import json
import sys
import threading

import pytest
from scratch_project import DATASET, make_project, sh
from script_jobs import job, write_script

from lyss.scripting import JobFailed, logged, run_script

JOBS, LINES = 4, 300


def test_jobs_on_threads_write_to_their_own_logs(tmp_path, monkeypatch):
    console = io.StringIO()
    monkeypatch.setattr(sys, "stderr", console)
    start = threading.Barrier(JOBS + 1)

    def job(i):
        with logged(tmp_path / f"job{i}.log"):
            start.wait()
            for k in range(LINES):
                print(f"job {i} line {k}", file=sys.stderr)

    threads = [threading.Thread(target=job, args=(i,)) for i in range(JOBS)]
    for thread in threads:
        thread.start()
    start.wait()
    print("from Snakemake's thread", file=sys.stderr)
    for thread in threads:
        thread.join()
    for i in range(JOBS):
        assert (tmp_path / f"job{i}.log").read_text().splitlines() == [f"job {i} line {k}" for k in range(LINES)]
    assert console.getvalue() == "from Snakemake's thread\n"


def test_a_script_reads_its_job_from_snakemake_as_under_script(tmp_path):
    script = write_script(tmp_path, "job = {'corpus': snakemake.input.corpus, 'metrics': snakemake.params.metrics,\n"
                                    "       'dataset': snakemake.wildcards['dataset'],\n"
                                    "       'seed': snakemake.config['stats']['seed'],\n"
                                    "       'rule': snakemake.rule, 'threads': snakemake.threads}\n"
                                    "open(snakemake.output[0], 'w').write(json.dumps(job))\n"
                                    "print('scored', file=sys.stderr)")
    run_script(script, job(tmp_path, metrics=["bleu"]))
    assert json.loads((tmp_path / "job.json").read_text()) == {
        "corpus": "data/corpus.jsonl", "metrics": ["bleu"], "dataset": "demo", "seed": 7, "rule": "score_cpu",
        "threads": 1}
    assert (tmp_path / "job.log").read_text() == "scored\n"


def test_bad_input_fails_the_job_with_its_one_line_and_the_next_job_runs(tmp_path, monkeypatch):
    console = io.StringIO()
    monkeypatch.setattr(sys, "stderr", console)
    bad = write_script(tmp_path, "raise InputError('data/scores.csv', 'not a number', line=3, field='score')")
    with pytest.raises(JobFailed, match=r"^data/scores.csv:3: field 'score': not a number$"):
        run_script(bad, job(tmp_path))
    assert (tmp_path / "job.log").read_text() == "error: data/scores.csv:3: field 'score': not a number\n"
    assert console.getvalue() == "lyss: error: data/scores.csv:3: field 'score': not a number\n"
    good = write_script(tmp_path, "print('fine', file=sys.stderr)")
    run_script(good, job(tmp_path))
    assert (tmp_path / "job.log").read_text() == "fine\n"


def test_scripts_on_threads_leave_the_process_main_module_alone(tmp_path):
    """Two jobs that overlap, the first ending first: `runpy.run_path(run_name="__main__")` would leave the second
    one's restore putting the first script's module in `sys.modules["__main__"]` for good."""
    main = sys.modules["__main__"]
    script = write_script(tmp_path, "snakemake.params.started.set()\n"
                                    "snakemake.params.release.wait()\n"
                                    "open(snakemake.output[0], 'w').write(json.dumps(__name__))")
    first, second = (job(tmp_path, name, started=threading.Event(), release=threading.Event()) for name in "ab")
    threads = [threading.Thread(target=run_script, args=(script, j)) for j in (first, second)]
    threads[0].start()
    first.params.started.wait()
    threads[1].start()
    second.params.started.wait()
    for thread, j in zip(threads, (first, second), strict=True):
        j.params.release.set()
        thread.join()
    assert sys.modules["__main__"] is main
    assert [json.loads((tmp_path / f"{n}.json").read_text()) for n in "ab"] == ["__main__", "__main__"]


def test_outside_run_script_bad_input_ends_the_process_with_status_1(tmp_path, monkeypatch):
    """Under `script:` (COMET) the script is its own process: exit status 1, the one line."""
    console = io.StringIO()
    monkeypatch.setattr(sys, "stderr", console)
    with pytest.raises(SystemExit) as ended, logged(tmp_path / "job.log"):
        raise_input_error()
    assert ended.value.code == 1
    assert console.getvalue() == "lyss: error: params.yaml: field 'x': bad\n"


def raise_input_error():
    from lyss.errors import InputError

    raise InputError("params.yaml", "bad", field="x")


@pytest.mark.slow
def test_the_workflow_asks_for_job_threads_itself(tmp_path):
    """`run:` jobs run on Snakemake's threads without a profile or flag (rules/common.smk, `on_threads`); were
    they started as Snakemakes of their own, the run would say so. Snakemake prints nothing of its own about it
    (a workflow profile would print a line on every run)."""
    project = make_project(tmp_path / "project", 4, metrics=["exact_match_rate"])
    target = f"results/skipped/{DATASET}.json"
    done = sh(project, "snakemake", "--cores", "1", target)
    assert "lyss: warning: jobs do not run on Snakemake's threads" not in done.stderr
    assert "profile" not in done.stdout + done.stderr
    assert json.loads((project / target).read_text()) is not None

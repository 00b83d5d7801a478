"""lyss.script_workers: a score job's script runs in a worker process that the next job reuses; a job that fails
or a worker that dies takes down that job only, with the cause named, and the next job gets a fresh worker."""

import json
import os
import signal
import threading

import pytest
from script_jobs import job, write_script

from lyss.script_workers import WorkerDied, WorkerPool
from lyss.scripting import JobFailed

# what each script writes to its output: its worker's pid and what it read of its job
WRITE_WHAT_IT_SAW = ("seen = {'pid': os.getpid(), 'seed': snakemake.config['stats']['seed'],\n"
                     "        'dataset': snakemake.wildcards['dataset'], 'metrics': snakemake.params.metrics}\n"
                     "open(snakemake.output[0], 'w').write(json.dumps(seen))")


def seen_script(tmp_path, body: str):
    return write_script(tmp_path, f"{body}\n{WRITE_WHAT_IT_SAW}")


def written(tmp_path, name: str) -> dict:
    return json.loads((tmp_path / f"{name}.json").read_text())


@pytest.fixture
def pool():
    pool = WorkerPool()
    yield pool
    for worker in pool._idle:
        worker.close()


def test_the_next_job_reuses_the_worker_and_reads_its_own_job(tmp_path, pool):
    script = seen_script(tmp_path, "print('working', file=sys.stderr)")
    pool.run(script, job(tmp_path, "first", metrics=["bleu"]))
    pool.run(script, job(tmp_path, "second", metrics=["ter", "chrf_plus_plus"]))
    first, second = written(tmp_path, "first"), written(tmp_path, "second")
    assert first["pid"] == second["pid"] != os.getpid()
    assert first == {"pid": first["pid"], "seed": 7, "dataset": "demo", "metrics": ["bleu"]}
    assert second["metrics"] == ["ter", "chrf_plus_plus"]
    assert (tmp_path / "second.log").read_text() == "working\n"


def test_jobs_side_by_side_each_have_a_worker_of_their_own(tmp_path, pool):
    both_started = tmp_path / "gate"
    both_started.mkdir()
    script = seen_script(tmp_path, "import pathlib, time\n"
                                    "pathlib.Path(snakemake.params.gate, snakemake.output[0][-6:]).touch()\n"
                                    "while len(list(pathlib.Path(snakemake.params.gate).iterdir())) < 2:\n"
                                    "    time.sleep(0.01)")
    threads = [threading.Thread(target=pool.run, args=(script, job(tmp_path, name, metrics=[], gate=str(both_started))))
               for name in ("job_a", "job_b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert written(tmp_path, "job_a")["pid"] != written(tmp_path, "job_b")["pid"]
    assert len(pool._idle) == 2


def test_bad_input_fails_its_job_with_its_line_and_the_next_job_gets_a_fresh_worker(tmp_path, pool):
    good = seen_script(tmp_path, "pass")
    pool.run(good, job(tmp_path, "before", metrics=[]))
    bad = tmp_path / "bad.py"
    bad.write_text("from lyss.errors import InputError\nfrom lyss.scripting import logged\n"
                   "with logged(snakemake.log[0]):\n"
                   "    raise InputError('corpus.jsonl', 'duplicate id', line=3, field='id')\n", encoding="utf-8")
    with pytest.raises(JobFailed, match="corpus.jsonl:3: field .id.: duplicate id"):
        pool.run(bad, job(tmp_path, "bad", metrics=[]))
    assert "duplicate id" in (tmp_path / "bad.log").read_text()
    assert pool._idle == []  # the failed job's worker is gone
    pool.run(good, job(tmp_path, "after", metrics=[]))
    assert written(tmp_path, "after")["pid"] != written(tmp_path, "before")["pid"]


def test_an_exception_fails_its_job_with_the_workers_traceback(tmp_path, pool):
    script = seen_script(tmp_path, "raise ValueError('a metric broke')")
    with pytest.raises(RuntimeError, match=r"(?s)Traceback.*ValueError: a metric broke"):
        pool.run(script, job(tmp_path, "broken", metrics=[]))
    assert pool._idle == []


def test_a_killed_worker_fails_only_its_job_and_names_the_signal(tmp_path, pool):
    script = seen_script(tmp_path, "if snakemake.params.die:\n    os.kill(os.getpid(), 9)")
    with pytest.raises(WorkerDied, match="script.py ended .signal SIGKILL"):
        pool.run(script, job(tmp_path, "killed", metrics=[], die=True))
    assert not (tmp_path / "killed.json").exists()
    pool.run(script, job(tmp_path, "next", metrics=[], die=False))
    assert written(tmp_path, "next")["seed"] == 7


def test_an_idle_worker_ends_when_its_snakemake_closes_the_pipe(tmp_path, pool):
    pool.run(seen_script(tmp_path, "pass"), job(tmp_path, "only", metrics=[]))
    (worker,) = pool._idle
    worker._jobs.close()
    assert worker.process.wait(timeout=30) == 0
    pool._idle.clear()


def test_a_ctrl_c_ends_an_idle_worker_quietly(tmp_path, pool):
    # a process started in the background (CI's) ignores SIGINT, and so would its workers: Ctrl-C reaches neither
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        pool.run(seen_script(tmp_path, "pass"), job(tmp_path, "only", metrics=[]))
    finally:
        signal.signal(signal.SIGINT, previous)
    (worker,) = pool._idle
    worker.process.send_signal(signal.SIGINT)
    assert worker.process.wait(timeout=30) == 0  # no KeyboardInterrupt traceback, no signal status
    pool._idle.clear()


def test_a_warmed_up_worker_serves_the_next_job(tmp_path, pool):
    warm = write_script(tmp_path, "open(snakemake.output[0], 'w').write(json.dumps({'pid': os.getpid()}))")
    pool.warm_up(warm, job(tmp_path, "warm")).join(timeout=60)
    pool.run(seen_script(tmp_path, "pass"), job(tmp_path, "first", metrics=["bleu"]))
    assert written(tmp_path, "first")["pid"] == written(tmp_path, "warm")["pid"] != os.getpid()


def test_a_failed_warm_up_ends_its_worker_with_one_line_and_jobs_start_their_own(tmp_path, pool, capsys):
    pool.warm_up(write_script(tmp_path, "raise RuntimeError('no word lists here')"), job(tmp_path, "warm")).join(60)
    assert pool._idle == []
    assert capsys.readouterr().err == ("lyss: warning: a worker's warm-up (script.py) failed, jobs start cold: "
                                       "RuntimeError: no word lists here\n")
    pool.run(seen_script(tmp_path, "pass"), job(tmp_path, "first", metrics=[]))
    assert written(tmp_path, "first")["seed"] == 7


def test_a_warm_up_stopped_by_ctrl_c_ends_its_worker_quietly(tmp_path, pool, capsys):
    """Snakemake's Ctrl-C reaches the warming worker too (one process group); the run is stopping, so no warning."""
    pool.warm_up(write_script(tmp_path, "raise KeyboardInterrupt"), job(tmp_path, "warm")).join(timeout=60)
    assert pool._idle == []
    assert capsys.readouterr().err == ""

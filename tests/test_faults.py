"""Faults lose nothing, each on the real workflow in a scratch project:

* a translation job SIGKILLed mid-corpus resumes on `--rerun-incomplete`, redoing only unfinished entries,
  with no duplicate or missing ids; while it ran, a second `snakemake` on the same folder was refused by the
  lock;
* a translation job orphaned by a SIGKILLed Snakemake finishes on its own; `--rerun-incomplete` then
  rebuilds its output from the kept records without a single request;
* a run killed during `--forcerun translate` leaves no stale card behind: the next run rebuilds the
  translation and converges to the card of an uninterrupted run;
* a scoring job SIGKILLed mid-write leaves no output a later step would read (atomic writes), and a
  Snakemake killed while a job was finishing has that output marked incomplete (refused until redone);
* an LLM endpoint answering 429/500/timeouts/garbage is retried with backoff within `max_retries`, and
  entries that still fail are recorded as errors and counted in the run card's `errors`;
* corrupted or truncated per-entry files (metric Parquet, translation JSONL) are a clear InputError,
  never silently wrong numbers.

Faults inside jobs are injected with a `sitecustomize.py` on PYTHONPATH (only when LYSS_FAULT is set), so
no test hook lives in the library.
"""

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from openai_server import Script, serve
from scratch_project import DATASET, env, make_project, run_card, sh, without_timing

from lyss.errors import InputError
from lyss.io import fixed
from lyss.metrics.files import read_metric_result
from lyss.metrics.score import scoring_input

pytestmark = pytest.mark.slow

KEY_ENV = "LYSS_TEST_FAULTS_KEY"
CANARY = "sk-canary-faults-5f0c1e"
CARD = f"results/runs/{DATASET}/llm.json"


def llm_method(base_url: str, **options) -> dict:
    return {"llm": {"kind": "openai_compatible", "base_url": base_url, "model": "mt-model", "api_key_env": KEY_ENV,
                    "concurrency": 1, "backoff_s": 0.02, "timeout_s": 5, "max_retries": 2, **options}}


def start(work: Path, *args, env_extra=None) -> subprocess.Popen:
    """Snakemake in the background, in its own session so that the whole tree can be SIGKILLed."""
    argv = ["timeout", "-k", "5", "300", "snakemake", "--cores", "1", *args]
    return subprocess.Popen(argv, cwd=work, env=env(**{KEY_ENV: CANARY, **(env_extra or {})}),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)


def wait_for(condition, timeout: float, what: str, process: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if process is not None and process.poll() is not None:
            raise AssertionError(f"snakemake ended before {what}:\n{process.stdout.read()[-3000:]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def with_hooks(hooks: Path) -> str:
    """PYTHONPATH with the fault hooks first, keeping the lyss the tests run with."""
    return os.pathsep.join(filter(None, [str(hooks), os.environ.get("PYTHONPATH")]))


def kill_tree(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)


def record_store(work: Path, method: str = "llm") -> Path | None:
    """The record store of a method (results/translations/records/<dataset>/<method>/<settings>.jsonl)."""
    stores = list((work / f"results/translations/records/{DATASET}/{method}").glob("*.jsonl"))
    assert len(stores) <= 1, stores
    return stores[0] if stores else None


def stored_records(work: Path) -> list[dict]:
    """Complete records of the store (the header and a torn last line are skipped)."""
    store = record_store(work)
    if store is None:
        return []
    records = []
    for line in store.read_text(encoding="utf-8").splitlines()[1:]:
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return records


def source_of(request: dict) -> str:
    return request["body"]["messages"][-1]["content"].split("Text:\n", 1)[1]


def corpus(work: Path) -> list[dict]:
    return [json.loads(line) for line in (work / f"data/corpora/{DATASET}/corpus.jsonl").read_text().splitlines()]


# ------------------------------------------------------------------ killed translation, and the lock


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory):
    """Run 1 translates slowly; once it has 3 records the endpoint slows to a crawl, a second snakemake
    tries the same folder, and run 1 is SIGKILLed (Snakemake and its job) mid-corpus; run 2 unlocks and
    resumes against a fast endpoint."""
    with serve(Script(faults={"": "sleep"}, sleep_s=0.2)) as server:
        work = make_project(tmp_path_factory.mktemp("killed"), 24, methods=llm_method(server.base_url),
                            metrics=["exact_match_rate"])
        first = start(work, "translate_all")
        wait_for(lambda: len(stored_records(work)) >= 3, 120, "3 translations", first)
        server.script.sleep_s = 30.0
        second = sh(work, "snakemake", "--cores", "1", "translate_all", check=False, timeout=120,
                    env_extra={KEY_ENV: CANARY})
        assert first.poll() is None, "the first run ended before it could be killed"
        kill_tree(first)
        wait_for(lambda: not processes_in(work), 60, f"the killed processes to go: {processes_in(work)}")
        finished = stored_records(work)
        requests_before = len(server.requests)
        server.script.sleep_s = 0.0
        sh(work, "snakemake", "--unlock")
        resumed = sh(work, "snakemake", "--cores", "1", "--rerun-incomplete", "translate_all",
                     env_extra={KEY_ENV: CANARY})
        later_requests = server.requests[requests_before:]
    return {"work": work, "second": second, "finished": finished, "requests": later_requests, "resumed": resumed}


def processes_in(work: Path) -> list[int]:
    """Processes whose command line or working directory is in `work`."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().decode(errors="replace")
            cwd = os.readlink(proc / "cwd")
        except OSError:
            continue
        if str(work) in cmdline or cwd.startswith(str(work)):
            found.append((int(proc.name), cmdline.replace("\0", " ")[:200]))
    return found


def test_second_snakemake_on_the_same_folder_is_refused_by_the_lock(interrupted):
    second = interrupted["second"]
    assert second.returncode != 0
    assert "LockException" in second.stdout + second.stderr
    assert "Directory cannot be locked" in second.stdout + second.stderr


def test_killed_translation_resumes_redoing_only_unfinished_entries(interrupted):
    work, finished = interrupted["work"], interrupted["finished"]
    entries = corpus(work)
    done_ids = {r["id"] for r in finished}
    assert 3 <= len(done_ids) < len(entries) and len(done_ids) == len(finished)
    asked = [source_of(r) for r in interrupted["requests"]]
    by_source = {e["source"]: e["id"] for e in entries}
    # exactly the entries without a record, each once
    assert sorted(by_source[s] for s in asked) == sorted(e["id"] for e in entries if e["id"] not in done_ids)
    out = [json.loads(line) for line in (work / f"results/translations/{DATASET}/llm.jsonl").read_text().splitlines()]
    assert [r["id"] for r in out] == [e["id"] for e in entries]  # all there, corpus order, no duplicates
    assert all(r["error"] is None and r["prediction"] for r in out)
    timing = json.loads((work / f"results/timings/translations/{DATASET}/llm.json").read_text())
    for record in finished:  # earlier results kept as they were; their latency goes to the timing file
        kept = {k: v for k, v in record.items() if k not in ("input", "latency_s")}
        assert out[[e["id"] for e in entries].index(record["id"])] == {**kept, "hooks_applied": []}
        assert timing["latency_s"][record["id"]] == fixed(record["latency_s"])  # JSON floats: 10 digits
    meta = json.loads((work / f"results/translations/{DATASET}/llm.meta.json").read_text())
    assert meta["resumed"] == len(done_ids) and meta["translated"] == len(entries) - len(done_ids)
    # the paid records stay, one per entry, so a later deletion of the output costs nothing
    assert sorted(r["id"] for r in stored_records(work)) == sorted(e["id"] for e in entries)


# ------------------------------------------------------------------ Snakemake killed, its job left running


def children(pid: int) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(proc.name))
        except (OSError, IndexError, ValueError):
            continue
    return found


@pytest.fixture(scope="module")
def orphaned(tmp_path_factory):
    """Only the Snakemake process is SIGKILLed while the LLM job runs; the job finishes on its own, then
    `--rerun-incomplete` runs against the same endpoint."""
    with serve(Script(faults={"": "sleep"}, sleep_s=0.1)) as server:
        work = make_project(tmp_path_factory.mktemp("orphaned"), 12, methods=llm_method(server.base_url),
                            metrics=["exact_match_rate"])
        raw = work / f"results/translations/raw/{DATASET}/llm.jsonl"
        run = start(work, f"results/translations/raw/{DATASET}/llm.jsonl")
        wait_for(lambda: len(stored_records(work)) >= 2, 120, "2 translations", run)
        (snakemake,) = children(run.pid)  # `timeout` → snakemake → the job
        os.kill(snakemake, signal.SIGKILL)
        run.wait(timeout=30)
        wait_for(lambda: not processes_in(work), 120, "the orphaned job to finish")
        orphan_output = raw.read_text(encoding="utf-8")
        requests_before = len(server.requests)
        sh(work, "snakemake", "--unlock")
        refused = sh(work, "snakemake", "--cores", "1", "translate_all", check=False, env_extra={KEY_ENV: CANARY})
        rerun = sh(work, "snakemake", "--cores", "1", "--rerun-incomplete", "translate_all",
                   env_extra={KEY_ENV: CANARY})
        later_requests = server.requests[requests_before:]
    return {"work": work, "orphan_output": orphan_output, "refused": refused, "rerun": rerun,
            "requests": later_requests, "requests_total": len(server.requests)}


def test_orphaned_job_output_is_reused_without_a_request(orphaned):
    work = orphaned["work"]
    assert orphaned["requests_total"] == 12  # each entry asked once, by the orphan
    assert [json.loads(line)["id"] for line in orphaned["orphan_output"].splitlines()] == [
        e["id"] for e in corpus(work)]
    assert "IncompleteFilesException" in orphaned["refused"].stdout + orphaned["refused"].stderr
    assert "rule translate:" in orphaned["rerun"].stdout + orphaned["rerun"].stderr  # Snakemake redid the job...
    assert orphaned["requests"] == []  # ...without asking the endpoint anything
    raw = work / f"results/translations/raw/{DATASET}/llm.jsonl"
    assert raw.read_text(encoding="utf-8") == orphaned["orphan_output"]
    meta = json.loads((work / f"results/translations/{DATASET}/llm.meta.json").read_text())
    assert meta["resumed"] == 12 and meta["translated"] == 0


# ------------------------------------------------------------------ killed during --forcerun translate

FORCED_ENTRIES = 10


@pytest.fixture(scope="module")
def forced(tmp_path_factory):
    """Run 1 ends with two entries failed (HTTP 400); `--forcerun translate` retries them against a slow
    endpoint and is SIGKILLed mid-job; then a plain run. A second project, never interrupted, is run against
    the same (now healthy) endpoint for comparison."""
    sources = [e["source"] for e in map(json.loads, (Path(__file__).parents[1] / "data/corpora/demo_eng_spa/"
                                                      "corpus.jsonl").read_text().splitlines()[:FORCED_ENTRIES])]
    with serve(Script(faults={sources[3]: "400", sources[7]: "400"})) as server:
        work = make_project(tmp_path_factory.mktemp("forced"), FORCED_ENTRIES, methods=llm_method(server.base_url),
                            metrics=["exact_match_rate", "chrf_plus_plus"])
        sh(work, "snakemake", "--cores", "1", "all", env_extra={KEY_ENV: CANARY})
        first_card = run_card(work, "llm")
        server.script.faults, server.script.sleep_s = {sources[3]: "sleep"}, 60.0
        before = len(server.requests)
        run = start(work, "all", "--forcerun", "translate")
        wait_for(lambda: len(server.requests) > before, 120, "the forced job's first request", run)
        kill_tree(run)
        wait_for(lambda: not processes_in(work), 10, "the killed processes to go")
        server.script.faults, server.script.sleep_s = {}, 0.0
        sh(work, "snakemake", "--unlock")
        dry_run = sh(work, "snakemake", "-n", "--cores", "1", "all")
        before = len(server.requests)
        sh(work, "snakemake", "--cores", "1", "all", env_extra={KEY_ENV: CANARY})
        after_kill = [source_of(r) for r in server.requests[before:]]
        clean = make_project(tmp_path_factory.mktemp("uninterrupted"), FORCED_ENTRIES,
                             methods=llm_method(server.base_url), metrics=["exact_match_rate", "chrf_plus_plus"])
        sh(clean, "snakemake", "--cores", "1", CARD, env_extra={KEY_ENV: CANARY})
    return {"first_card": first_card, "dry_run": dry_run, "after_kill": after_kill, "card": run_card(work, "llm"),
            "uninterrupted": run_card(clean, "llm"), "sources": sources}


def test_run_after_a_killed_forcerun_rebuilds_and_converges(forced):
    assert forced["first_card"]["scores"]["errors"] == 2
    assert "Nothing to be done" not in forced["dry_run"].stdout + forced["dry_run"].stderr
    assert "translate" in forced["dry_run"].stdout
    # only the two failed entries were asked again; the eight paid answers came from the record store
    assert sorted(forced["after_kill"]) == sorted([forced["sources"][3], forced["sources"][7]])
    assert forced["card"]["scores"]["errors"] == 0
    assert without_timing(forced["card"]) == without_timing(forced["uninterrupted"])


# ------------------------------------------------------------------ scoring killed mid-write

SITECUSTOMIZE = '''
import os
_fault = os.environ.get("LYSS_FAULT")
if _fault:
    import time
    import pyarrow.parquet as _pq
    _metric = os.environ["LYSS_FAULT_METRIC"]
    _method = os.environ.get("LYSS_FAULT_METHOD")  # optional: only this method's file
    _write = _pq.write_table

    def write_table(table, where, *args, **kwargs):
        _write(table, where, *args, **kwargs)
        if f".{_metric}.parquet." not in str(where) or (_method and f"/{_method}/" not in str(where)):
            return
        if _fault == "kill_mid_write":  # half the bytes on disk, then the job dies
            data = open(where, "rb").read()
            with open(where, "wb") as handle:
                handle.write(data[: len(data) // 2])
            os.kill(os.getpid(), 9)

    _pq.write_table = write_table
    if _fault == "hang_after_write":  # the output is complete, but the job has not ended
        import lyss.metrics.files as _files

        _write_result = _files.write_metric_result

        def write_metric_result(path, *args, **kwargs):
            _write_result(path, *args, **kwargs)
            if str(path).endswith(f"/{_metric}.parquet"):
                time.sleep(120)

        _files.write_metric_result = write_metric_result
'''

SCORE_METRICS = ["exact_match_rate", "chrf_plus_plus", "bleu"]
COPY_CARD = f"results/runs/{DATASET}/copy_source.json"


@pytest.fixture(scope="module")
def scoring_project(tmp_path_factory):
    work = make_project(tmp_path_factory.mktemp("scoring"), 10, methods={"copy_source": {"kind": "copy_source"}},
                        metrics=SCORE_METRICS)
    hooks = work.parent / "fault_hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return work, hooks


def test_scoring_job_killed_mid_write_leaves_no_output_to_read(scoring_project):
    work, hooks = scoring_project
    fault = {"PYTHONPATH": with_hooks(hooks), "LYSS_FAULT": "kill_mid_write", "LYSS_FAULT_METRIC": "bleu",
             "LYSS_FAULT_METHOD": "copy_source"}  # not the oracle's bleu, which the card also reads
    failed = sh(work, "snakemake", "--cores", "1", COPY_CARD, check=False, env_extra=fault)
    assert failed.returncode != 0
    assert "Error in rule score" in failed.stdout + failed.stderr
    folder = work / f"results/metrics/{DATASET}/copy_source"
    assert not (folder / "bleu.parquet").exists()  # the torn bytes never reached the output's name
    torn = list(folder.glob(".bleu.parquet.*.tmp"))
    assert len(torn) == 1 and torn[0].stat().st_size > 0
    assert not (work / COPY_CARD).exists()  # aggregate never ran on a missing metric
    with pytest.raises(InputError, match="does not exist"):
        read_metric_result(folder / "bleu.parquet")
    sh(work, "snakemake", "--cores", "1", COPY_CARD)
    result, ids = read_metric_result(folder / "bleu.parquet")
    assert len(ids) == 10 and result.available
    assert not list(folder.glob(".*.tmp")), "the next successful write clears the killed writer's temp file"
    assert run_card(work, "copy_source")["scores"]["bleu"] == pytest.approx(result.corpus_value, abs=1e-4)


def test_output_of_a_job_killed_before_it_ended_is_marked_incomplete(scoring_project):
    work, hooks = scoring_project
    relative = f"results/metrics/{DATASET}/copy_source/chrf_plus_plus.parquet"
    target = work / relative
    target.unlink()
    fault = {"PYTHONPATH": with_hooks(hooks), "LYSS_FAULT": "hang_after_write", "LYSS_FAULT_METRIC": "chrf_plus_plus"}
    run = start(work, relative, env_extra=fault)
    wait_for(target.exists, 120, "the chrF++ file", run)
    kill_tree(run)
    sh(work, "snakemake", "--unlock")
    refused = sh(work, "snakemake", "--cores", "1", relative, check=False)
    assert refused.returncode != 0 and "IncompleteFilesException" in refused.stdout + refused.stderr
    assert relative in refused.stdout + refused.stderr
    redone = sh(work, "snakemake", "--cores", "1", "--rerun-incomplete", relative)
    assert "rule score_cpu:" in redone.stdout + redone.stderr  # the CPU metrics of copy_source share one job
    read_metric_result(target)


def test_corrupted_metric_file_stops_aggregation_with_a_clear_error(scoring_project):
    work, _ = scoring_project
    sh(work, "snakemake", "--cores", "1", COPY_CARD)
    path = work / f"results/metrics/{DATASET}/copy_source/exact_match_rate.parquet"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 2 // 3])  # newer than the card: Snakemake re-aggregates
    failed = sh(work, "snakemake", "--cores", "1", COPY_CARD, check=False)
    assert failed.returncode != 0
    output = failed.stdout + failed.stderr
    assert "exact_match_rate.parquet: unreadable or truncated Parquet file" in output
    assert not (work / COPY_CARD).exists(), "no card built from a truncated metric file"
    path.unlink()
    sh(work, "snakemake", "--cores", "1", COPY_CARD)


# ------------------------------------------------------------------ LLM endpoint faults

FAULTS = {  # entry index → scripted answers, one per request ("ok" = answer)
    0: ["429", "ok"],
    1: ["500", "500", "ok"],
    2: "500",
    3: "garbage",
    4: "sleep",
    5: ["garbage", "ok"],
    6: "no_choices",
    7: "400",
}
FAILING = {2: "HTTP 500 after 3 attempts", 3: "malformed JSON response after 3 attempts",
           4: "timeout (2 s) after 3 attempts", 6: "response without choices after 3 attempts", 7: "HTTP 400"}
ATTEMPTS = {0: 2, 1: 3, 2: 3, 3: 3, 4: 3, 5: 2, 6: 3, 7: 1}


@pytest.fixture(scope="module")
def flaky_run(tmp_path_factory):
    n = 12
    work_dir = tmp_path_factory.mktemp("flaky")
    sources = [json.loads(line)["source"] for line in (Path(__file__).parents[1] / "data/corpora/demo_eng_spa/"
                                                        "corpus.jsonl").read_text().splitlines()[:n]]
    # The "sleep" entry is never answered (the server holds it until it stops), so its timeout fires however
    # busy the machine is, while 2 s leaves every answered request ample time.
    script = Script(faults={sources[i]: fault for i, fault in FAULTS.items()}, sleep_s=3600, retry_after="0")
    with serve(script) as server:
        work = make_project(work_dir, n, methods=llm_method(server.base_url, timeout_s=2),
                            metrics=["exact_match_rate", "chrf_plus_plus"])
        sh(work, "snakemake", "--cores", "1", CARD, env_extra={KEY_ENV: CANARY})
    return work, server.requests, sources


def test_endpoint_faults_are_retried_within_limits_then_recorded_as_errors(flaky_run):
    work, requests, sources = flaky_run
    asked = [source_of(r) for r in requests]
    for i, source in enumerate(sources):
        assert asked.count(source) == ATTEMPTS.get(i, 1), (i, source)
    out = work / f"results/translations/{DATASET}/llm.jsonl"
    records = [json.loads(line) for line in out.read_text().splitlines()]
    for i, record in enumerate(records):
        if i in FAILING:
            assert record["prediction"] is None and record["error"].startswith(FAILING[i]), record
        else:
            assert record["error"] is None and record["prediction"], record
    card = run_card(work, "llm")
    assert card["scores"]["errors"] == len(FAILING)
    assert card["scores"]["evaluated"] == len(sources) - len(FAILING) and card["scores"]["total"] == len(sources)


def test_api_key_is_sent_but_never_written(flaky_run):
    work, requests, _ = flaky_run
    assert all(r["headers"].get("Authorization") == f"Bearer {CANARY}" for r in requests)
    leaked = [str(p) for folder in (work / "results", work / ".snakemake") for p in folder.rglob("*")
              if p.is_file() and CANARY.encode() in p.read_bytes()]
    assert not leaked
    record = json.loads((work / f"results/translations/{DATASET}/llm.jsonl").read_text().splitlines()[7])
    assert "***" in record["error"]  # the server echoed the key; the record has it redacted


# ------------------------------------------------------------------ corrupted per-entry files (library level)


@pytest.fixture(scope="module")
def metric_file(scoring_project):
    work, _ = scoring_project
    sh(work, "snakemake", "--cores", "1", COPY_CARD)
    return work / f"results/metrics/{DATASET}/copy_source/chrf_plus_plus.parquet"


def _rewrite(path: Path, target: Path, change) -> None:
    """Rewrite a metric file with `change(frame)` applied to its rows but the original metadata kept."""
    table = pq.read_table(path)
    frame = change(table.to_pandas())
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata(table.schema.metadata),
                   target)


def _flip_middle_byte(data: bytes) -> bytes:
    middle = len(data) // 2
    return data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1:]


CORRUPTIONS = {
    "truncated to half": (lambda p, t: t.write_bytes(p.read_bytes()[: p.stat().st_size // 2]), "truncated"),
    "empty": (lambda p, t: t.write_bytes(b""), "unreadable or truncated"),
    "a value changed": (lambda p, t: _rewrite(p, t, lambda f: f.assign(value=f["value"] + 1e-3)), "corrupted"),
    "last row dropped": (lambda p, t: _rewrite(p, t, lambda f: f.iloc[:-1]), "corrupted"),
    "a row duplicated": (lambda p, t: _rewrite(p, t, lambda f: pd.concat([f, f.iloc[:1]])), "corrupted"),
    "ids swapped": (lambda p, t: _rewrite(p, t, lambda f: f.assign(id=list(reversed(f["id"])))), "corrupted"),
    "metadata stripped": (lambda p, t: pq.write_table(pq.read_table(p).replace_schema_metadata({}), t),
                          "not a LYSS metric file"),
}


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_corrupted_metric_file_is_an_input_error(metric_file, tmp_path, corruption):
    damage, message = CORRUPTIONS[corruption]
    target = tmp_path / "chrf_plus_plus.parquet"
    damage(metric_file, target)
    with pytest.raises(InputError, match=message) as err:
        read_metric_result(target)
    assert str(target) in str(err.value)


def test_flipped_bit_is_never_read_as_other_numbers(metric_file, tmp_path):
    """A flipped bit anywhere (rows, column names, schema, Parquet or LYSS metadata) either leaves what
    the reader returns unchanged or is an InputError; about 600 positions spread over the file."""
    reference, reference_ids = read_metric_result(metric_file)
    data = metric_file.read_bytes()
    target = tmp_path / "flipped.parquet"
    for position in range(0, len(data), max(1, len(data) // 300)):
        for mask in (0x01, 0x80):
            target.write_bytes(data[:position] + bytes([data[position] ^ mask]) + data[position + 1:])
            try:
                result, ids = read_metric_result(target)
            except InputError:
                continue
            assert ids == reference_ids and result.corpus_value == reference.corpus_value, position
            assert result.values.tobytes() == reference.values.tobytes(), position
            assert result.stats.tobytes() == reference.stats.tobytes() and result.counts == reference.counts, position


def test_truncated_or_torn_translation_file_is_an_input_error(scoring_project, tmp_path):
    work, _ = scoring_project
    source = work / f"results/translations/{DATASET}/copy_source.jsonl"
    corpus_path, meta = work / f"results/corpora/{DATASET}.jsonl", work / f"results/corpora/{DATASET}.meta.json"
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    truncated = tmp_path / "truncated.jsonl"
    truncated.write_text("".join(lines[:-3]), encoding="utf-8")
    with pytest.raises(InputError, match=r"no translation record for 3 entries") as err:
        scoring_input(corpus_path, meta, truncated, work / "data/languages")
    assert str(truncated) in str(err.value)
    torn = tmp_path / "torn.jsonl"
    torn.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2], encoding="utf-8")
    with pytest.raises(InputError, match=rf"{torn}:{len(lines)}: malformed JSON"):
        scoring_input(corpus_path, meta, torn, work / "data/languages")

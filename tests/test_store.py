"""The run-card store (src/lyss/store.py, spec §9.1) against SQLite and a real PostgreSQL server.

The PostgreSQL server is a throwaway cluster started here (initdb + pg_ctl on a free localhost port, as the
`postgres` user when run as root) and stopped at the end; its tests are skipped, with the reason, only
when no server can be started. Expected values come from the hand-written cards of handmade_cards.py and
the spec's table, not from the store's own constants."""

import glob
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from handmade_cards import changed, make_card, write_cards

from lyss.cli import main
from lyss.errors import InputError
from lyss.migrations import Migration, all_migrations
from lyss.store import Store, StoreError, configured_url, mask_url, scrub

PASSWORD = "s3cr3t-Pw_7x"

# Spec §9.1, copied by hand: column → type.
SPEC_TYPES = {
    "composite_score": "real", "quality_tier": "text", "chrf_plus_plus": "real", "exact_match_rate": "real",
    "fst_acceptance_rate": "real", "corpus_bleu": "real", "comet_score": "real", "total_cost_usd": "real",
    "cost_per_entry_usd": "real", "cost_per_source_char": "real", "avg_latency_seconds": "real",
    "model_slug": "text", "condition": "text", "dataset_id": "text", "language_pair": "text",
    "fingerprint_hash": "text", "equivalent_match_rate": "real", "semantic_score": "real", "ter": "real",
    "length_ratio": "real", "code_switching_rate": "real", "hallucination_rate": "real",
    "terminology_adherence": "real", "tokens_per_second": "real", "entries_per_minute": "real",
    "elapsed_seconds": "real",
}
SPEC_INDEXES = {"idx_composite": ["composite_score"], "idx_leaderboard": ["dataset_id", "chrf_plus_plus"],
                "idx_model": ["model_slug"], "idx_fingerprint": ["fingerprint_hash"]}


# ---------------------------------------------------------------------------------------------- servers

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def postgres():
    """A throwaway PostgreSQL cluster; yields (admin DSN over the socket, DSN of role `lyss` over TCP)."""
    initdb = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not initdb or not Path(initdb[-1]).with_name("pg_ctl").exists():
        pytest.skip("PostgreSQL tests skipped: no initdb/pg_ctl under /usr/lib/postgresql/*/bin "
                    "(install the Debian package `postgresql`; .ci/run does through `make test`)")
    bindir = Path(initdb[-1]).parent
    base = Path(tempfile.mkdtemp(prefix="lyss-pg-"))
    as_user = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        shutil.chown(base, "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    port = _free_port()
    data = base / "data"

    def run(*cmd):
        return subprocess.run([*as_user, *cmd], capture_output=True, text=True, timeout=60)

    done = run(str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "-E", "UTF8", "--no-sync",
               "--auth-local=trust", "--auth-host=scram-sha-256")
    if done.returncode:
        shutil.rmtree(base, ignore_errors=True)
        pytest.skip(f"PostgreSQL tests skipped: initdb failed: {(done.stderr or done.stdout).strip()[-500:]}")
    options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off"
    done = run(str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(base / "server.log"), "-w",
               "-t", "30", "start")
    if done.returncode:
        log = (base / "server.log").read_text(errors="replace")[-500:] if (base / "server.log").exists() else ""
        shutil.rmtree(base, ignore_errors=True)
        pytest.skip(f"PostgreSQL tests skipped: pg_ctl start failed: {done.stderr.strip()[-300:]} {log}")
    admin = f"host={base} port={port} user=postgres dbname=postgres"
    try:
        import psycopg

        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"CREATE ROLE lyss LOGIN PASSWORD '{PASSWORD}'")
            conn.execute("CREATE DATABASE lyss OWNER lyss")
        yield SimpleNamespace(admin=admin, url=f"postgresql://lyss:{PASSWORD}@127.0.0.1:{port}/lyss", port=port)
    finally:
        run(str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(base, ignore_errors=True)


def _reset_postgres(server) -> None:
    import psycopg

    with psycopg.connect(server.url, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS run_cards, lyss_schema_migrations")


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    """A fresh, empty database of each kind."""
    if request.param == "sqlite":
        return str(tmp_path / "lyss.sqlite")
    server = request.getfixturevalue("postgres")
    _reset_postgres(server)
    return server.url


# ---------------------------------------------------------------------------------------------- schema

def _schema(store: Store) -> tuple[dict, dict]:
    """(column → type, index → columns) as the database itself reports them."""
    if store.dialect == "sqlite":
        columns = {r[1]: r[2].lower() for r in store.connection.execute("PRAGMA table_info(run_cards)")}
        indexes = {}
        for row in store.connection.execute("PRAGMA index_list(run_cards)"):
            indexes[row[1]] = [r[2] for r in store.connection.execute(f"PRAGMA index_info({row[1]})")]
        return columns, indexes
    rows = store.connection.execute("SELECT column_name, data_type FROM information_schema.columns "
                                    "WHERE table_name = 'run_cards'").fetchall()
    columns = {name: kind for name, kind in rows}
    indexes = {}
    for name, definition in store.connection.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'run_cards'").fetchall():
        inside = definition[definition.index("(") + 1:definition.index(")")]
        indexes[name] = [c.strip() for c in inside.split(",")]
    return columns, indexes


def test_schema_has_every_spec_column_type_and_index(url):
    with Store.open(url) as store:
        columns, indexes = _schema(store)
        for column, kind in SPEC_TYPES.items():
            assert columns.get(column) == kind, (column, columns.get(column))
        assert columns["run_card"] == ("jsonb" if store.dialect == "postgresql" else "text")
        for name, cols in SPEC_INDEXES.items():
            assert indexes.get(name) == cols, (name, indexes.get(name))


def test_migrations_are_recorded_once_and_a_new_one_applies(url):
    with Store.open(url) as store:
        assert store.schema_version() == len(all_migrations())
        assert store.migrate() == []
        extra = Migration(len(all_migrations()) + 1, "add_test_column", SimpleNamespace(
            upgrade=lambda dialect: ["ALTER TABLE run_cards ADD COLUMN test_metric real"]))
        assert store.migrate([*all_migrations(), extra]) == [extra.version]
        assert store.migrate([*all_migrations(), extra]) == []
        assert _schema(store)[0]["test_metric"] == "real"
    with pytest.raises(StoreError, match="newer than this lyss knows"):
        Store.open(url)


# ---------------------------------------------------------------------------------------------- upserts

def test_same_card_twice_leaves_one_row(url):
    card = make_card(method="alpha", fingerprint="a", composite=0.61)
    with Store.open(url) as store:
        assert store.push(card).status == "added"
        assert store.push(card).status == "unchanged"
        assert store.count() == 1
        assert [r["version"] for r in store.query(history=True)] == [1]


def test_changed_card_adds_a_version_and_keeps_history(url):
    first = make_card(method="alpha", fingerprint="a", composite=0.61, chrf=55.0)
    second = changed(first, "b", composite=0.64, chrf_plus_plus=57.5)
    with Store.open(url) as store:
        store.push(first)
        result = store.push(second)
        assert (result.status, result.version) == ("added", 2)
        history = store.query(dataset="demo", history=True)
        assert [(r["version"], r["is_current"], r["composite_score"]) for r in history] == [
            (2, True, 0.64), (1, False, 0.61)]
        assert history[1]["run_card"] == first and history[0]["run_card"] == second
        assert [r["version"] for r in store.query(dataset="demo")] == [2]
        # pushing the old card again makes it current again, still two rows
        assert store.push(first).status == "restored"
        assert [(r["version"], r["is_current"]) for r in store.query(history=True)] == [(2, False), (1, True)]


def test_same_fingerprint_with_a_changed_card_updates_in_place(url):
    card = make_card(method="alpha", fingerprint="a", avg_latency=0.5)
    rerun = changed(card, "a", avg_latency_seconds=0.7)  # timing differs, inputs identical
    with Store.open(url) as store:
        store.push(card)
        assert store.push(rerun).status == "updated"
        rows = store.query(history=True)
        assert len(rows) == 1 and rows[0]["avg_latency_seconds"] == 0.7 and rows[0]["run_card"] == rerun


def test_columns_are_copied_from_the_card(url):
    card = make_card(dataset="demo", method="alpha", fingerprint="e", composite=0.7125, chrf=61.25,
                     cost_per_entry=0.0025, avg_latency=1.5, entries_per_minute=40.0, bleu=33.5, ter=48.0,
                     fst_acceptance_rate=0.875, hallucination_rate=0.0625, tier="deployable")
    with Store.open(url) as store:
        store.push(card)
        row = store.query(dataset="demo")[0]
    assert row == {**row, "dataset_id": "demo", "method_name": "alpha", "composite_score": 0.7125,
                   "quality_tier": "deployable", "chrf_plus_plus": 61.25, "corpus_bleu": 33.5, "ter": 48.0,
                   "fst_acceptance_rate": 0.875, "hallucination_rate": 0.0625, "cost_per_entry_usd": 0.0025,
                   "total_cost_usd": 0.025, "avg_latency_seconds": 1.5, "entries_per_minute": 40.0,
                   "model_slug": "alpha", "condition": "default", "language_pair": "eng-spa",
                   "fingerprint_hash": "e" * 64, "elapsed_seconds": 6.0, "comet_score": None,
                   "cost_per_source_char": None}
    assert row["run_card"] == card


def test_query_sorts_by_composite_cost_and_latency_with_unknowns_last(url):
    cards = [
        make_card(method="alpha", fingerprint="1", composite=0.50, cost_per_entry=0.0030, avg_latency=2.0),
        make_card(method="bravo", fingerprint="2", composite=0.75, cost_per_entry=0.0010, avg_latency=None),
        make_card(method="charlie", fingerprint="3", composite=None, tier="unscored", cost_per_entry=0.0020,
                  avg_latency=0.25),
        make_card(dataset="other", method="delta", fingerprint="4", composite=0.99),
    ]
    with Store.open(url) as store:
        store.push_all((str(i), c) for i, c in enumerate(cards))

        def order(sort):
            return [r["method_name"] for r in store.query(dataset="demo", sort=sort)]

        assert order("composite") == ["bravo", "alpha", "charlie"]
        assert order("cost_per_entry_usd") == ["bravo", "charlie", "alpha"]
        assert order("avg_latency_seconds") == ["charlie", "alpha", "bravo"]
        assert store.datasets() == ["demo", "other"]
        with pytest.raises(StoreError, match="unknown sort"):
            store.query(sort="composite_score; DROP TABLE run_cards")


def test_values_are_parameters_not_sql(url):
    hostile = "demo'); DROP TABLE run_cards; --"
    with Store.open(url) as store:
        store.push(make_card(dataset=hostile, method="alpha"))
        assert [r["dataset_id"] for r in store.query(dataset=hostile)] == [hostile]
        assert store.count() == 1


def test_an_invalid_card_is_refused_with_its_field(url):
    card = make_card()
    card["scores"]["composite"] = 1.7
    with Store.open(url) as store:
        with pytest.raises(InputError, match=r"bad\.json: field 'scores\.composite'"):
            store.push(card, "bad.json")
        assert store.count() == 0


# ---------------------------------------------------------------------------------------------- DSNs

def test_env_var_wins_over_params_and_null_means_default():
    assert configured_url({"url": "postgresql://h/db"}, environ={"LYSS_DATABASE_URL": "other.sqlite"}) == \
        "other.sqlite"
    assert configured_url({"url": "postgresql://h/db"}, environ={}) == "postgresql://h/db"
    assert configured_url({"url": None}, environ={}) is None
    assert configured_url(None, environ={"LYSS_DATABASE_URL": " "}) is None


@pytest.mark.parametrize("dsn, masked", [
    ("postgresql://lyss:pa%40ss@db.example:5432/lyss", "postgresql://lyss:***@db.example:5432/lyss"),
    ("postgres://lyss@db/lyss?sslmode=require&password=xyz", "postgres://lyss@db/lyss?sslmode=require&password=***"),
    ("host=db user=lyss password='a b c' dbname=lyss", "host=db user=lyss password=*** dbname=lyss"),
    ("host=db password=xyz", "host=db password=***"),
    ("postgresql://u:p/a?s#s@w@h:5/db", "postgresql://u:***@h:5/db"),  # unencoded, still masked whole
    ("results/lyss.sqlite", "results/lyss.sqlite"),
])
def test_mask_url_hides_passwords(dsn, masked):
    assert mask_url(dsn) == masked


def test_a_card_with_nan_is_refused_by_name(tmp_path):
    card = make_card()
    card["metric_details"] = {"x": float("nan")}
    with Store.open(tmp_path / "db.sqlite") as store, pytest.raises(InputError, match="nan.json: holds NaN"):
        store.push(card, "nan.json")


def test_scrub_removes_the_password_in_any_spelling():
    url = "postgresql://lyss:pa%40ss@db/lyss"
    assert scrub("auth failed for pa@ss and pa%40ss", url) == "auth failed for *** and ***"


# ---------------------------------------------------------------------------------------------- CLI

def _cli(capsys, *argv):
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_cli_push_and_query(url, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no params.yaml here
    monkeypatch.setenv("LYSS_DATABASE_URL", url)
    paths = write_cards(tmp_path / "runs", [
        make_card(method="alpha", fingerprint="1", composite=0.52, chrf=47.0, cost_per_entry=0.002),
        make_card(method="bravo", fingerprint="2", composite=0.71, chrf=58.0, cost_per_entry=0.004),
    ])
    status, out, err = _cli(capsys, "db", "push", *map(str, paths))
    assert status == 0 and "demo/alpha: added (version 1" in out and "2 added" in out
    status, out, _ = _cli(capsys, "db", "push", *map(str, paths))
    assert status == 0 and "2 unchanged" in out

    status, out, _ = _cli(capsys, "db", "query", "--dataset", "demo")
    lines = [line.split() for line in out.splitlines()[1:3]]
    assert [line[2] for line in lines] == ["bravo", "alpha"] and lines[0][3] == "0.7100"
    status, out, _ = _cli(capsys, "db", "query", "--dataset", "demo", "--sort", "cost_per_entry_usd", "--json")
    rows = json.loads(out)
    assert [(r["method_name"], r["cost_per_entry_usd"]) for r in rows] == [("alpha", 0.002), ("bravo", 0.004)]
    assert "run_card" not in rows[0]
    status, _, err = _cli(capsys, "db", "query", "--dataset", "missing")
    assert status == 1 and "no run cards for dataset 'missing'" in err
    for text in (out, err):
        assert PASSWORD not in text


@pytest.mark.parametrize("make_bad,where,problem", [
    (lambda path: None, "", "cannot read file (No such file or directory)"),
    (lambda path: path.mkdir(), "", "cannot read file (Is a directory)"),
    (lambda path: path.write_bytes(b"\xff{}"), "", "not valid UTF-8 (byte 1)"),
    (lambda path: path.write_text('{"dataset":\n', encoding="utf-8"), ":2", "malformed JSON (Expecting value)"),
])
def test_cli_push_of_a_card_file_it_cannot_read_is_one_line_and_writes_nothing(tmp_path, capsys, monkeypatch,
                                                                                make_bad, where, problem):
    monkeypatch.chdir(tmp_path)
    database = tmp_path / "runs.sqlite"
    monkeypatch.setenv("LYSS_DATABASE_URL", f"sqlite:///{database}")
    good = write_cards(tmp_path / "runs", [make_card(method="alpha", fingerprint="1", composite=0.52)])
    bad = tmp_path / "runs" / "bad.json"
    make_bad(bad)
    status, out, err = _cli(capsys, "db", "push", *map(str, good), str(bad))
    assert (status, out, err) == (2, "", f"lyss: error: {bad}{where}: {problem}\n")
    assert not database.exists()


def test_cli_query_ranks_systems_not_the_oracle_and_names_what_it_holds(tmp_path, capsys, monkeypatch):
    """The reference oracle (composite 1.0) is listed after the systems without a rank, as on the leaderboard; a
    dataset or method the database does not hold is named with the closest one it holds and the list."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LYSS_DATABASE_URL", f"sqlite:///{tmp_path / 'runs.sqlite'}")
    oracle = make_card(method="reference", fingerprint="3", composite=1.0, chrf=100.0, tier="fluent")
    oracle["method"]["kind"] = "reference"
    paths = write_cards(tmp_path / "runs", [make_card(method="alpha", fingerprint="1", composite=0.52),
                                            make_card(method="bravo", fingerprint="2", composite=0.71), oracle])
    assert _cli(capsys, "db", "push", *map(str, paths))[0] == 0
    status, out, _ = _cli(capsys, "db", "query", "--dataset", "demo")
    rows = [line.split()[:4] for line in out.splitlines()[1:4]]
    assert status == 0 and rows == [["demo", "1", "bravo", "0.7100"], ["demo", "2", "alpha", "0.5200"],
                                    ["demo", "—", "reference", "(oracle)"]]
    status, _, err = _cli(capsys, "db", "query", "--dataset", "dem")
    assert status == 1 and err == (f"no run cards for dataset 'dem' in {tmp_path / 'runs.sqlite'} (did you mean "
                                   "'demo'?); it has: demo\n")
    status, _, err = _cli(capsys, "db", "query", "--dataset", "demo", "--method", "alpa")
    assert status == 1 and err.endswith("(did you mean 'alpha'?); it has: alpha, bravo, reference\n")
    assert err.startswith("no run cards for method 'alpa' in dataset 'demo' in ")
    # the dataset as a plain argument (`lyss db query demo`) is --dataset; two different ones are one error
    assert _cli(capsys, "db", "query", "demo") == _cli(capsys, "db", "query", "--dataset", "demo")
    assert _cli(capsys, "db", "query", "demo", "--dataset", "dem") == \
        (2, "", "lyss: error: DATASET: two datasets asked for: demo and --dataset dem; give one\n")


def test_cli_reads_database_url_from_params(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LYSS_DATABASE_URL", raising=False)
    (tmp_path / "params.yaml").write_text("database:\n  url: sqlite:///from_params.sqlite\n")
    paths = write_cards(tmp_path / "runs", [make_card()])
    assert _cli(capsys, "db", "push", str(paths[0]))[0] == 0
    assert sqlite3.connect(tmp_path / "from_params.sqlite").execute("SELECT COUNT(*) FROM run_cards").fetchone() \
        == (1,)


def test_postgres_password_never_printed(postgres, tmp_path, capsys, monkeypatch):
    _reset_postgres(postgres)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LYSS_DATABASE_URL", postgres.url)
    paths = write_cards(tmp_path / "runs", [make_card()])
    status, out, err = _cli(capsys, "db", "push", str(paths[0]))
    assert status == 0 and "postgresql://lyss:***@127.0.0.1" in out and PASSWORD not in out + err
    # a wrong password and a closed port fail with a clear, masked message
    for bad in (postgres.url.replace(PASSWORD, PASSWORD + "-wrong"),
                postgres.url.replace(str(postgres.port), str(_free_port()))):
        monkeypatch.setenv("LYSS_DATABASE_URL", bad)
        status, out, err = _cli(capsys, "db", "query")
        assert status == 1 and "cannot connect to postgresql://lyss:***@127.0.0.1" in err
        assert PASSWORD not in out + err


def test_report_writes_sqlite_and_the_configured_postgres_with_masked_log(postgres, tmp_path):
    from io import StringIO

    from lyss.report import store_cards

    _reset_postgres(postgres)
    paths = write_cards(tmp_path / "runs", [make_card(method="alpha"), make_card(method="bravo", fingerprint="b")])
    log = StringIO()
    store_cards(paths, tmp_path / "lyss.sqlite", postgres.url, log=log)
    assert PASSWORD not in log.getvalue() and "***" in log.getvalue()
    for url in (str(tmp_path / "lyss.sqlite"), postgres.url):
        with Store.open(url) as store:
            assert [r["method_name"] for r in store.query()] == ["alpha", "bravo"]


def test_concurrent_pushes_number_versions_without_gaps(postgres):
    """Two writers adding versions of the same run at once: the table lock keeps versions 1..n."""
    from concurrent.futures import ThreadPoolExecutor

    _reset_postgres(postgres)
    Store.open(postgres.url).close()
    cards = [make_card(method="alpha", fingerprint=f"{i:x}", composite=i / 20) for i in range(1, 11)]

    def push(chunk):
        with Store.open(postgres.url) as store:
            for card in chunk:
                store.push(card)
                time.sleep(0.001)

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(push, [cards[0::2], cards[1::2]]))
    with Store.open(postgres.url) as store:
        rows = store.query(history=True)
    assert sorted(r["version"] for r in rows) == list(range(1, 11))
    assert sum(r["is_current"] for r in rows) == 1

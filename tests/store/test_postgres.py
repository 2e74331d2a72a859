"""The shared PostgreSQL store: several processes at once, migrations once, one sync at a time,
readers never seeing half a write, and the URL's password in no message, log or repr.

A real PostgreSQL server (tests/pg_server.py), real subprocesses, the sandbox over real HTTP.
Tests that hold for both engines take `open_history` and run on each.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pandas as pd
import psycopg
import pytest
from pydantic import SecretStr

from dashboard.data.connection import Connection
from dashboard.data.store import HistoryStore, open_for
from dashboard.data.store import sql as store_sql
from dashboard.data.store.errors import StoreBusyError, StoreError, StoreSchemaError
from dashboard.data.store.location import store_url
from dashboard.data.store.pg_pool import close_pool, safe_url, scrubbed
from dashboard.data.store.postgres import PostgresEngine
from dashboard.data.store.records import plan_frames, results_frame
from sandbox import RunningSandbox
from tests.dashboard import records
from tests.store.conftest import HistoryOpener, pg_dump_rows
from tests.store.test_processes import DRIVER, REPO, TABLE_ORDER, driver_env, tables
from tests.waiting import wait_until

SCHEMA = "history_shared_c1"


@pytest.fixture
def pg(pg_url: str) -> Iterator[str]:
    yield pg_url
    close_pool(pg_url)


def pg_store(url: str, schema: str = SCHEMA, **options: float) -> HistoryStore:
    return HistoryStore.on(PostgresEngine(url, schema), **options)  # type: ignore[arg-type]


def pg_tables(url: str, schema: str = SCHEMA) -> dict[str, pd.DataFrame]:
    with psycopg.connect(url) as con:
        con.execute(f"SET search_path TO {schema}")
        out = {}
        for table, order in TABLE_ORDER.items():
            cursor = con.execute(f"SELECT * FROM {table} ORDER BY {order}")  # noqa: S608
            names = [c.name for c in cursor.description or ()]
            frame = pd.DataFrame(cursor.fetchall(), columns=names)
            out[table] = frame.drop(columns=["fetched_at"], errors="ignore")
        return out


def inconsistent_pairs(url: str, schema: str = SCHEMA) -> list[tuple[object, ...]]:
    with psycopg.connect(url) as con:
        con.execute(f"SET search_path TO {schema}")
        return con.execute(
            "SELECT f.execution_id, f.scenario_id FROM fetched_pairs f LEFT JOIN results r "
            "ON r.execution_id = f.execution_id AND r.scenario_id = f.scenario_id "
            "GROUP BY f.execution_id, f.scenario_id, f.result_count "
            "HAVING COUNT(r.result_id) <> f.result_count"
        ).fetchall()


def start_pg_sync(running: RunningSandbox, url: str) -> subprocess.Popen[str]:
    env = driver_env(running) | {"QA_TEST_STORE_URL": url}
    return subprocess.Popen(
        [
            *DRIVER,
            "sync",
            f"pg:{SCHEMA}",
            running.base_url,
            "1",
            running.settings.now.isoformat(),
            "--flush-pairs",
            "25",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
    )


def same_ids(pg: dict[str, pd.DataFrame], duck: dict[str, pd.DataFrame]) -> None:
    """The two engines' stores hold the same rows (compared by every key and count)."""
    for table, order in TABLE_ORDER.items():
        keys = [k.strip() for k in order.split(",")]
        got = pg[table][keys].astype(str).reset_index(drop=True)
        want = duck[table][keys].astype(str).reset_index(drop=True)
        pd.testing.assert_frame_equal(got, want, obj=table)


@pytest.fixture(scope="module")
def clean_duckdb(
    live_sandbox: RunningSandbox, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, pd.DataFrame]:
    """What one uninterrupted sync stores in a DuckDB file: what PostgreSQL must hold too."""
    path = tmp_path_factory.mktemp("clean") / "history.duckdb"
    process = subprocess.run(
        [
            *DRIVER,
            "sync",
            str(path),
            live_sandbox.base_url,
            "1",
            live_sandbox.settings.now.isoformat(),
        ],
        capture_output=True,
        text=True,
        env=driver_env(live_sandbox),
        cwd=REPO,
        timeout=300,
        check=False,
    )
    assert process.returncode == 0, process.stderr[-2000:]
    return tables(path)


# -- several processes ---------------------------------------------------------------------------


@pytest.mark.slow
def test_two_syncs_at_once_take_turns_and_store_what_one_would(
    live_sandbox: RunningSandbox, pg: str, clean_duckdb: dict[str, pd.DataFrame]
) -> None:
    first, second = start_pg_sync(live_sandbox, pg), start_pg_sync(live_sandbox, pg)
    outputs = [process.communicate(timeout=300) for process in (first, second)]

    assert [first.returncode, second.returncode] == [0, 0], [err[-2000:] for _, err in outputs]
    done = sorted(int(out.strip().splitlines()[-1].split()[1]) for out, _ in outputs)
    # The sync lock: one stored every pair, the other then found none left.
    assert done[0] == 0
    assert done[1] == len(clean_duckdb["fetched_pairs"])  # pairs stored
    assert inconsistent_pairs(pg) == []
    same_ids(pg_tables(pg), clean_duckdb)


@pytest.mark.slow
def test_a_sync_killed_mid_way_is_carried_on_by_the_next(
    live_sandbox: RunningSandbox, pg: str, clean_duckdb: dict[str, pd.DataFrame]
) -> None:
    process = start_pg_sync(live_sandbox, pg)
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("results") and int(line.split()[1]) >= 300:
            process.send_signal(signal.SIGKILL)
            break
    process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL
    assert inconsistent_pairs(pg) == []
    partial = len(pg_tables(pg)["fetched_pairs"])
    assert 0 < partial < len(clean_duckdb["fetched_pairs"])

    again = start_pg_sync(live_sandbox, pg)  # the killed one's sync lock went with it
    _, errors = again.communicate(timeout=300)
    assert again.returncode == 0, errors[-2000:]
    assert inconsistent_pairs(pg) == []
    same_ids(pg_tables(pg), clean_duckdb)


def test_migrations_run_once_whoever_starts_first(pg: str) -> None:
    start = threading.Barrier(6)
    errors: list[BaseException] = []

    def open_at_once() -> None:
        try:
            start.wait()  # all six at once (each thread is there: no deadline needed)
            with pg_store(pg, idle=0) as store:
                store.info()
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=open_at_once) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()  # no limit of its own: pytest-timeout ends a hang

    assert errors == []
    with psycopg.connect(pg) as con:
        versions = con.execute(f"SELECT version FROM {SCHEMA}.schema_version").fetchall()  # noqa: S608
        indexes = con.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = %s AND indexname NOT LIKE %s",
            (SCHEMA, "%_pkey"),
        ).fetchall()
    assert sorted(v for (v,) in versions) == [m.version for m in store_sql.MIGRATIONS]
    # Migration 3's indexes, once each (PostgreSQL only).
    assert sorted(name for (name,) in indexes) == sorted(
        statement.split()[2] for statement in store_sql.MIGRATIONS[2].statements
    )


def test_one_sync_at_a_time_per_store(open_history: HistoryOpener) -> None:
    holder, other = open_history(), open_history()
    with holder.sync_lock(wait=1):
        with (
            pytest.raises(StoreBusyError, match="already running a sync"),
            other.sync_lock(wait=0.3),
        ):
            pass
        holder.info()  # the store itself stays usable meanwhile
    with other.sync_lock(wait=1):
        pass


def test_another_companys_sync_is_not_held_up(pg: str) -> None:
    with pg_store(pg).sync_lock(wait=1), pg_store(pg, "history_other_c2").sync_lock(wait=0.3):
        pass


def test_readers_never_see_half_a_write(pg: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read made while a write's transaction is held open (its deletes and inserts done, not
    committed) sees the state before it; after the commit, the state after it."""
    writer, reader = pg_store(pg), pg_store(pg)
    writer.replace_plans(plan_frames([records.plan(i) for i in range(1, 41)]))
    engine = writer._engine
    assert isinstance(engine, PostgresEngine)
    begin = engine.transaction
    held, release = threading.Event(), threading.Event()

    @contextlib.contextmanager
    def held_open() -> Iterator[None]:
        with begin():
            yield  # the write's statements run here
            held.set()
            assert release.wait(timeout=60), "the test never let the write commit"

    monkeypatch.setattr(engine, "transaction", held_open)
    errors: list[BaseException] = []

    def write() -> None:  # deletes every plan, then inserts 25 others, in one transaction
        try:
            writer.replace_plans(plan_frames([records.plan(i) for i in range(101, 126)]))
        except BaseException as error:
            errors.append(error)
            held.set()

    def read() -> tuple[int, list[int]]:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:  # a read that blocks fails
            return pool.submit(lambda: (reader.info().plans, stored_plan_ids(pg))).result(30)

    thread = threading.Thread(target=write)
    thread.start()
    try:
        wait_until(held.is_set, alive=thread, what="the write held its transaction open")
        assert errors == []
        during = read()
    finally:
        release.set()
        thread.join()  # no limit of its own: pytest-timeout ends a hang
    assert errors == []
    assert during == (40, list(range(1, 41)))  # the old state whole, while the write is open
    assert read() == (25, list(range(101, 126)))  # the new state whole, once it is committed


def stored_plan_ids(url: str, schema: str = SCHEMA) -> list[int]:
    with psycopg.connect(url) as con:
        rows = con.execute(f"SELECT plan_id FROM {schema}.plans ORDER BY plan_id").fetchall()  # noqa: S608
    return [plan_id for (plan_id,) in rows]


# -- schema versions -------------------------------------------------------------------------------


def test_an_older_schema_is_upgraded_and_a_newer_one_refused(pg: str) -> None:
    with psycopg.connect(pg, autocommit=True) as con:
        con.execute(f"CREATE SCHEMA {SCHEMA}")
        con.execute(f"SET search_path TO {SCHEMA}")
        for statement in store_sql.MIGRATIONS[0].statements:
            con.execute(statement.encode())
        con.execute("INSERT INTO schema_version VALUES (1, now())")
        con.execute("INSERT INTO results (result_id, execution_id, scenario_id) VALUES (5, 9, 2)")
    with pytest.raises(StoreSchemaError, match="schema version 1"):
        pg_store(pg, read_only=True)

    with pg_store(pg) as store:
        assert store.info().schema_version == store_sql.SCHEMA_VERSION
        assert store.results([9])["result_id"].tolist() == [5]
    with psycopg.connect(pg, autocommit=True) as con:
        con.execute(f"INSERT INTO {SCHEMA}.schema_version VALUES (99, now())")  # noqa: S608
    # A newer program's shared schema is refused, never rebuilt (it holds the team's history).
    with pytest.raises(StoreSchemaError, match="newer version of the dashboard"):
        pg_store(pg).info()
    with psycopg.connect(pg) as con:
        kept = con.execute(f"SELECT COUNT(*) FROM {SCHEMA}.results").fetchone()  # noqa: S608
    assert kept == (1,)


# -- configuration and the password ----------------------------------------------------------------


def test_the_url_comes_from_the_environment_then_the_secrets() -> None:
    secrets = {"store": {"url": "postgresql://a@db/x"}}
    assert store_url(secrets=secrets, env={}) == "postgresql://a@db/x"
    assert store_url(secrets=secrets, env={"QA_DASHBOARD_STORE_URL": "postgresql://b@db/y"}) == (
        "postgresql://b@db/y"
    )
    assert store_url(secrets={}, env={"QA_DASHBOARD_STORE_URL": " "}) is None
    assert store_url(secrets=None, env={}) is None


def test_open_for_uses_the_configured_server_and_leaves_the_cache_folder_alone(
    pg: str, tmp_path: Path
) -> None:
    connection = Connection(
        base_url="https://svc.example.test/Api", token=SecretStr("sbx-secret"), company_id=7
    )
    env = {"QA_DASHBOARD_STORE_URL": pg, "QA_DASHBOARD_CACHE_DIR": str(tmp_path / "cache")}
    with open_for(connection, secrets={}, env=env) as store:
        store.add_results(
            results_frame([records.result(1, execution_id=2, scenario_id=3)]),
            pd.DataFrame({"execution_id": [2], "scenario_id": [3], "result_count": [1]}),
        )
        info = store.info()
    assert (info.engine, info.service, info.company_id, info.results) == (
        "postgresql",
        "https://svc.example.test/Api",
        7,
        1,
    )
    assert info.size_bytes
    assert not (tmp_path / "cache").exists()
    assert b"sbx-secret" not in pg_dump_rows(pg)


def test_the_password_reaches_no_message_repr_or_log(
    pg: str, caplog: pytest.LogCaptureFixture
) -> None:
    password = urlsplit(pg).password
    assert password
    store = pg_store(pg)
    shown = [repr(store), store.location, store.info().location, repr(store._engine)]
    assert all(password not in text for text in shown)
    assert safe_url(pg) in store.location

    wrong = pg.replace(f":{password}@", ":not-the-password-xyzzy@")
    unreachable = pg.replace(f":{urlsplit(pg).port}/", ":9/")
    with caplog.at_level(logging.DEBUG):
        for url, secret in ((wrong, "not-the-password-xyzzy"), (unreachable, password)):
            with pytest.raises(StoreError) as caught:
                pg_store(url)
            error = caught.value
            for text in (str(error), repr(error), error.location, error.message):
                assert secret not in text
    assert "not-the-password-xyzzy" not in caplog.text
    assert password not in caplog.text

    with pytest.raises(StoreError, match="must look like postgresql://") as bad:
        PostgresEngine("mysql://u:hunter2-secret@db/x", SCHEMA)
    assert "hunter2-secret" not in str(bad.value) + bad.value.location


MALFORMED = (
    "user:s3cret@db/qa",  # no scheme
    "host=db password=s3cret dbname=qa",  # libpq's key=value form
    "postgresql:/u:s3cret@h/db",  # one slash
    "postgresql://u:s3cret@[::1/db",  # an unclosed IPv6 bracket
    "mysql://u:s3cret@db/qa",  # another scheme
)


@pytest.mark.parametrize("url", MALFORMED)
def test_a_malformed_url_is_refused_without_its_password(
    url: str, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """A URL not of the postgresql://host/db shape cannot be split into its parts, so any part
    of it may be the password: it is refused, and none of it is shown, kept or logged."""
    connection = Connection(
        base_url="https://svc.example.test/Api", token=SecretStr("sbx-secret"), company_id=7
    )
    env = {"QA_DASHBOARD_STORE_URL": url, "QA_DASHBOARD_CACHE_DIR": str(tmp_path)}
    shown: list[str] = [safe_url(url)]
    with caplog.at_level(logging.DEBUG):
        for make in (
            lambda: PostgresEngine(url, SCHEMA),
            lambda: open_for(connection, secrets={}, env=env),
        ):
            with pytest.raises(StoreError, match="must look like postgresql://") as caught:
                make()
            error = caught.value
            shown += [str(error), repr(error), error.location, error.message]
            shown += [repr(part) for part in error.args]
    assert shown
    assert all("s3cret" not in text for text in shown), shown
    assert "s3cret" not in caplog.text
    assert scrubbed(f'could not connect: "{url}" is invalid', url).find("s3cret") == -1
    assert not list(tmp_path.iterdir())  # no DuckDB file made instead of the shared store

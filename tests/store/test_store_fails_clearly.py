"""The store fails clearly: every driver error (DuckDB's or psycopg's), on open, read or write,
is a `StoreError` naming where the store is, and a DuckDB file cut short is set aside and
rebuilt as a garbage file is. Real files, a real PostgreSQL server, the command line
run in this process as `python -m dashboard` would run (`tests.cli.in_process`)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dashboard.data.store import HistoryStore, open_store
from dashboard.data.store.errors import StoreError, StoreUnreadableError
from dashboard.data.store.records import execution_frames, results_frame
from sandbox import RunningSandbox
from tests.cli.in_process import run_cli
from tests.store.conftest import IDENTITY, HistoryOpener, files_under, lead_of
from tests.store.test_store import finished_execution, store_results, varied_results


def _filled(path: Path) -> None:
    """A real store with enough in it that its file spans many blocks."""
    with open_store(path, identity=IDENTITY) as store:
        store.add_executions(
            execution_frames([finished_execution(i, hours=i) for i in range(900, 1200)])
        )
        store_results(store, results_frame(varied_results()))


def _cut_to_half(path: Path) -> None:
    with path.open("r+b") as file:
        file.truncate(path.stat().st_size // 2)


def test_a_truncated_file_read_only_is_a_store_error_naming_the_file(store_path: Path) -> None:
    _filled(store_path)
    _cut_to_half(store_path)

    with (
        pytest.raises(StoreError) as raised,
        HistoryStore.open(store_path, read_only=True) as store,
    ):
        store.info()  # DuckDB reads a block when a query needs it: this one needs them all

    assert str(store_path) in raised.value.message
    assert raised.value.location == str(store_path)
    assert len(raised.value.message.splitlines()) == 1


def test_a_truncated_file_is_set_aside_and_rebuilt_like_a_garbage_file(store_path: Path) -> None:
    _filled(store_path)
    _cut_to_half(store_path)
    cut = store_path.read_bytes()

    with open_store(store_path, identity=IDENTITY) as store:
        assert store.info().executions == 0
        store_results(store, results_frame(varied_results()))
        assert store.info().results == 3

    aside = store_path.with_name(store_path.name + ".unreadable")
    assert aside.read_bytes() == cut
    assert aside.stat().st_mode & 0o777 == 0o600


def test_a_file_found_cut_short_in_use_is_set_aside_and_the_next_use_starts_anew(
    store_path: Path,
) -> None:
    """DuckDB reads a block only when a query needs it, so a writable open of a cut file may
    succeed and a later read find the damage: that file is set aside there and then."""
    _filled(store_path)
    _cut_to_half(store_path)
    store = open_store(store_path, idle=0)  # no identity to record: the open reads little
    try:
        with pytest.raises(StoreUnreadableError, match="set aside as"):
            store.info()
        assert store.info().executions == 0  # the next use: a new, empty store
        store_results(store, results_frame(varied_results()))
        assert store.info().results == 3
    finally:
        store.close()
    assert store_path.with_name(store_path.name + ".unreadable").exists()


def test_a_file_found_cut_short_is_left_in_place_by_an_opener_that_did_not_ask(
    store_path: Path,
) -> None:
    """`HistoryStore.open` (the gate's: a verdict must not be judged on an empty store) says
    the file cannot be read, and moves nothing."""
    _filled(store_path)
    _cut_to_half(store_path)
    with HistoryStore.open(store_path, idle=0) as store:
        with pytest.raises(StoreUnreadableError) as raised:
            store.info()
        assert "set aside" not in raised.value.message
    assert store_path.exists()
    assert not store_path.with_name(store_path.name + ".unreadable").exists()


def test_a_failing_statement_is_a_store_error_on_both_engines(
    open_history: HistoryOpener,
) -> None:
    """Whatever the driver says about a statement (here: a table that is not there), the
    caller sees the store's error, naming the store and never the password."""
    with open_history() as store, store._lease() as db:
        with pytest.raises(StoreError) as raised:
            db.rows("SELECT * FROM no_such_table")
        with pytest.raises(StoreError), db.transaction():
            db.execute("INSERT INTO no_such_table VALUES (1)")
        assert db.scalar("SELECT 1") == 1  # still usable after

    assert raised.value.location in raised.value.message
    if open_history.pg_url is not None:
        password = open_history.pg_url.split("@")[0].rsplit(":", 1)[-1]
        assert password not in raised.value.message


# -- the command line ----------------------------------------------------------------------------

Cli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


@pytest.fixture
def cli(tmp_path: Path, cache: Path, live_sandbox: RunningSandbox) -> Cli:
    workdir = tmp_path / "work"
    workdir.mkdir()
    lead = lead_of(live_sandbox)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        env = {
            "QA_DASHBOARD_CACHE_DIR": str(cache),
            "QA_DASHBOARD_BASE_URL": live_sandbox.base_url,
            "QA_DASHBOARD_TOKEN": lead.token,
            "QA_DASHBOARD_COMPANY_ID": str(lead.company_id),
        }
        return run_cli(args, env=env, cwd=workdir)  # as `python -m dashboard` in `workdir`

    return run


def test_a_truncated_store_exits_4_where_read_only_and_the_next_sync_rebuilds_it(
    cli: Cli, cache: Path
) -> None:
    made = cli("store", "sync", "--days", "2")
    assert made.returncode == 0, made.stderr
    (store_file,) = files_under(cache)
    _cut_to_half(store_file)

    info = cli("store", "info")  # read-only: it changes nothing, and says so in one sentence
    assert info.returncode == 4, info.stderr
    assert "Traceback" not in info.stderr
    assert f"The history store {store_file} cannot be" in info.stderr
    assert store_file.exists()

    again = cli("store", "sync", "--days", "2")
    assert "Traceback" not in again.stderr
    assert store_file.with_name(store_file.name + ".unreadable").exists()
    assert again.returncode == 0, again.stderr
    info = cli("store", "info")
    assert info.returncode == 0, info.stderr


def test_a_postgresql_connection_lost_mid_way_is_a_store_error_and_the_next_use_reconnects(
    pg_url: str,
) -> None:
    """The server ends the store's connection (a restart, an administrator): whether the next
    statement is a query or the start of a transaction, the caller sees the store's error, and
    the store reconnects on its next use."""
    import psycopg

    from dashboard.data.store.pg_pool import close_pool
    from dashboard.data.store.postgres import PostgresEngine

    store = HistoryStore.on(PostgresEngine(pg_url, "history_lost_c1"), identity=IDENTITY)
    try:
        for step in ("query", "transaction"):
            with store._lease() as db:
                pid = db.scalar("SELECT pg_backend_pid()")
                with psycopg.connect(pg_url, autocommit=True) as admin:
                    admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
                with pytest.raises(StoreError) as raised:
                    _use(db, step)
            assert raised.value.location in raised.value.message, step
            assert store.info().executions == 0, step  # reconnected
    finally:
        store.close()
        close_pool(pg_url)


def _use(db: Any, step: str) -> None:
    if step == "query":
        db.rows("SELECT 1")
        return
    with db.transaction():
        db.execute("SELECT 1")

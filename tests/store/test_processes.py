"""Several processes and one store file: a sync killed with SIGKILL, two syncs at once, a file
held by another process. Real subprocesses, real DuckDB files, the sandbox over real HTTP.

Each test waits on what the other process says (its progress lines), never on a sleep.
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pandas as pd
import pandas.testing as pdt
import pytest

from api_client import Execution
from dashboard.data.results_fanout import fetch_results
from dashboard.data.store import HistoryStore, lease, open_store
from dashboard.data.store.duckdb import DuckDBEngine
from dashboard.data.store.errors import StoreBusyError
from dashboard.data.store.records import execution_is_finished
from sandbox import RunningSandbox
from tests.store.conftest import REPO, ClientFactory, lead_of
from tests.store.holder import holding

DRIVER = [sys.executable, "-m", "tests.store.sync_driver"]
TABLE_ORDER = {
    "plans": "plan_id",
    "plan_scenarios": "plan_id, ordinal",
    "executions": "execution_id",
    "execution_statuses": "execution_id, status",
    "execution_result_ids": "execution_id, ordinal",
    "results": "result_id",
    "fetched_pairs": "execution_id, scenario_id",
}


def driver_env(running: RunningSandbox) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QA_DASHBOARD_")}
    env.update(QA_TEST_TOKEN=lead_of(running).token, PYTHONPATH=str(REPO))
    return env


def start_sync(
    running: RunningSandbox, path: Path, *, flush_pairs: int = 25
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            *DRIVER,
            "sync",
            str(path),
            running.base_url,
            "1",
            running.settings.now.isoformat(),
            "--flush-pairs",
            str(flush_pairs),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=driver_env(running),
        cwd=REPO,
    )


def run_sync(running: RunningSandbox, path: Path, *, kill_after: int | None = None) -> int:
    """Run a sync to its end, or SIGKILL it once it has fetched `kill_after` pairs."""
    process = start_sync(running, path)
    assert process.stdout is not None
    killed = False
    for line in process.stdout:
        parts = line.split()
        if kill_after is not None and parts[0] == "results" and int(parts[1]) >= kill_after:
            process.send_signal(signal.SIGKILL)
            killed = True
            break
    _, errors = process.communicate(timeout=120)
    if kill_after is not None:
        assert killed, f"the sync ended before {kill_after} pairs: {errors[-2000:]}"
        assert process.returncode == -signal.SIGKILL
    else:
        assert process.returncode == 0, errors[-2000:]
    return process.returncode


def tables(path: Path) -> dict[str, pd.DataFrame]:
    """Every table of the store, sorted, without the times at which rows were written."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        out = {}
        for table, order in TABLE_ORDER.items():
            frame = con.sql(f"SELECT * FROM {table} ORDER BY {order}").to_arrow_table().to_pandas()  # noqa: S608
            out[table] = frame.drop(columns=["fetched_at"], errors="ignore")
        return out
    finally:
        con.close()


def assert_consistent(path: Path) -> None:
    """Every pair marked fetched has exactly its results stored: no half-written pair."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        rows = con.execute(
            "SELECT f.execution_id, f.scenario_id, f.result_count, COUNT(r.result_id) "
            "FROM fetched_pairs f LEFT JOIN results r "
            "ON r.execution_id = f.execution_id AND r.scenario_id = f.scenario_id "
            "GROUP BY ALL HAVING COUNT(r.result_id) <> f.result_count"
        ).fetchall()
        orphans = con.execute(
            "SELECT COUNT(*) FROM results r WHERE NOT EXISTS (SELECT 1 FROM fetched_pairs f "
            "WHERE f.execution_id = r.execution_id AND f.scenario_id = r.scenario_id)"
        ).fetchone()
    finally:
        con.close()
    assert rows == []
    assert orphans == (0,)


@pytest.fixture(scope="module")
def clean(
    live_sandbox: RunningSandbox, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, pd.DataFrame]:
    """The store one uninterrupted sync makes."""
    path = tmp_path_factory.mktemp("clean") / "history.duckdb"
    run_sync(live_sandbox, path)
    return tables(path)


def assert_same_store(path: Path, clean: dict[str, pd.DataFrame]) -> None:
    got = tables(path)
    for table, expected in clean.items():
        pdt.assert_frame_equal(got[table], expected, obj=table)
    assert len(clean["results"]) > 2000
    assert len(clean["fetched_pairs"]) > 1000


@pytest.mark.slow
def test_a_sync_killed_mid_way_is_carried_on_by_the_next(
    live_sandbox: RunningSandbox, store_path: Path, clean: dict[str, pd.DataFrame]
) -> None:
    run_sync(live_sandbox, store_path, kill_after=300)
    assert_consistent(store_path)
    after_first = tables(store_path)
    assert 0 < len(after_first["fetched_pairs"]) < len(clean["fetched_pairs"])

    run_sync(live_sandbox, store_path, kill_after=200)
    assert_consistent(store_path)
    assert len(tables(store_path)["fetched_pairs"]) > len(after_first["fetched_pairs"])

    run_sync(live_sandbox, store_path)
    assert_consistent(store_path)
    assert_same_store(store_path, clean)


@pytest.mark.slow
def test_two_syncs_at_once_share_the_file_without_harm(
    live_sandbox: RunningSandbox, store_path: Path, clean: dict[str, pd.DataFrame]
) -> None:
    first, second = start_sync(live_sandbox, store_path), start_sync(live_sandbox, store_path)
    outputs = [process.communicate(timeout=300) for process in (first, second)]

    assert [first.returncode, second.returncode] == [0, 0], [err[-2000:] for _, err in outputs]
    assert all(out.strip().splitlines()[-1].startswith("done ") for out, _ in outputs)
    assert_consistent(store_path)
    assert_same_store(store_path, clean)


@pytest.fixture
def holder(store_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the store file open (and its write lock)."""
    with holding(store_path) as process:
        yield process


def release(process: subprocess.Popen[str]) -> None:
    assert process.stdin is not None
    process.stdin.write("go\n")
    process.stdin.flush()


def test_a_second_process_waits_a_bounded_time_then_says_busy(
    holder: subprocess.Popen[str], store_path: Path
) -> None:
    started = time.monotonic()
    with pytest.raises(StoreBusyError) as raised:
        HistoryStore.open(store_path, wait=0.6)
    waited = time.monotonic() - started

    assert 0.3 <= raised.value.waited <= waited < 30
    assert "in use by another process" in str(raised.value)
    with pytest.raises(StoreBusyError):
        HistoryStore.open(store_path, read_only=True, wait=0.2)


def test_a_waiting_process_gets_in_once_the_holder_lets_go(
    holder: subprocess.Popen[str], store_path: Path
) -> None:
    opened: dict[str, object] = {}

    def open_and_read() -> None:
        try:
            # The product's wait, long enough for a loaded machine to let the holder go.
            with HistoryStore.open(store_path, wait=300) as store:
                opened["results"] = store.results([4242])["result_id"].tolist()
        except BaseException as error:
            opened["error"] = error

    waiter = threading.Thread(target=open_and_read)
    waiter.start()
    release(holder)
    waiter.join()  # no limit of its own: the store's wait (300 s) ends it, pytest-timeout a hang

    assert opened == {"results": [424242]}, opened
    assert holder.wait() == 0
    assert_consistent(store_path)


def test_reads_soon_after_a_busy_open_try_once_and_get_in_once_the_holder_lets_go(
    holder: subprocess.Popen[str], store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page's run reads the store several times: the first read waits for the holder, the
    next ones (within `BUSY_REMEMBERED_S`) try once, so the run waits once, not once per read.
    A try that gets in ends that: the next open waits the whole wait again."""
    engine = DuckDBEngine(store_path)
    waits: list[float] = []
    connect = engine.connect

    def counted(*, read_only: bool, wait: float) -> None:
        waits.append(wait)
        connect(read_only=read_only, wait=wait)

    monkeypatch.setattr(engine, "connect", counted)
    # Remembered for longer than a loaded machine takes to let the holder go: the test is of
    # what a remembered busy open does, not of how long it is remembered.
    monkeypatch.setattr(lease, "BUSY_REMEMBERED_S", 600.0)
    store = HistoryStore(engine, wait=0.3, idle=0)

    for _ in range(3):
        with pytest.raises(StoreBusyError):
            store.results([4242])
    release(holder)
    assert holder.wait() == 0
    found = store.results([4242])["result_id"].tolist()
    again = store.results([4242])["result_id"].tolist()

    assert waits == [0.3, 0.0, 0.0, 0.0, 0.3]
    assert found == again == [424242]
    store.close()


def test_a_busy_store_does_not_stop_a_page_from_loading_results(
    holder: subprocess.Popen[str],
    store_path: Path,
    live_sandbox: RunningSandbox,
    client_for: ClientFactory,
) -> None:
    client, wire = client_for(live_sandbox, lead_of(live_sandbox))
    execution: Execution = next(
        e for e in client.executions(size=20).item_list if execution_is_finished(e)
    )
    scenarios = next(p.scenarios for p in client.plans(active=False) if p.id == execution.plan_id)
    busy = HistoryStore(DuckDBEngine(store_path), wait=0.3)

    outcome = fetch_results(
        client, [(execution.id, s) for s in scenarios], finished={execution.id}, store=busy
    )

    assert isinstance(outcome.store_error, StoreBusyError)
    kept = pickle.loads(pickle.dumps(outcome))  # noqa: S301 - our own bytes, as a cache keeps them
    assert isinstance(kept.store_error, StoreBusyError)
    assert kept.store_error.waited == outcome.store_error.waited
    assert sorted(outcome.results["result_id"]) == sorted(execution.test_results)
    assert wire.sent["results"] == len(scenarios)
    release(holder)
    assert holder.wait() == 0  # no limit of its own: pytest-timeout ends a hang
    with open_store(store_path) as store:
        assert store.info().results == 1  # only the holder's marker: nothing half-written

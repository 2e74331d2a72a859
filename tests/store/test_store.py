"""The history store on real DuckDB files: what goes in comes out, once, and survives restarts.

Records are built from the spec-shaped samples (tests/dashboard/records.py), turned into frames
by the same functions the sync uses, written, and read back through the store's own queries.
"""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pandas as pd
import pandas.testing as pdt
import pytest

from api_client import Execution, TestResult
from dashboard.analytics.verdicts import execution_finished
from dashboard.columns.schemas import (
    EXECUTION_HISTORY_COLUMNS,
    EXECUTION_STATUS_COLUMNS,
    PAIR_COLUMNS,
    RESULT_HISTORY_COLUMNS,
)
from dashboard.data.store import HistoryStore, StoreIdentity, open_store, pairs_frame
from dashboard.data.store import sql as store_sql
from dashboard.data.store.errors import (
    StoreError,
    StoreMissingError,
    StoreSchemaError,
)
from dashboard.data.store.records import (
    execution_frames,
    finished_execution_ids,
    plan_frames,
    results_frame,
)
from tests.dashboard import records
from tests.store.conftest import IDENTITY, HistoryOpener, files_under

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def at(hours: float) -> str:
    return (T0 + timedelta(hours=hours)).isoformat().replace("+00:00", "Z")


def finished_execution(execution_id: int, hours: float = 0, **changes: object) -> Execution:
    fields: dict[str, object] = {
        "start_date": at(hours),
        "end_date": at(hours + 0.5),
        "test_results": [execution_id * 10 + 1, execution_id * 10 + 2],
        "result_summary": {"SUCCESS": 1, "FAILURE": 1},
    }
    return records.execution(execution_id, **{**fields, **changes})


def varied_results(execution_id: int = 900) -> list[TestResult]:
    """Results that between them use every column and its empty values."""
    return [
        records.result(
            execution_id * 10 + 1,
            execution_id=execution_id,
            scenario_id=21,
            level="FAILURE",
            runtime=42,
            message="Element #login not found — ünïcödé, \"quotes\", 'single', ; and ,",
            start_date=at(0.1),
            screenshots_enabled=True,
            video_enabled=False,
        ),
        records.result(
            execution_id * 10 + 2,
            execution_id=execution_id,
            scenario_id=22,
            level="SOMETHING_NEW",
            runtime=None,
            message=None,
            start_date=None,
            environment={
                "id": 12,
                "operating_system": "IOS",
                "operating_system_clean_name": None,
                "browser_type": "SAFARI",
                "environment_type": "IPHONE 8",
                "environment_version": "16.7",
                "mobile": True,
            },
            screen_resolution=None,
            node_log_path="javascript:alert(1)",
            executor_log_path="/var/log/executor.log",
            screenshots_enabled=None,
            video_enabled=True,
            plan_id=None,
            project_id=None,
        ),
        records.result(
            execution_id * 10 + 3,
            execution_id=execution_id,
            scenario_id=23,
            environment=None,
            node_log_path=None,
            executor_log_path=None,
            start_date=at(0.2),
        ),
    ]


def pair_counts(results: pd.DataFrame) -> pd.DataFrame:
    return (
        results.groupby(["execution_id", "scenario_id"]).size().rename("result_count").reset_index()
    )


def store_results(store: HistoryStore, frame: pd.DataFrame) -> int:
    return store.add_results(frame, pair_counts(frame))


# -- round trips ---------------------------------------------------------------------------


def test_every_result_field_round_trips(store: HistoryStore) -> None:
    frame = results_frame(varied_results())
    assert list(frame.columns) == list(RESULT_HISTORY_COLUMNS)
    assert store_results(store, frame) == 3

    back = store.results([900])

    pdt.assert_frame_equal(back, frame)
    row = back.set_index("result_id").loc[9002]
    assert row["os"] == "IOS"  # the code, when there is no readable name
    assert pd.isna(row["node_log"])
    assert pd.isna(row["executor_log"])
    assert row["unlinked_logs"] == "node: javascript:alert(1); executor: /var/log/executor.log"
    assert back.set_index("result_id").loc[9001, "os"] == "Windows 10"


def test_every_execution_field_round_trips(store: HistoryStore) -> None:
    executions = [
        finished_execution(900, 0),
        finished_execution(
            901,
            1,
            plan_id=None,
            plan_name=None,
            project_id=None,
            project_name="Ünïcode ; project",
            username=None,
            runtime=None,
            test_results=[],
            result_summary={"NEWSTATUS": 2, "WARNING": 1},
        ),
    ]
    frames = execution_frames(executions)

    assert store.add_executions(frames) == 2

    pdt.assert_frame_equal(
        store.executions(),
        frames.executions.sort_values("execution_id", ascending=False, ignore_index=True),
    )
    pdt.assert_frame_equal(
        store.status_counts(),
        frames.statuses.sort_values(["start", "execution_id", "status"], ignore_index=True),
    )
    ids = store.result_ids([900, 901])
    assert ids.to_dict("list") == {"execution_id": [900, 900], "result_id": [9001, 9002]}
    assert list(store.executions().columns) == list(EXECUTION_HISTORY_COLUMNS)
    assert list(store.status_counts().columns) == list(EXECUTION_STATUS_COLUMNS)


def test_plans_are_replaced_on_each_load(store: HistoryStore) -> None:
    store.replace_plans(plan_frames([records.plan(3, scenarios=[21, 22]), records.plan(4)]))
    store.add_executions(execution_frames([finished_execution(900, plan_id=3)]))
    assert set(map(tuple, store.missing_pairs().to_numpy())) == {(900, 21), (900, 22)}

    store.replace_plans(plan_frames([records.plan(3, scenarios=[22, 23, 23])]))

    info = store.info()
    assert info.plans == 1
    # The execution's scenarios are its plan's as listed now; a repeated id is asked once.
    assert store.missing_pairs().to_dict("list") == {
        "execution_id": [900, 900],
        "scenario_id": [22, 23],
    }


# -- upserts, finished executions only -------------------------------------------------------


def test_upserts_are_idempotent_and_update_in_place(store: HistoryStore) -> None:
    frames = execution_frames([finished_execution(900), finished_execution(901, 1)])
    results = results_frame(varied_results())
    for _ in range(3):
        store.add_executions(frames)
        store_results(store, results)
    info = store.info()
    assert (info.executions, info.results, info.fetched_pairs) == (2, 3, 3)
    assert len(store.status_counts()) == 4
    assert len(store.result_ids([900, 901])) == 4
    assert info.changed_executions == 0  # the same execution again is no change

    changed = results.assign(level=results["level"].where(results["result_id"] != 9001, "SUCCESS"))
    store_results(store, changed)
    renamed = execution_frames(
        [finished_execution(900, result_summary={"SUCCESS": 2}, plan_name="Renamed")]
    )
    store.add_executions(renamed)

    assert store.results([900]).set_index("result_id").loc[9001, "level"] == "SUCCESS"
    assert store.info().results == 3
    # A finished execution is kept as first stored: the renamed one is noted, not written over
    # (test_a_finished_execution_that_comes_back_different_is_kept_and_noted).
    stored = store.executions().set_index("execution_id")
    assert stored.loc[900, "plan"] == frames.executions.set_index("execution_id").loc[900, "plan"]
    statuses = store.status_counts()
    assert statuses.loc[statuses["execution_id"] == 900, ["status", "count"]].to_dict("list") == {
        "status": ["FAILURE", "SUCCESS"],
        "count": [1, 1],
    }


def test_a_finished_execution_that_comes_back_different_is_kept_and_noted(
    store: HistoryStore, caplog: pytest.LogCaptureFixture
) -> None:
    """Finished executions never change: one the service sends again with a new summary, no
    result ids or a renamed plan is the service contradicting itself. The store keeps what it
    stored first, counts the execution once however often it comes back, and says so."""
    first = [finished_execution(900), finished_execution(901, 1), finished_execution(902, 2)]
    store.add_executions(execution_frames(first))
    before = (store.executions(), store.status_counts(), store.result_ids([900, 901, 902]))

    again = [
        finished_execution(900, result_summary={"SUCCESS": 2}),
        finished_execution(901, 1, test_results=[]),
        finished_execution(902, 2, plan_name="Renamed"),
        finished_execution(903, 3),  # new: stored as usual
    ]
    with caplog.at_level(logging.WARNING, logger="dashboard.data.store.history"):
        for _ in range(2):
            assert store.add_executions(execution_frames(again)) == 4

    now = (store.executions(), store.status_counts(), store.result_ids([900, 901, 902]))
    pdt.assert_frame_equal(
        now[0].loc[now[0]["execution_id"] != 903].reset_index(drop=True), before[0]
    )
    pdt.assert_frame_equal(
        now[1].loc[now[1]["execution_id"] != 903].reset_index(drop=True), before[1]
    )
    pdt.assert_frame_equal(now[2], before[2])
    assert 903 in set(now[0]["execution_id"])
    info = store.info()
    assert (info.executions, info.changed_executions) == (4, 3)
    meta = store.meta()
    assert meta["changed_executions"] == "3"
    assert sorted(meta["changed_execution_ids"].split(",")) == ["900", "901", "902"]
    warned = [r.getMessage() for r in caplog.records]
    assert any(
        "execution 900" in w and "summary" in w and "stored first is kept" in w for w in warned
    )
    assert any("execution 901" in w and "result ids" in w for w in warned)
    assert any("execution 902" in w and "plan" in w for w in warned)

    assert store.clear() == 0
    assert store.info().changed_executions == 0
    assert "changed_executions" not in store.meta()


def test_an_empty_plans_answer_keeps_the_stored_plans_and_says_so(
    store: HistoryStore, caplog: pytest.LogCaptureFixture
) -> None:
    store.replace_plans(plan_frames([records.plan(3, scenarios=[21, 22]), records.plan(4)]))
    store.add_executions(execution_frames([finished_execution(900, plan_id=3)]))

    with caplog.at_level(logging.WARNING, logger="dashboard.data.store.history"):
        assert store.replace_plans(plan_frames([])) == 2

    assert store.info().plans == 2
    assert set(map(tuple, store.missing_pairs().to_numpy())) == {(900, 21), (900, 22)}
    assert "empty_plans_at" in store.meta()
    assert any("answered no plans" in r.getMessage() for r in caplog.records)

    assert store.replace_plans(plan_frames([records.plan(5)])) == 1
    assert store.info().plans == 1
    assert "empty_plans_at" not in store.meta()


@pytest.mark.parametrize(
    ("summary", "end", "finished"),
    [
        ({"SUCCESS": 3}, True, True),
        ({"SUCCESS": 3, "WAITING": 1}, True, False),
        ({"SUCCESS": 3, "waiting ": 1}, True, False),
        ({"PROCESSING": 1}, True, False),
        ({"REPORTING": 1}, True, False),
        ({"TERMINATING": 1}, True, False),
        ({"SUCCESS": 3, "WAITING": 0}, True, True),
        ({"STOPPED": 2, "UNKNOWN_NEW": 1}, True, True),
        ({}, True, True),
        ({"SUCCESS": 3}, False, False),
    ],
)
def test_only_finished_executions_are_stored(
    store: HistoryStore, summary: dict[str, int], end: bool, finished: bool
) -> None:
    execution = finished_execution(900, result_summary=summary, end_date=at(1) if end else None)
    assert execution_finished(execution.end_date, execution.result_summary) is finished
    frames = execution_frames([execution])
    assert finished_execution_ids(frames.executions, frames.statuses) == (
        frozenset({900}) if finished else frozenset()
    )

    stored = store.add_executions(frames)

    assert stored == int(finished)
    assert store.info().executions == int(finished)
    assert len(store.status_counts()) == (len(summary) if finished else 0)


def test_restart_keeps_everything(open_history: HistoryOpener) -> None:
    with open_history() as first:
        first.replace_plans(plan_frames([records.plan(3)]))
        first.add_executions(execution_frames([finished_execution(900)]))
        store_results(first, results_frame(varied_results()))
        before = (first.executions(), first.results([900]), first.info())

    with open_history() as again:
        pdt.assert_frame_equal(again.executions(), before[0])
        pdt.assert_frame_equal(again.results([900]), before[1])
        info = again.info()
    assert (info.plans, info.executions, info.results) == (1, 1, 3)
    assert (info.service, info.company_id) == (IDENTITY.service, 1)


# -- schema versions -------------------------------------------------------------------------


def _write_version_one(path: Path) -> None:
    """A store as the first schema version made it, with one result in it."""
    con = duckdb.connect(str(path))
    try:
        for statement in store_sql.MIGRATIONS[0].statements:
            con.execute(statement)
        con.execute("INSERT INTO schema_version VALUES (1, TIMESTAMPTZ '2026-01-01 00:00:00+00')")
        con.execute(
            "INSERT INTO results (result_id, execution_id, scenario_id, level) "
            "VALUES (5, 900, 21, 'SUCCESS')"
        )
        con.execute(
            "INSERT INTO fetched_pairs VALUES (900, 21, 1, TIMESTAMPTZ '2026-01-01 00:00:00+00')"
        )
    finally:
        con.close()


def test_an_older_schema_is_upgraded_in_place(store_path: Path) -> None:
    _write_version_one(store_path)
    with pytest.raises(StoreSchemaError, match="schema version 1"):
        HistoryStore.open(store_path, read_only=True)

    with open_store(store_path) as store:
        info = store.info()
        kept = store.results([900])
        store_results(store, results_frame(varied_results()))

    # 3 is the PostgreSQL indexes (a version DuckDB records and skips), 4 the changed
    # executions, 5 readers kept as scrypt, 6 the known-failure ledger, 7 the worker's alerts,
    # 8 scenario names and group rules.
    assert info.schema_version == store_sql.SCHEMA_VERSION == 8
    assert kept["result_id"].tolist() == [5]
    assert kept[["screenshots", "video", "unlinked_logs"]].isna().all().all()
    assert store.info().results == 4  # the new columns take new rows


def test_a_newer_schema_is_rebuilt_not_misread(
    store_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with open_store(store_path) as store:
        store_results(store, results_frame(varied_results()))
    con = duckdb.connect(str(store_path))
    con.execute("INSERT INTO schema_version VALUES (99, now())")
    con.execute("CREATE TABLE from_the_future (x INTEGER)")
    con.close()
    with pytest.raises(StoreSchemaError, match="schema version 99"):
        HistoryStore.open(store_path, read_only=True)

    with caplog.at_level(logging.WARNING), open_store(store_path) as rebuilt:
        info = rebuilt.info()

    assert info.schema_version == store_sql.SCHEMA_VERSION
    assert info.results == 0
    assert "newer than" in caplog.text


def test_an_unreadable_file_is_set_aside_and_replaced(store_path: Path) -> None:
    store_path.write_bytes(b"not a database at all " * 500)

    with open_store(store_path) as store:
        store_results(store, results_frame(varied_results()))
        assert store.info().results == 3

    aside = store_path.with_name(store_path.name + ".unreadable")
    assert aside.read_bytes().startswith(b"not a database")
    assert aside.stat().st_mode & 0o777 == 0o600


def test_read_only_opens_change_nothing(open_history: HistoryOpener, store_path: Path) -> None:
    with pytest.raises(StoreMissingError):
        open_history(read_only=True)
    assert not store_path.exists()

    with open_history() as writer:
        store_results(writer, results_frame(varied_results()))
    with open_history(read_only=True) as reader:
        assert reader.info().results == 3
        with pytest.raises(StoreError, match="read-only"):
            reader.clear()
        assert len(reader.results([900])) == 3


# -- clear, files, secrets -------------------------------------------------------------------


def test_clear_empties_the_store_and_keeps_it_usable(store: HistoryStore) -> None:
    store.replace_plans(plan_frames([records.plan(3)]))
    store.add_executions(execution_frames([finished_execution(900)]))
    store_results(store, results_frame(varied_results()))
    store.record(last_sync=T0)

    assert store.clear() == 3

    info = store.info()
    assert (info.plans, info.executions, info.results, info.fetched_pairs) == (0, 0, 0, 0)
    assert info.last_sync is None
    assert info.company_id == 1
    assert store.stored_pairs([(900, 21)]).empty
    store_results(store, results_frame(varied_results()))
    assert store.info().results == 3


def test_files_are_readable_by_their_owner_only(store_path: Path) -> None:
    with open_store(store_path) as store, store.held():
        store_results(store, results_frame(varied_results()))
        wal = store_path.with_name(store_path.name + ".wal")
        during = {p.name: p.stat().st_mode & 0o777 for p in files_under(store_path.parent)}
    after = {p.name: p.stat().st_mode & 0o777 for p in files_under(store_path.parent)}

    assert wal.name in during, "a write while held leaves a write-ahead log to check"
    assert set(during.values()) == {0o600}
    assert set(after.values()) == {0o600}


def test_no_access_token_reaches_the_frame_or_the_file(open_history: HistoryOpener) -> None:
    results = varied_results()
    assert all(r.user_info and r.user_info.access_token for r in results)
    frame = results_frame(results)
    assert not any("access" in column or "user_info" in column for column in frame.columns)
    assert records.ACCESS_TOKEN not in frame.astype("str").to_csv()

    with open_history() as store:
        store_results(store, frame)
        store.add_executions(execution_frames([finished_execution(900)]))
        assert store.info().results == 3
    content = open_history.stored_bytes()
    assert b"901" in content  # the scan sees the stored rows
    assert records.ACCESS_TOKEN.encode() not in content
    assert b"demo-at-" not in content


# -- queries ---------------------------------------------------------------------------------


def test_windows_plans_and_projects_are_selected_in_the_database(store: HistoryStore) -> None:
    executions = [
        finished_execution(900, 0, plan_id=3, project_id=2),
        finished_execution(901, 24, plan_id=3, project_id=2),
        finished_execution(902, 48, plan_id=4, project_id=5),
    ]
    store.add_executions(execution_frames(executions))
    results = results_frame(
        [
            records.result(
                1, execution_id=900, scenario_id=21, plan_id=3, project_id=2, start_date=at(0.1)
            ),
            records.result(
                2, execution_id=901, scenario_id=21, plan_id=3, project_id=2, start_date=at(24.1)
            ),
            records.result(
                3, execution_id=901, scenario_id=22, plan_id=3, project_id=2, start_date=at(24.2)
            ),
            records.result(
                4, execution_id=902, scenario_id=21, plan_id=4, project_id=5, start_date=at(48.1)
            ),
        ]
    )
    store_results(store, results)

    assert store.executions()["execution_id"].tolist() == [902, 901, 900]  # newest first
    window = {"date_from": T0 + timedelta(hours=1), "date_to": T0 + timedelta(hours=48)}
    assert store.executions(**window)["execution_id"].tolist() == [902, 901]
    assert store.executions(date_to=T0)["execution_id"].tolist() == [900]  # bounds inclusive
    assert store.executions(**window, plan_id=3)["execution_id"].tolist() == [901]
    assert store.executions(project_id=5)["execution_id"].tolist() == [902]
    assert set(store.status_counts(plan_id=4)["execution_id"]) == {902}

    history = store.scenario_results(plan_id=3, scenario_id=21)
    assert history["result_id"].tolist() == [1, 2]
    in_window = store.scenario_results(plan_id=3, scenario_id=21, date_from=T0 + timedelta(hours=1))
    assert in_window["result_id"].tolist() == [2]
    assert store.results_in_window(project_id=2, date_from=T0 + timedelta(hours=24))[
        "result_id"
    ].tolist() == [2, 3]
    assert store.results_of_pairs([(901, 22), (902, 99)])["result_id"].tolist() == [3]

    stored = store.stored_pairs([(900, 21), (901, 22), (901, 23), (999, 1)])
    assert list(stored.columns) == list(PAIR_COLUMNS)
    assert sorted(map(tuple, stored.to_numpy().tolist())) == [(900, 21), (901, 22)]
    assert store.stored_pairs([]).empty


def test_missing_pairs_remember_pairs_without_results(store: HistoryStore) -> None:
    store.replace_plans(plan_frames([records.plan(3, scenarios=[21, 22, 23])]))
    store.add_executions(
        execution_frames(
            [finished_execution(900, 0, plan_id=3), finished_execution(901, 5, plan_id=3)]
        )
    )
    empty = results_frame([])
    store.add_results(
        empty, pd.DataFrame({"execution_id": [901], "scenario_id": [22], "result_count": [0]})
    )

    missing = store.missing_pairs()

    # Newest execution first, scenarios in the plan's order; (901, 22) had no results and is
    # remembered as fetched.
    assert list(map(tuple, missing.to_numpy().tolist())) == [
        (901, 21),
        (901, 23),
        (900, 21),
        (900, 22),
        (900, 23),
    ]
    assert store.missing_pairs(date_from=T0 + timedelta(hours=1))[
        "execution_id"
    ].unique().tolist() == [901]


def test_info_counts_and_spans(store: HistoryStore) -> None:
    store.add_executions(
        execution_frames([finished_execution(900, 0), finished_execution(901, 30)])
    )
    store_results(store, results_frame(varied_results()))
    store.record(last_sync=T0)

    info = store.info()

    assert (info.executions, info.results, info.fetched_pairs) == (2, 3, 3)
    assert info.oldest_execution == T0
    assert info.newest_execution == T0 + timedelta(hours=30)
    assert info.oldest_result == T0 + timedelta(hours=0.1)
    assert info.last_sync == T0
    assert info.size_bytes
    assert info.size_bytes > 0
    assert info.bytes_per_result == info.size_bytes / 3
    assert info.engine in ("duckdb", "postgresql")
    assert info.schema_version == 8


def test_naive_datetimes_are_refused(store: HistoryStore) -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        store.executions(date_from=datetime(2026, 1, 1))


def test_sessions_of_one_process_share_the_store_safely(store: HistoryStore) -> None:
    """Threads (a Streamlit process's sessions) writing and reading at once take turns."""
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for round_ in range(5):
                execution_id = 1000 + worker * 10 + round_
                store.add_executions(execution_frames([finished_execution(execution_id, round_)]))
                frame = results_frame(varied_results(execution_id))
                store_results(store, frame)
                assert len(store.results([execution_id])) == 3
                store.info()
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()  # no limit of its own: pytest-timeout ends a hang

    assert not errors, errors
    info = store.info()
    assert (info.executions, info.results, info.fetched_pairs) == (30, 90, 90)


def test_pairs_frame_keeps_each_pair_once_in_order() -> None:
    frame = pairs_frame([(2, 1), (1, 5), (2, 1)])
    assert frame.to_dict("list") == {"execution_id": [2, 1], "scenario_id": [1, 5]}
    assert dict(frame.dtypes.astype(str)) == PAIR_COLUMNS


def test_identity_is_recorded_without_credentials(open_history: HistoryOpener) -> None:
    identity = StoreIdentity(service="https://svc.example.test/Api", company_id=7)
    with open_history(identity=identity) as store:
        info = store.info()
    assert (info.service, info.company_id) == ("https://svc.example.test/Api", 7)


@pytest.mark.parametrize("identity", [None, StoreIdentity("demo", 1, demo=True)])
def test_threads_opening_a_new_store_file_at_once_all_open_it(
    tmp_path: Path, identity: StoreIdentity | None
) -> None:
    """Two first opens in one process (the MCP server warms its store as a first question opens
    it) share one DuckDB database: their migrations take turns, and so do their writes of the
    store's identity (two transactions writing one key at once conflict: 'Duplicate key'), and
    every open succeeds."""
    path = tmp_path / "history.duckdb"
    opened = 6
    start = threading.Barrier(opened)
    errors: list[BaseException] = []
    versions: list[int] = []

    def open_and_read() -> None:
        start.wait()
        try:
            with open_store(path, identity=identity) as store:
                versions.append(store.info().schema_version)
        except BaseException as error:  # every failure is the finding
            errors.append(error)

    threads = [threading.Thread(target=open_and_read) for _ in range(opened)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert versions == [store_sql.SCHEMA_VERSION] * opened

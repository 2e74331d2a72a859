"""The history store: finished executions and their results, fetched once and kept.

`HistoryStore` writes what a sync fetched (upserts by id, each step one transaction) and reads
back what a page needs, selected in the database (a time window, a plan, a project, given
executions or pairs), as frames with the columns and dtypes of `dashboard.columns.schemas`. Taking
turns with the database, migrations and the sync lock are `store_lease.StoreLease`'s; the SQL is
`store_sql`'s; the engine (DuckDB file or PostgreSQL schema) is behind `store_engine`.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Iterable
from datetime import UTC, datetime
from secrets import token_hex

import pandas as pd

from dashboard.analytics.verdicts import RUNNING_STATUSES
from dashboard.columns.schemas import (
    EXECUTION_HISTORY_COLUMNS,
    EXECUTION_STATUS_COLUMNS,
    PAIR_COLUMNS,
    RESULT_HISTORY_COLUMNS,
)
from dashboard.columns.shapes import empty, typed
from dashboard.data import store_sql as sql
from dashboard.data.history_frames import (
    EXECUTION_RESULT_ID_COLUMNS,
    PLAN_HISTORY_COLUMNS,
    PLAN_SCENARIO_COLUMNS,
    ExecutionFrames,
    PlanFrames,
)
from dashboard.data.store_duckdb import DuckDBEngine
from dashboard.data.store_engine import StoreEngine, with_staged
from dashboard.data.store_frames import (
    as_table,
    ids_frame,
    pairs_frame,
    parse_time,
    unique,
    upsert,
    utc,
    windowed,
)
from dashboard.data.store_lease import StoreLease
from dashboard.data.store_types import (
    DEFAULT_IDLE,
    DEFAULT_WAIT,
    FETCHED_PAIR_COLUMNS,
    INFO_COLUMNS,
    RESULT_IDS_COLUMNS,
    StoreIdentity,
    StoreInfo,
)


class HistoryStore(StoreLease):
    """One history store; share one instance per process (e.g. through `st.cache_resource`).

    Every public method is safe to call from several threads: they take turns. The database is
    opened when an operation needs it and let go `idle` seconds after the last one (at once
    with `idle=0`), or at the end of a `held()` block, so other processes can have their turn.
    """

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        read_only: bool = False,
        wait: float = DEFAULT_WAIT,
        idle: float = DEFAULT_IDLE,
        identity: StoreIdentity | None = None,
    ) -> HistoryStore:
        """The store in the DuckDB file at `path`, ready to use.

        A writable open creates the file, upgrades an older schema and rebuilds a file of a
        newer schema or one that cannot be read (set aside as `<name>.unreadable`). A read-only
        open changes nothing: `StoreMissingError` if there is no file, `StoreSchemaError` if its
        schema is not this program's. `StoreBusyError` if another process holds it longer than
        `wait` seconds.
        """
        store = cls(
            DuckDBEngine(path), read_only=read_only, wait=wait, idle=idle, identity=identity
        )
        with store._lease():
            pass
        return store

    @classmethod
    def on(
        cls,
        engine: StoreEngine,
        *,
        read_only: bool = False,
        wait: float = DEFAULT_WAIT,
        idle: float = DEFAULT_IDLE,
        identity: StoreIdentity | None = None,
    ) -> HistoryStore:
        """The store on `engine` (a `DuckDBEngine` or `PostgresEngine`), ready to use, as
        `open` makes it."""
        store = cls(engine, read_only=read_only, wait=wait, idle=idle, identity=identity)
        with store._lease():
            pass
        return store

    def __repr__(self) -> str:
        return f"HistoryStore({self._engine!r}, read_only={self._read_only})"

    # -- writing ---------------------------------------------------------------------------------

    def replace_plans(self, plans: PlanFrames) -> int:
        """Replace every stored plan and plan scenario list with `plans`; returns how many."""
        frame = unique(typed(plans.plans, PLAN_HISTORY_COLUMNS), ["plan_id"])
        scenarios = unique(typed(plans.scenarios, PLAN_SCENARIO_COLUMNS), ["plan_id", "ordinal"])
        staged_plans = as_table(frame, "plans")
        staged_scenarios = as_table(scenarios, "plan_scenarios")
        with self._write() as db:
            db.execute(sql.DELETE_PLANS)
            db.execute(sql.DELETE_PLAN_SCENARIOS)
            upsert(db, "plans", staged_plans)
            upsert(db, "plan_scenarios", staged_scenarios)
        return len(frame)

    def add_executions(self, executions: ExecutionFrames) -> int:
        """Store the finished executions among `executions` (upsert by id), with their status
        counts and result ids; running ones are left out. Returns how many were stored."""
        frame = unique(typed(executions.executions, EXECUTION_HISTORY_COLUMNS), ["execution_id"])
        statuses = typed(executions.statuses, EXECUTION_STATUS_COLUMNS)
        result_ids = typed(executions.result_ids, EXECUTION_RESULT_ID_COLUMNS)
        running = statuses.loc[
            (statuses["count"] > 0)
            & statuses["status"].fillna("").str.strip().str.upper().isin(RUNNING_STATUSES),
            "execution_id",
        ]
        finished = frame.loc[frame["end"].notna() & ~frame["execution_id"].isin(running)]
        if finished.empty:
            return 0
        keep = finished["execution_id"]
        staged_executions = as_table(finished, "executions")
        staged_statuses = as_table(
            unique(statuses.loc[statuses["execution_id"].isin(keep)], ["execution_id", "status"]),
            "execution_statuses",
        )
        staged_ids = as_table(
            unique(
                result_ids.loc[result_ids["execution_id"].isin(keep)], ["execution_id", "ordinal"]
            ),
            "execution_result_ids",
        )
        with self._write() as db:
            upsert(db, "executions", staged_executions)
            with db.staged(staged_executions[["execution_id"]]) as name:
                for table in ("execution_statuses", "execution_result_ids"):
                    db.execute(with_staged(sql.delete_children_of_staged(table), name))
            upsert(db, "execution_statuses", staged_statuses)
            upsert(db, "execution_result_ids", staged_ids)
        return len(finished)

    def add_results(self, results: pd.DataFrame, pairs: pd.DataFrame) -> int:
        """Store the results of fetched pairs and mark the pairs fetched, in one transaction.

        `results` has RESULT_HISTORY_COLUMNS; `pairs` has `execution_id`, `scenario_id` and
        `result_count` (0 remembers "no results"). Only pairs of finished executions belong
        here (the fan-out decides). Returns how many pairs were marked.
        """
        frame = unique(typed(results, RESULT_HISTORY_COLUMNS), ["result_id"])
        marked = pairs.assign(fetched_at=pd.Timestamp.now(tz=UTC)).astype({"result_count": "int64"})
        marked = unique(typed(marked, FETCHED_PAIR_COLUMNS), ["execution_id", "scenario_id"])
        if marked.empty and frame.empty:
            return 0
        staged_results = as_table(frame, "results")
        staged_pairs = as_table(marked, "fetched_pairs")
        with self._write() as db:
            upsert(db, "results", staged_results)
            upsert(db, "fetched_pairs", staged_pairs)
        return len(marked)

    def record(self, **values: str | int | datetime | None) -> None:
        """Note facts about the store (last sync, its window) in its `store_meta` table."""
        with self._write() as db:
            for key, value in values.items():
                text = value.isoformat() if isinstance(value, datetime) else value
                db.execute(sql.SET_META, {"key": key, "value": None if text is None else str(text)})

    def meta(self) -> dict[str, str]:
        """The facts noted with `record` (and the store's identity), as text by key."""
        with self._lease() as db:
            rows = db.rows(sql.GET_META)
        # The readers' salt and keys are the store's own business, never shown.
        return {
            str(k): str(v)
            for k, v in rows
            if v is not None and k != _READER_SALT and not str(k).startswith("reader:")
        }

    def knows_reader(self, reader: str) -> bool:
        """Whether `reader` (a connection's fingerprint) has been seen reading results from
        this service: only then are stored results given to it without asking the service.
        A store is per service and company, not per token, and a token may lack the authority
        to read results. The fingerprint is kept only as an HMAC under a random key of this
        store, so the store holds nothing a token can be checked against elsewhere."""
        with self._lease() as db:
            meta = dict(db.rows(sql.GET_META))
        salt = meta.get(_READER_SALT)
        return salt is not None and meta.get(_reader_key(salt, reader)) is not None

    def add_reader(self, reader: str) -> None:
        """Remember that `reader` has just read results from the service (`knows_reader`)."""
        with self._write() as db:
            meta = dict(db.rows(sql.GET_META))
            salt = meta.get(_READER_SALT)
            if salt is None:
                salt = token_hex(32)
                db.execute(sql.SET_META, {"key": _READER_SALT, "value": salt})
            db.execute(sql.SET_META, {"key": _reader_key(salt, reader), "value": "1"})

    def clear(self) -> int:
        """Empty the store (its schema and identity stay); returns how many results it held."""
        with self._write() as db:
            held = int(db.scalar(sql.COUNT_RESULTS) or 0)
            for table in sql.DATA_TABLES:
                db.execute(sql.clear_table(table))
            db.execute(sql.SET_META, {"key": "last_sync", "value": None})
        return held

    # -- reading ---------------------------------------------------------------------------------

    def executions(
        self,
        *,
        date_from: datetime | None = None,
        date_to: datetime | None = None,
        plan_id: int | None = None,
        project_id: int | None = None,
    ) -> pd.DataFrame:
        """Stored executions that started in the window (bounds inclusive), newest first
        (EXECUTION_HISTORY_COLUMNS)."""
        query, params = windowed(
            sql.executions_in_window, date_from, date_to, plan_id=plan_id, project_id=project_id
        )
        with self._lease() as db:
            return db.frame(query, EXECUTION_HISTORY_COLUMNS, params)

    def status_counts(
        self,
        *,
        date_from: datetime | None = None,
        date_to: datetime | None = None,
        plan_id: int | None = None,
        project_id: int | None = None,
    ) -> pd.DataFrame:
        """The status counts of the executions `executions()` selects (EXECUTION_STATUS_COLUMNS)."""
        query, params = windowed(
            sql.statuses_in_window, date_from, date_to, plan_id=plan_id, project_id=project_id
        )
        with self._lease() as db:
            return db.frame(query, EXECUTION_STATUS_COLUMNS, params)

    def result_ids(self, execution_ids: Iterable[int]) -> pd.DataFrame:
        """The `test_results` ids of stored executions (execution_id, result_id), in order."""
        ids = ids_frame(execution_ids)
        with self._lease() as db, db.staged(ids) as name:
            return db.frame(
                with_staged(sql.RESULT_IDS_OF_STAGED_EXECUTIONS, name), RESULT_IDS_COLUMNS
            )

    def results(self, execution_ids: Iterable[int]) -> pd.DataFrame:
        """Every stored result of the given executions (RESULT_HISTORY_COLUMNS)."""
        ids = ids_frame(execution_ids)
        with self._lease() as db, db.staged(ids) as name:
            return db.frame(
                with_staged(sql.RESULTS_OF_STAGED_EXECUTIONS, name), RESULT_HISTORY_COLUMNS
            )

    def results_of_pairs(self, pairs: Iterable[tuple[int, int]]) -> pd.DataFrame:
        """The stored results of the given (execution, scenario) pairs (RESULT_HISTORY_COLUMNS)."""
        wanted = pairs_frame(pairs)
        with self._lease() as db, db.staged(wanted) as name:
            return db.frame(with_staged(sql.RESULTS_OF_STAGED_PAIRS, name), RESULT_HISTORY_COLUMNS)

    def stored_pairs(self, pairs: Iterable[tuple[int, int]]) -> pd.DataFrame:
        """Which of the given (execution, scenario) pairs are stored (PAIR_COLUMNS): their
        results, or the fact that they have none, need no request."""
        wanted = pairs_frame(pairs)
        if wanted.empty:
            return empty(PAIR_COLUMNS)
        with self._lease() as db, db.staged(wanted) as name:
            return db.frame(with_staged(sql.STORED_OF_STAGED_PAIRS, name), PAIR_COLUMNS)

    def missing_pairs(
        self, *, date_from: datetime | None = None, date_to: datetime | None = None
    ) -> pd.DataFrame:
        """Pairs of stored executions in the window whose results are not stored yet, newest
        execution first (PAIR_COLUMNS): what a sync fetches."""
        query, params = windowed(sql.missing_pairs, date_from, date_to)
        with self._lease() as db:
            return db.frame(query, PAIR_COLUMNS, params)

    def results_in_window(
        self,
        *,
        date_from: datetime | None = None,
        date_to: datetime | None = None,
        plan_id: int | None = None,
        project_id: int | None = None,
    ) -> pd.DataFrame:
        """Stored results that started in the window, optionally of one plan or project
        (RESULT_HISTORY_COLUMNS): the input of cross-run analytics."""
        query, params = windowed(
            sql.results_in_window, date_from, date_to, plan_id=plan_id, project_id=project_id
        )
        with self._lease() as db:
            return db.frame(query, RESULT_HISTORY_COLUMNS, params)

    def scenario_results(
        self,
        *,
        plan_id: int,
        scenario_id: int,
        date_from: datetime | None = None,
        date_to: datetime | None = None,
    ) -> pd.DataFrame:
        """The history of one scenario of one plan: its stored results that started in the
        window (RESULT_HISTORY_COLUMNS)."""
        query, params = windowed(sql.scenario_results, date_from, date_to)
        params.update(plan_id=int(plan_id), scenario_id=int(scenario_id))
        with self._lease() as db:
            return db.frame(query, RESULT_HISTORY_COLUMNS, params)

    def info(self) -> StoreInfo:
        """Counts, size, time span and last sync of what the store holds."""
        with self._lease() as db:
            counts = db.frame(sql.INFO, INFO_COLUMNS).iloc[0].tolist()
            meta = dict(db.rows(sql.GET_META))
            version = int(db.scalar(sql.CURRENT_VERSION) or 0)
            size = db.size_bytes()
        company = meta.get("company_id")
        return StoreInfo(
            location=self.location,
            engine=self._engine.kind,
            schema_version=version,
            size_bytes=size,
            service=meta.get("service"),
            company_id=int(company) if company and company.isdigit() else None,
            plans=int(counts[0]),
            executions=int(counts[1]),
            results=int(counts[2]),
            fetched_pairs=int(counts[3]),
            oldest_execution=utc(counts[4]),
            newest_execution=utc(counts[5]),
            oldest_result=utc(counts[6]),
            newest_result=utc(counts[7]),
            last_sync=parse_time(meta.get("last_sync")),
        )


_READER_SALT = "reader_salt"


def _reader_key(salt: str, reader: str) -> str:
    return "reader:" + hmac.new(salt.encode(), reader.encode(), hashlib.sha256).hexdigest()

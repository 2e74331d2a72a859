"""The history store: finished executions and their results, fetched once and kept.

`HistoryStore` writes what a sync fetched (`store.writing`, each step one transaction) and reads
back what a page needs, selected in the database (a time window, a plan, a project, given
executions or pairs), as frames with the columns and dtypes of `dashboard.columns.schemas`. Taking
turns with the database, migrations and the sync lock are `store.lease.StoreLease`'s; the SQL is
`store.sql`'s; the engine (DuckDB file or PostgreSQL schema) is behind `store.engine`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Unpack

import pandas as pd

from dashboard.analytics.verdicts import FAILING_STATUSES
from dashboard.columns.marks import FAILED_RESULT_COLUMNS
from dashboard.columns.schemas import (
    EXECUTION_HISTORY_COLUMNS,
    EXECUTION_STATUS_COLUMNS,
    PAIR_COLUMNS,
    RESULT_HISTORY_COLUMNS,
)
from dashboard.columns.shapes import empty
from dashboard.data.store import readers, sql, sql_read
from dashboard.data.store.alerts import AlertStore
from dashboard.data.store.duckdb import DuckDBEngine
from dashboard.data.store.engine import StoreEngine, with_staged
from dashboard.data.store.frames import (
    Window,
    ids_frame,
    pairs_frame,
    parse_time,
    utc,
    windowed,
)
from dashboard.data.store.group_rules import GroupRuleStore
from dashboard.data.store.lease import LeaseOptions
from dashboard.data.store.ledger import LedgerStore
from dashboard.data.store.scenario_names import ScenarioNameStore
from dashboard.data.store.types import (
    INFO_COLUMNS,
    RESULT_IDS_COLUMNS,
    StoreInfo,
)
from dashboard.data.store.writing import HistoryWriter


class HistoryStore(HistoryWriter, LedgerStore, AlertStore, ScenarioNameStore, GroupRuleStore):
    """One history store; share one instance per process (e.g. through `st.cache_resource`).

    Every public method is safe to call from several threads: they take turns. The database is
    opened when an operation needs it and let go `idle` seconds after the last one (at once
    with `idle=0`), or at the end of a `held()` block, so other processes can have their turn.
    Writes are `store.writing.HistoryWriter`'s, the known-failure ledger `store.ledger`'s, what
    the worker announced `store.alerts`', scenario names `store.scenario_names`' and rules for
    failure groups `store.group_rules`'; this adds what a page reads.
    """

    @classmethod
    def open(cls, path: str | os.PathLike[str], **options: Unpack[LeaseOptions]) -> HistoryStore:
        """The store in the DuckDB file at `path`, ready to use (options as `StoreLease`'s).

        A writable open creates the file, upgrades an older schema and rebuilds a file of a
        newer schema or one that cannot be read (set aside as `<name>.unreadable`). A read-only
        open changes nothing: `StoreMissingError` if there is no file, `StoreSchemaError` if its
        schema is not this program's. `StoreBusyError` if another process holds it longer than
        `wait` seconds.
        """
        return cls.on(DuckDBEngine(path), **options)

    @classmethod
    def on(cls, engine: StoreEngine, **options: Unpack[LeaseOptions]) -> HistoryStore:
        """The store on `engine` (a `DuckDBEngine` or `PostgresEngine`), ready to use, as
        `open` makes it."""
        store = cls(engine, **options)
        with store._lease():
            pass
        return store

    def __repr__(self) -> str:
        return f"HistoryStore({self._engine!r}, read_only={self._read_only})"

    # -- what it says about itself -----------------------------------------------------------------

    def meta(self) -> dict[str, str]:
        """The facts noted with `record` (and the store's identity), and what it noticed of the
        service (`store.types.EMPTY_PLANS_AT`, `CHANGED_EXECUTIONS`, `CHANGED_EXECUTION_IDS`),
        as text by key. Readers and their salt are the store's own business, never shown."""
        with self._lease() as db:
            rows = db.rows(sql.GET_META)
        return {
            str(k): str(v)
            for k, v in rows
            if v is not None and not str(k).startswith(readers.HIDDEN_PREFIX)
        }

    def knows_reader(self, reader: str) -> bool:
        """Whether `reader` (a connection's fingerprint) has been seen reading results from
        this service: only then are stored results given to it without asking the service.
        Readers are kept as a slow hash of the fingerprint (`store.readers`)."""
        with self._lease() as db:
            meta = dict(db.rows(sql.GET_META))
        salt = meta.get(readers.SALT)
        return salt is not None and meta.get(readers.entry(salt, reader)) is not None

    # -- reading ---------------------------------------------------------------------------------

    def executions(self, **window: Unpack[Window]) -> pd.DataFrame:
        """Stored executions that started in the window, newest first
        (EXECUTION_HISTORY_COLUMNS)."""
        return self._in_window(sql.executions_in_window, EXECUTION_HISTORY_COLUMNS, window)

    def status_counts(self, **window: Unpack[Window]) -> pd.DataFrame:
        """The status counts of the executions `executions()` selects (EXECUTION_STATUS_COLUMNS)."""
        return self._in_window(sql.statuses_in_window, EXECUTION_STATUS_COLUMNS, window)

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
        return self._in_window(
            sql.missing_pairs, PAIR_COLUMNS, {"date_from": date_from, "date_to": date_to}
        )

    def results_in_window(self, **window: Unpack[Window]) -> pd.DataFrame:
        """Stored results that started in the window, optionally of one plan or project
        (RESULT_HISTORY_COLUMNS): the input of cross-run analytics."""
        return self._in_window(sql.results_in_window, RESULT_HISTORY_COLUMNS, window)

    def failed_results(self, **window: Unpack[Window]) -> pd.DataFrame:
        """The stored failed results (FAILURE, ERROR) that started in the window, optionally of
        one plan or project (`FAILED_RESULT_COLUMNS`): what marks are applied to when a page
        counts known failures per execution without reading every result."""

        def build(filters: sql.Filters) -> str:
            return sql_read.failed_results_in_window(filters, FAILING_STATUSES)

        return self._in_window(build, FAILED_RESULT_COLUMNS, window)

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
        window: Window = {"date_from": date_from, "date_to": date_to, "plan_id": int(plan_id)}
        return self._in_window(
            sql.scenario_results, RESULT_HISTORY_COLUMNS, window, scenario_id=int(scenario_id)
        )

    def _in_window(
        self,
        build: Callable[[sql.Filters], str],
        schema: Mapping[str, str],
        window: Window,
        **more: int,
    ) -> pd.DataFrame:
        """A windowed read (`Window`: a filter left out or None is not applied; a name that is
        not a filter is refused); `more` are the query's other parameters."""
        query, params = windowed(build, **window)
        with self._lease() as db:
            return db.frame(query, schema, params | more)

    def info(self) -> StoreInfo:
        """Counts, size, time span and last sync of what the store holds."""
        with self._lease() as db:
            counts = db.frame(sql.INFO, INFO_COLUMNS).iloc[0].tolist()
            meta = dict(db.rows(sql.GET_META))
            version = int(db.scalar(sql.CURRENT_VERSION) or 0)
            size = db.size_bytes()
        marks, open_marks = self.mark_counts()
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
            changed_executions=int(counts[8]),
            marks=marks,
            open_marks=open_marks,
        )

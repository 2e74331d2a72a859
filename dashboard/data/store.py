"""The history store: finished executions and their results, fetched once and kept locally.

Finished executions and their results never change, so the dashboard keeps them in an embedded
analytical database (DuckDB, one file per service and company; see `store_location`) instead of
asking the service again at every restart, cache expiry or viewer. What is kept:

- plans, replaced at each sync (they name an execution's plan and list its scenarios);
- finished executions (upsert by id), with their status counts and result ids; a running one
  is never stored, so nothing stored ever goes stale;
- the results of finished executions (upsert by result id), and each (execution, scenario)
  pair whose results were fetched, so "this pair has no results" is remembered too.

Safe to interrupt and to run twice: every write is an upsert by id inside one transaction, so a
killed sync leaves the store as it was after its last committed step. The schema has a version
and migrations; a file written by a newer program is rebuilt rather than misread. One writer at
a time: the sessions of one process share one `HistoryStore` whose lock serialises every use,
and the database is held only while an operation runs, so a second process (a cron sync beside
the dashboard) waits for it, within a bounded wait, and never opens around the lock.

Queries select in the database what a page needs and return frames with the columns and dtypes
of `dashboard.data.schemas`. All SQL is in `store_sql`; the engine (`store_duckdb`) is behind
the small `store_engine.StoreEngine` interface, so the PostgreSQL backend of issue #16 plugs in
without changing this module. No Streamlit here.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import hmac
import logging
import os
import threading
import weakref
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from secrets import token_hex
from typing import Any

import pandas as pd

from dashboard.analytics.verdicts import RUNNING_STATUSES
from dashboard.data import store_sql as sql
from dashboard.data.connection import Connection
from dashboard.data.history_frames import (
    EXECUTION_RESULT_ID_COLUMNS,
    PLAN_HISTORY_COLUMNS,
    PLAN_SCENARIO_COLUMNS,
    ExecutionFrames,
    PlanFrames,
)
from dashboard.data.schemas import (
    EXECUTION_HISTORY_COLUMNS,
    EXECUTION_STATUS_COLUMNS,
    PAIR_COLUMNS,
    RESULT_HISTORY_COLUMNS,
)
from dashboard.data.store_duckdb import DuckDBEngine
from dashboard.data.store_engine import StoreEngine, empty_frame, typed_frame, with_staged
from dashboard.data.store_errors import (
    StoreBusyError,
    StoreError,
    StoreMissingError,
    StoreSchemaError,
)
from dashboard.data.store_location import private_folder, service_address, store_path

_LOG = logging.getLogger(__name__)

DEFAULT_WAIT = 20.0
"""Seconds to wait for another process to let go of the store before `StoreBusyError`. A sync
holds it only for one step at a time (a second or two at most), so this is generous."""

DEFAULT_IDLE = 1.0
"""Seconds the database stays open after an operation. A page's several queries then share one
open (a fresh DuckDB connection costs tens of milliseconds), and another process waits at most
about this long plus one operation."""

RESULT_IDS_COLUMNS: dict[str, str] = {"execution_id": "int64", "result_id": "int64"}
_EXECUTION_ID_COLUMNS: dict[str, str] = {"execution_id": "int64"}
_INFO_COLUMNS: dict[str, str] = {
    "plans": "int64",
    "executions": "int64",
    "results": "int64",
    "fetched_pairs": "int64",
    "oldest_execution": "datetime64[us, UTC]",
    "newest_execution": "datetime64[us, UTC]",
    "oldest_result": "datetime64[us, UTC]",
    "newest_result": "datetime64[us, UTC]",
}
_FETCHED_PAIR_COLUMNS: dict[str, str] = {
    "execution_id": "int64",
    "scenario_id": "int64",
    "result_count": "int64",
    "fetched_at": "datetime64[us, UTC]",
}


@dataclass(frozen=True)
class StoreIdentity:
    """Which service and company a store holds (recorded in it, shown by `info`). The address
    carries no user name, password or query (`store_location.service_address`)."""

    service: str
    company_id: int
    demo: bool = False


@dataclass(frozen=True)
class StoreInfo:
    """What a store holds, for `python -m dashboard store info` and the page that offers Clear."""

    location: str
    engine: str
    schema_version: int
    size_bytes: int | None
    service: str | None
    company_id: int | None
    plans: int
    executions: int
    results: int
    fetched_pairs: int
    oldest_execution: datetime | None
    newest_execution: datetime | None
    oldest_result: datetime | None
    newest_result: datetime | None
    last_sync: datetime | None

    @property
    def bytes_per_result(self) -> float | None:
        return self.size_bytes / self.results if self.size_bytes and self.results else None


class HistoryStore:
    """One history store; share one instance per process (e.g. through `st.cache_resource`).

    Every public method is safe to call from several threads: they take turns. The database is
    opened when an operation needs it and let go `idle` seconds after the last one (at once
    with `idle=0`), or at the end of a `held()` block, so other processes can have their turn.
    """

    def __init__(
        self,
        engine: StoreEngine,
        *,
        read_only: bool = False,
        wait: float = DEFAULT_WAIT,
        idle: float = DEFAULT_IDLE,
        identity: StoreIdentity | None = None,
    ) -> None:
        self._engine = engine
        self._read_only = read_only
        self._wait = wait
        self._idle = idle
        self._identity = identity
        self._lock = threading.RLock()
        self._depth = 0
        self._holds = 0
        self._prepared = False
        self._generation = 0  # bumped by every use, so a stale idle timer closes nothing
        self._timer: threading.Timer | None = None
        _OPEN_STORES.add(self)

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

    def __repr__(self) -> str:
        return f"HistoryStore({self._engine!r}, read_only={self._read_only})"

    @property
    def location(self) -> str:
        return self._engine.location

    @property
    def read_only(self) -> bool:
        return self._read_only

    def close(self) -> None:
        """Let go of the database now (the store stays usable: the next operation reopens)."""
        with self._lock:
            self._generation += 1
            self._cancel_timer()
            self._engine.close()

    def __enter__(self) -> HistoryStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Keep the database open across several operations (one open instead of many)."""
        with self._lock:
            self._holds += 1
            try:
                with self._lease():
                    yield
            finally:
                self._holds -= 1
                if self._depth == 0 and self._holds == 0:
                    self._release()

    # -- writing ---------------------------------------------------------------------------------

    def replace_plans(self, plans: PlanFrames) -> int:
        """Replace every stored plan and plan scenario list with `plans`; returns how many."""
        frame = _unique(typed_frame(plans.plans, PLAN_HISTORY_COLUMNS), ["plan_id"])
        scenarios = _unique(
            typed_frame(plans.scenarios, PLAN_SCENARIO_COLUMNS), ["plan_id", "ordinal"]
        )
        staged_plans = _as_table(frame, "plans")
        staged_scenarios = _as_table(scenarios, "plan_scenarios")
        with self._write() as db:
            db.execute(sql.DELETE_PLANS)
            db.execute(sql.DELETE_PLAN_SCENARIOS)
            _upsert(db, "plans", staged_plans)
            _upsert(db, "plan_scenarios", staged_scenarios)
        return len(frame)

    def add_executions(self, executions: ExecutionFrames) -> int:
        """Store the finished executions among `executions` (upsert by id), with their status
        counts and result ids; running ones are left out. Returns how many were stored."""
        frame = _unique(
            typed_frame(executions.executions, EXECUTION_HISTORY_COLUMNS), ["execution_id"]
        )
        statuses = typed_frame(executions.statuses, EXECUTION_STATUS_COLUMNS)
        result_ids = typed_frame(executions.result_ids, EXECUTION_RESULT_ID_COLUMNS)
        running = statuses.loc[
            (statuses["count"] > 0)
            & statuses["status"].fillna("").str.strip().str.upper().isin(RUNNING_STATUSES),
            "execution_id",
        ]
        finished = frame.loc[frame["end"].notna() & ~frame["execution_id"].isin(running)]
        if finished.empty:
            return 0
        keep = finished["execution_id"]
        staged_executions = _as_table(finished, "executions")
        staged_statuses = _as_table(
            _unique(statuses.loc[statuses["execution_id"].isin(keep)], ["execution_id", "status"]),
            "execution_statuses",
        )
        staged_ids = _as_table(
            _unique(
                result_ids.loc[result_ids["execution_id"].isin(keep)], ["execution_id", "ordinal"]
            ),
            "execution_result_ids",
        )
        with self._write() as db:
            _upsert(db, "executions", staged_executions)
            with db.staged(staged_executions[["execution_id"]]) as name:
                for table in ("execution_statuses", "execution_result_ids"):
                    db.execute(with_staged(sql.delete_children_of_staged(table), name))
            _upsert(db, "execution_statuses", staged_statuses)
            _upsert(db, "execution_result_ids", staged_ids)
        return len(finished)

    def add_results(self, results: pd.DataFrame, pairs: pd.DataFrame) -> int:
        """Store the results of fetched pairs and mark the pairs fetched, in one transaction.

        `results` has RESULT_HISTORY_COLUMNS; `pairs` has `execution_id`, `scenario_id` and
        `result_count` (0 remembers "no results"). Only pairs of finished executions belong
        here (the fan-out decides). Returns how many pairs were marked.
        """
        frame = _unique(typed_frame(results, RESULT_HISTORY_COLUMNS), ["result_id"])
        marked = pairs.assign(fetched_at=pd.Timestamp.now(tz=UTC)).astype({"result_count": "int64"})
        marked = _unique(
            typed_frame(marked, _FETCHED_PAIR_COLUMNS), ["execution_id", "scenario_id"]
        )
        if marked.empty and frame.empty:
            return 0
        staged_results = _as_table(frame, "results")
        staged_pairs = _as_table(marked, "fetched_pairs")
        with self._write() as db:
            _upsert(db, "results", staged_results)
            _upsert(db, "fetched_pairs", staged_pairs)
        return len(marked)

    def record(self, **values: str | int | datetime | None) -> None:
        """Note facts about the store (last sync, its window) in its `store_meta` table."""
        with self._write() as db:
            for key, value in values.items():
                text = value.isoformat() if isinstance(value, datetime) else value
                db.execute(sql.SET_META, {"key": key, "value": None if text is None else str(text)})

    def knows_reader(self, reader: str) -> bool:
        """Whether `reader` (a connection's fingerprint) has been seen reading results from
        this service: only then are stored results given to it without asking the service.
        A store is per service and company, not per token, and a token may lack the authority
        to read results. The fingerprint is kept only as an HMAC under a random key of this
        store, so the file holds nothing a token can be checked against elsewhere."""
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
        query, params = _windowed(
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
        query, params = _windowed(
            sql.statuses_in_window, date_from, date_to, plan_id=plan_id, project_id=project_id
        )
        with self._lease() as db:
            return db.frame(query, EXECUTION_STATUS_COLUMNS, params)

    def result_ids(self, execution_ids: Iterable[int]) -> pd.DataFrame:
        """The `test_results` ids of stored executions (execution_id, result_id), in order."""
        ids = _ids_frame(execution_ids)
        with self._lease() as db, db.staged(ids) as name:
            return db.frame(
                with_staged(sql.RESULT_IDS_OF_STAGED_EXECUTIONS, name), RESULT_IDS_COLUMNS
            )

    def results(self, execution_ids: Iterable[int]) -> pd.DataFrame:
        """Every stored result of the given executions (RESULT_HISTORY_COLUMNS)."""
        ids = _ids_frame(execution_ids)
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
            return empty_frame(PAIR_COLUMNS)
        with self._lease() as db, db.staged(wanted) as name:
            return db.frame(with_staged(sql.STORED_OF_STAGED_PAIRS, name), PAIR_COLUMNS)

    def missing_pairs(
        self, *, date_from: datetime | None = None, date_to: datetime | None = None
    ) -> pd.DataFrame:
        """Pairs of stored executions in the window whose results are not stored yet, newest
        execution first (PAIR_COLUMNS): what a sync fetches."""
        query, params = _windowed(sql.missing_pairs, date_from, date_to)
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
        query, params = _windowed(
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
        query, params = _windowed(sql.scenario_results, date_from, date_to)
        params.update(plan_id=int(plan_id), scenario_id=int(scenario_id))
        with self._lease() as db:
            return db.frame(query, RESULT_HISTORY_COLUMNS, params)

    def info(self) -> StoreInfo:
        """Counts, size, time span and last sync of what the store holds."""
        with self._lease() as db:
            counts = db.frame(sql.INFO, _INFO_COLUMNS).iloc[0].tolist()
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
            oldest_execution=_utc(counts[4]),
            newest_execution=_utc(counts[5]),
            oldest_result=_utc(counts[6]),
            newest_result=_utc(counts[7]),
            last_sync=_parse_time(meta.get("last_sync")),
        )

    # -- the database: one user at a time, schema brought up to date on first use ---------------

    @contextlib.contextmanager
    def _lease(self) -> Iterator[StoreEngine]:
        with self._lock:
            self._generation += 1
            self._cancel_timer()
            if self._depth == 0 and not self._engine.is_open:
                self._engine.connect(read_only=self._read_only, wait=self._wait)
                try:
                    self._prepare()
                except BaseException:
                    self._engine.close()
                    raise
            self._depth += 1
            try:
                yield self._engine
            finally:
                self._depth -= 1
                if self._depth == 0 and self._holds == 0:
                    self._release()

    def _release(self) -> None:
        """Close now, or after `idle` seconds unless the store is used again meanwhile."""
        if self._idle <= 0:
            self._engine.close()
            return
        self._cancel_timer()
        timer = threading.Timer(self._idle, self._close_if_idle, args=(self._generation,))
        timer.daemon = True
        self._timer = timer
        timer.start()

    def _close_if_idle(self, generation: int) -> None:
        with self._lock:
            if generation == self._generation and self._depth == 0 and self._holds == 0:
                self._timer = None
                self._engine.close()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    @contextlib.contextmanager
    def _write(self) -> Iterator[StoreEngine]:
        if self._read_only:
            raise StoreError("This history store was opened read-only.", location=self.location)
        with self._lease() as db, db.transaction():
            yield db

    def _prepare(self) -> None:
        """Bring the schema to this program's version (every open: another process may have
        rebuilt or upgraded the file since)."""
        db = self._engine
        version = self._version()
        if self._read_only:
            if version != sql.SCHEMA_VERSION:
                raise StoreSchemaError(
                    f"The history store {self.location} has schema version {version}; this "
                    f"program reads version {sql.SCHEMA_VERSION}. A sync upgrades or rebuilds it.",
                    location=self.location,
                )
            return
        if version > sql.SCHEMA_VERSION:
            _LOG.warning(
                "history store %s has schema version %d, newer than %d: rebuilding it",
                self.location,
                version,
                sql.SCHEMA_VERSION,
            )
            db.destroy()
            db.connect(read_only=False, wait=self._wait)
            version = 0
        for migration in sql.MIGRATIONS:
            if migration.version > version:
                with db.transaction():
                    for statement in migration.statements:
                        db.execute(statement)
                    db.execute(
                        sql.RECORD_VERSION,
                        {"version": migration.version, "applied_at": datetime.now(UTC)},
                    )
        if self._identity is not None and not self._prepared:
            with db.transaction():
                for key, value in (
                    ("service", self._identity.service),
                    ("company_id", str(self._identity.company_id)),
                    ("demo", "true" if self._identity.demo else "false"),
                ):
                    db.execute(sql.SET_META, {"key": key, "value": value})
        self._prepared = True

    def _version(self) -> int:
        db = self._engine
        if not db.scalar(sql.TABLE_EXISTS[db.kind], {"table_name": "schema_version"}):
            return 0
        return int(db.scalar(sql.CURRENT_VERSION) or 0)


_OPEN_STORES: weakref.WeakSet[HistoryStore] = weakref.WeakSet()


_READER_SALT = "reader_salt"


def _reader_key(salt: str, reader: str) -> str:
    return "reader:" + hmac.new(salt.encode(), reader.encode(), hashlib.sha256).hexdigest()


@atexit.register
def _close_open_stores() -> None:
    """A store still open at exit (an idle timer pending) is closed cleanly: its write-ahead log
    is checkpointed and the file let go."""
    for store in list(_OPEN_STORES):
        with contextlib.suppress(Exception):
            store.close()


def open_store(
    path: str | os.PathLike[str],
    *,
    identity: StoreIdentity | None = None,
    wait: float = DEFAULT_WAIT,
    idle: float = DEFAULT_IDLE,
) -> HistoryStore:
    """A writable store at `path`; a file that cannot be read at all (not a DuckDB file, cut
    short) is set aside as `<name>.unreadable` and a new one made: the store is a cache of what
    the service holds, and a sync fills it again."""
    try:
        return HistoryStore.open(path, identity=identity, wait=wait, idle=idle)
    except (StoreBusyError, StoreMissingError, StoreSchemaError):
        raise
    except StoreError as error:
        engine = DuckDBEngine(path)
        if not engine.exists:
            raise
        aside = engine.set_aside()
        _LOG.warning("history store %s could not be read (%s); set aside as %s", path, error, aside)
        return HistoryStore.open(path, identity=identity, wait=wait, idle=idle)


def identity_of(connection: Connection) -> StoreIdentity:
    """What a connection's store records about its service: the address (no credentials) and
    the company; the demo is recorded as "demo", its loopback port changing at every start."""
    service = "demo" if connection.is_demo else service_address(connection.base_url)
    return StoreIdentity(service=service, company_id=connection.company_id, demo=connection.is_demo)


def open_for(
    connection: Connection,
    *,
    secrets: Mapping[str, Any] | None,
    env: Mapping[str, str],
    wait: float = DEFAULT_WAIT,
    idle: float = DEFAULT_IDLE,
) -> HistoryStore:
    """The writable store of `connection`'s service and company, in the configured cache folder
    (`store_location`), the folder made owner-only if it is new. Raises `StoreError` (and
    `StoreBusyError` after `wait` seconds) when it cannot be used."""
    path = store_path(connection, secrets=secrets, env=env)
    try:
        private_folder(path.parent)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise StoreError(
            f"The history store folder {path.parent} cannot be used ({reason}).",
            location=str(path.parent),
        ) from None
    return open_store(path, identity=identity_of(connection), wait=wait, idle=idle)


def pairs_frame(pairs: Iterable[tuple[int, int]]) -> pd.DataFrame:
    """(execution, scenario) pairs as a PAIR_COLUMNS frame, each pair once, in order."""
    unique = list(dict.fromkeys((int(e), int(s)) for e, s in pairs))
    return typed_frame(
        pd.DataFrame(
            {"execution_id": [e for e, _ in unique], "scenario_id": [s for _, s in unique]}
        ),
        PAIR_COLUMNS,
    )


def _ids_frame(execution_ids: Iterable[int]) -> pd.DataFrame:
    unique = list(dict.fromkeys(int(e) for e in execution_ids))
    return typed_frame(pd.DataFrame({"execution_id": unique}), _EXECUTION_ID_COLUMNS)


def _as_table(frame: pd.DataFrame, table: str) -> pd.DataFrame:
    """A frame with the history schema's names, renamed to `table`'s columns, in their order."""
    renamed = frame.rename(columns=_TABLE_NAMES.get(table, {}))
    return renamed.loc[:, list(sql.table_columns(table))].reset_index(drop=True)


_TABLE_NAMES: dict[str, dict[str, str]] = {
    "plans": {
        "plan": "plan_name",
        "type": "plan_type",
        "project": "project_name",
        "created": "created_at",
        "updated": "updated_at",
    },
    "executions": {
        "start": "start_at",
        "end": "end_at",
        "plan": "plan_name",
        "project": "project_name",
        "user": "username",
    },
    "execution_statuses": {"count": "status_count"},
    "results": {"start": "start_at"},
}


def _upsert(db: StoreEngine, table: str, frame: pd.DataFrame) -> None:
    if frame.empty:
        return
    with db.staged(frame) as name:
        db.execute(with_staged(sql.upsert_from_staged(table), name))


def _unique(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """One row per key (the last one given): an upsert cannot update a row twice at once."""
    return frame.drop_duplicates(subset=keys, keep="last").reset_index(drop=True)


def _windowed(
    build: Any,
    date_from: datetime | None,
    date_to: datetime | None,
    *,
    plan_id: int | None = None,
    project_id: int | None = None,
) -> tuple[str, dict[str, Any]]:
    """A windowed query and its parameters, with only the filters that are set."""
    for name, bound in (("date_from", date_from), ("date_to", date_to)):
        if bound is not None and (bound.tzinfo is None or bound.utcoffset() is None):
            raise ValueError(f"{name} must be a timezone-aware datetime")
    given: dict[str, Any] = {
        "date_from": date_from,
        "date_to": date_to,
        "plan_id": plan_id,
        "project_id": project_id,
    }
    params = {name: value for name, value in given.items() if value is not None}
    kwargs: dict[str, bool] = {"date_from": date_from is not None, "date_to": date_to is not None}
    if build in (sql.executions_in_window, sql.statuses_in_window, sql.results_in_window):
        kwargs.update(plan=plan_id is not None, project=project_id is not None)
    return build(**kwargs), params


def _utc(value: Any) -> datetime | None:
    if value is None or pd.isna(value):
        return None
    stamp = pd.Timestamp(value)
    stamp = stamp.tz_localize(UTC) if stamp.tzinfo is None else stamp.tz_convert(UTC)
    return stamp.to_pydatetime()


def _parse_time(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return _utc(datetime.fromisoformat(text))
    except ValueError:
        return None

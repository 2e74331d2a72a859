"""Taking turns with the history store's database: open on use, closed when idle, migrated once.

`StoreLease` is the half of `HistoryStore` that is about the database rather than history: the
sessions of one process share one store and take turns through its lock; the database is opened
for an operation and let go `idle` seconds after the last one (a second process, or a page's
next query, then opens it again); on every open the schema is brought to this program's version
under the engine's migration lock (PostgreSQL: an advisory lock, so several processes starting
at once migrate once); `sync_lock` keeps a second sync of the same store out, across processes.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import threading
import time
import weakref
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Self, TypedDict

from dashboard.data.store import sql
from dashboard.data.store.engine import StoreEngine
from dashboard.data.store.errors import (
    StoreBusyError,
    StoreError,
    StoreSchemaError,
    StoreUnreadableError,
)
from dashboard.data.store.types import DEFAULT_IDLE, DEFAULT_WAIT, StoreIdentity

_LOG = logging.getLogger(__name__)

SYNC_WAIT = 600.0
"""Seconds a sync waits for another sync of the same store to finish before `StoreBusyError`."""

BUSY_REMEMBERED_S = 5.0
"""Seconds after an open found the database busy during which the next opens try once, without
waiting: a page's run reads the store several times (marks, rules, names, results), and each
waited its full `wait` in turn (16 s for one run while a sync held the file); now the run waits
once and its other reads say "busy" at once. A try that succeeds ends it."""


class LeaseOptions(TypedDict, total=False):
    """How a store is opened: `StoreLease`'s keyword arguments, for those who pass them on."""

    read_only: bool
    wait: float
    idle: float
    identity: StoreIdentity | None
    renew_unreadable: bool


class StoreLease:
    """The database of one store, shared by the threads of a process; see the module."""

    def __init__(
        self,
        engine: StoreEngine,
        *,
        read_only: bool = False,
        wait: float = DEFAULT_WAIT,
        idle: float = DEFAULT_IDLE,
        identity: StoreIdentity | None = None,
        renew_unreadable: bool = False,
    ) -> None:
        self._engine = engine
        self._read_only = read_only
        self._wait = wait
        self._idle = idle
        self._identity = identity
        # A DuckDB file found damaged in use is set aside (`_set_aside`) only when the opener
        # asked for it (`store.open_store`, as it does at open); the gate does not.
        self._renew_unreadable = renew_unreadable
        self._lock = threading.RLock()
        self._depth = 0
        self._holds = 0
        self._prepared = False
        self._generation = 0  # bumped by every use, so a stale idle timer closes nothing
        self._busy_until = 0.0  # `BUSY_REMEMBERED_S` after an open found the database busy
        self._timer: threading.Timer | None = None
        _OPEN_STORES.add(self)

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

    def __enter__(self) -> Self:
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

    @contextlib.contextmanager
    def sync_lock(self, *, wait: float = SYNC_WAIT) -> Iterator[None]:
        """One sync of this store at a time, across processes (a DuckDB file: a lock file
        beside it; PostgreSQL: an advisory lock). `StoreBusyError` after `wait` seconds."""
        with self._engine.exclusive("sync", wait=wait):
            yield

    @contextlib.contextmanager
    def exclusive(self, purpose: str, *, wait: float) -> Iterator[None]:
        """One holder of (this store, `purpose`) at a time, across processes, for the block
        (as `sync_lock`; the worker's daily digest uses "digest"). `StoreBusyError` after
        `wait` seconds. Only a plain word is a purpose: it names a lock file."""
        if not purpose.isidentifier():
            raise ValueError("a lock's purpose is a plain word")
        with self._engine.exclusive(purpose, wait=wait):
            yield

    # -- the database: one user at a time, schema brought up to date on first use ---------------

    @contextlib.contextmanager
    def _lease(self) -> Iterator[StoreEngine]:
        with self._lock:
            self._generation += 1
            self._cancel_timer()
            if self._depth == 0 and not self._engine.is_open:
                self._connect()
                try:
                    self._prepare()
                except BaseException:
                    self._engine.close()
                    raise
            self._depth += 1
            try:
                yield self._engine
            except StoreUnreadableError as error:
                if self._depth == 1:
                    raise self._set_aside(error) from None
                raise
            finally:
                self._depth -= 1
                if self._depth == 0 and self._holds == 0:
                    self._release()

    def _connect(self) -> None:
        """Open the database, waiting up to `wait` seconds, or trying once while it was found
        busy less than `BUSY_REMEMBERED_S` ago."""
        now = time.monotonic()
        wait = 0.0 if now < self._busy_until else self._wait
        try:
            self._engine.connect(read_only=self._read_only, wait=wait)
        except StoreBusyError:
            self._busy_until = time.monotonic() + BUSY_REMEMBERED_S
            raise
        self._busy_until = 0.0

    def _set_aside(self, error: StoreUnreadableError) -> StoreUnreadableError:
        """A file found damaged in use (cut short: DuckDB reads a block only when a query needs
        it, so an open may succeed) is set aside as an unreadable file found at open is, when
        this store may write: the next use makes a new one and a sync fills it again. Read-only
        opens, an opener that did not ask for it (`renew_unreadable`) and PostgreSQL change
        nothing (PostgreSQL's engine never says "unreadable")."""
        if self._read_only or not self._renew_unreadable or self._engine.kind != "duckdb":
            return error
        aside = self._engine.set_aside()
        self._prepared = False
        if aside is None:
            return error
        _LOG.warning(
            "history store %s could not be read (%s); set aside as %s", self.location, error, aside
        )
        return StoreUnreadableError(
            f"{error.message} It was set aside as {aside}; the next use starts a new store, "
            "which a sync fills again.",
            location=error.location,
        )

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
        if self._read_only:
            version = self._version()
            if version != sql.SCHEMA_VERSION:
                raise StoreSchemaError(
                    f"The history store {self.location} has schema version {version}; this "
                    f"program reads version {sql.SCHEMA_VERSION}. A sync upgrades or rebuilds it.",
                    location=self.location,
                )
            return
        # The identity is written under the same lock: two stores of one process on one DuckDB
        # file share its database, and two of its transactions writing the same key at once
        # conflict ('Duplicate key "key: demo"': the assistant's start proving its reader beside
        # a first question).
        with db.migration_lock():
            self._migrate(db)
            if self._identity is not None and not self._prepared:
                with db.transaction():
                    for key, value in (
                        ("service", self._identity.service),
                        ("company_id", str(self._identity.company_id)),
                        ("demo", "true" if self._identity.demo else "false"),
                    ):
                        db.execute(sql.SET_META, {"key": key, "value": value})
        self._prepared = True

    def _migrate(self, db: StoreEngine) -> None:
        """Apply the migrations this store lacks, each in one transaction with its version. A
        newer schema is rebuilt in a DuckDB file (one user's cache) but refused on PostgreSQL
        (`StoreSchemaError`: a team's shared schema is never destroyed by an older program)."""
        version = self._version()
        if version > sql.SCHEMA_VERSION and db.kind == "postgresql":
            # A team's shared schema: another process of a newer program writes it. Rebuilding
            # it would destroy that program's history (and it would rebuild it back).
            raise StoreSchemaError(
                f"The history store {self.location} has schema version {version}: it was "
                f"written by a newer version of the dashboard (this one writes version "
                f"{sql.SCHEMA_VERSION}); upgrade this one.",
                location=self.location,
            )
        if version > sql.SCHEMA_VERSION and self._holds_marks(db):
            # The ledger is what a team knows, not a copy of the service: never rebuilt away.
            raise StoreSchemaError(
                f"The history store {self.location} has schema version {version} and holds "
                f"the team's known-failure marks: it was written by a newer version of the "
                f"dashboard (this one writes version {sql.SCHEMA_VERSION}); upgrade this one.",
                location=self.location,
            )
        if version > sql.SCHEMA_VERSION:
            # One user's DuckDB file: a cache of what the service serves, rebuilt by a sync.
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
                    if migration.only_for in (None, db.kind):
                        for statement in migration.statements:
                            db.execute(statement)
                    db.execute(
                        sql.RECORD_VERSION,
                        {"version": migration.version, "applied_at": datetime.now(UTC)},
                    )

    @staticmethod
    def _holds_marks(db: StoreEngine) -> bool:
        if not db.scalar(sql.TABLE_EXISTS[db.kind], {"table_name": "marks"}):
            return False
        return bool(db.scalar(sql.COUNT_MARKS))

    def _version(self) -> int:
        db = self._engine
        if not db.scalar(sql.TABLE_EXISTS[db.kind], {"table_name": "schema_version"}):
            return 0
        return int(db.scalar(sql.CURRENT_VERSION) or 0)


_OPEN_STORES: weakref.WeakSet[StoreLease] = weakref.WeakSet()


@atexit.register
def _close_open_stores() -> None:
    """A store still open at exit (an idle timer pending) is closed cleanly: its write-ahead log
    is checkpointed and the file let go."""
    for store in list(_OPEN_STORES):
        with contextlib.suppress(Exception):
            store.close()

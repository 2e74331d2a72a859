"""What differs between the store's database engines, behind one small interface, and the one
way both run a statement.

`HistoryStore` (`store.history`) speaks only to a `StoreEngine` and runs only the statements of
`store.sql`. An engine knows how to connect (and what to do when another process holds the
database), how to hand a pandas frame over in bulk (`staged`), how to read a result into a
frame, and how to remove everything. Two engines implement it: the DuckDB file
(`store.duckdb.DuckDBEngine`, the default) and a schema of a PostgreSQL database
(`store.postgres.PostgresEngine`: psycopg 3 with its pool, COPY into a temporary table for
`staged`, advisory locks for migrations and for one sync at a time); the store and its SQL are
the same for both.

Running a statement is the same for both (`Statements`): on the open connection, with the
`:name` parameters written in the driver's style, and a driver's failure turned into what the
engine says it means. Waiting for another process to let go is the same too (`until_free`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from functools import lru_cache
from typing import Any, Generic, Protocol, TypeVar

import pandas as pd

from dashboard.data.store.errors import StoreBusyError, StoreError

Params = Mapping[str, Any]
ConnectionT = TypeVar("ConnectionT")
T = TypeVar("T")


class StoreEngine(Protocol):
    """One database behind the history store. Not thread-safe: `HistoryStore` serialises use."""

    kind: str
    """"duckdb" or "postgresql"; a migration may name statements for one kind only."""

    @property
    def location(self) -> str:
        """Where the data lives, for messages: a file path, or host and database (no password)."""
        ...

    @property
    def is_open(self) -> bool: ...

    @property
    def exists(self) -> bool:
        """Whether there is a database to open read-only (a file engine: the file exists)."""
        ...

    def connect(self, *, read_only: bool, wait: float) -> None:
        """Open the database, waiting up to `wait` seconds for another process to let go.

        Raises `StoreBusyError` when it does not, `StoreMissingError` for a read-only open of a
        database that does not exist, `StoreError` when the database cannot be opened at all.
        """
        ...

    def close(self) -> None:
        """Let go of the database (other processes may open it). Safe to call when closed."""
        ...

    def execute(self, sql: str, params: Params | None = None) -> None: ...

    def scalar(self, sql: str, params: Params | None = None) -> Any:
        """The first column of the first row (None when there is no row)."""
        ...

    def rows(self, sql: str, params: Params | None = None) -> list[tuple[Any, ...]]: ...

    def frame(
        self, sql: str, schema: Mapping[str, str], params: Params | None = None
    ) -> pd.DataFrame:
        """The result of a query as a frame with exactly `schema`'s columns and dtypes."""
        ...

    def staged(self, frame: pd.DataFrame) -> AbstractContextManager[str]:
        """Make `frame` readable by a statement as the relation whose name this yields (the
        `{staged}` of `store.sql`), for as long as the context lasts."""
        ...

    def transaction(self) -> AbstractContextManager[None]:
        """All statements inside commit together or not at all."""
        ...

    def migration_lock(self) -> AbstractContextManager[None]:
        """Held while the schema is checked and migrated, so that of several processes opening
        at once one migrates and the others then find it current (the open database must be
        writable; PostgreSQL also makes the store's schema here)."""
        ...

    def exclusive(self, purpose: str, *, wait: float) -> AbstractContextManager[None]:
        """One holder of (this store, `purpose`) across processes for the block, whether or not
        the database is open meanwhile; `StoreBusyError` after `wait` seconds."""
        ...

    def secure(self) -> None:
        """Keep what the engine wrote readable by its owner only (a file engine: 0600)."""
        ...

    def size_bytes(self) -> int | None:
        """How much space the data takes (None when the engine cannot tell)."""
        ...

    def set_aside(self) -> str | None:
        """Move an unreadable database out of the way so a new one can be made; returns where
        it went (None if there was nothing to move)."""
        ...

    def destroy(self) -> None:
        """Remove the database entirely (it is rebuilt on the next open)."""
        ...


class Statements(Generic[ConnectionT]):
    """How an engine runs a statement on its open connection (`execute`, `rows`, `scalar`, and
    `_run` for its own driver calls). An engine says how its driver writes `:name` parameters
    (`_driver_sql`) and what a driver's failure means (`_failure`)."""

    _con: ConnectionT | None

    @property
    def location(self) -> str:
        raise NotImplementedError

    def execute(self, sql: str, params: Params | None = None) -> None:
        self._run(lambda con: self._cursor(con, sql, params))

    def scalar(self, sql: str, params: Params | None = None) -> Any:
        """The first column of the first row (None when there is no row)."""
        rows = self.rows(sql, params)
        return rows[0][0] if rows else None

    def rows(self, sql: str, params: Params | None = None) -> list[tuple[Any, ...]]:
        return self._run(lambda con: self._cursor(con, sql, params).fetchall())

    def _cursor(self, con: Any, sql: str, params: Params | None) -> Any:
        # DuckDB's connection and psycopg's both take (statement, mapping) and answer with
        # something that fetches.
        return con.execute(self._driver_sql(sql), dict(params or {}))

    def _connection(self) -> ConnectionT:
        if self._con is None:
            raise StoreError("The history store is not open.", location=self.location)
        return self._con

    def _run(self, action: Callable[[ConnectionT], T]) -> T:
        con = self._connection()
        try:
            return action(con)
        except Exception as error:
            failure = self._failure(con, error)
            if failure is None:
                raise
            raise failure from None

    @staticmethod
    def _driver_sql(sql: str) -> str:
        """`sql` with its `:name` parameters written as the driver expects them."""
        raise NotImplementedError

    def _failure(self, con: ConnectionT, error: Exception) -> StoreError | None:
        """What a driver's `error` on `con` means: the `StoreError` to raise instead, or None
        to let it through. May let go of a connection the driver cannot use again."""
        raise NotImplementedError


def until_free(
    attempt: Callable[[], T | None],
    *,
    wait: float,
    busy: Callable[[float], StoreBusyError],
    pause: float,
    longest_pause: float | None = None,
) -> T:
    """`attempt()` again and again until it answers (not None), pausing between tries (the pause
    doubles up to `longest_pause` when given); `busy(seconds waited)` is raised when the next
    pause would pass `wait` seconds. Another process holding a file or a lock lets go on its
    own schedule, and no engine offers a wakeup for it."""
    started = time.monotonic()
    while True:
        answer = attempt()
        if answer is not None:
            return answer
        waited = time.monotonic() - started
        if waited + pause > wait:
            raise busy(waited)
        time.sleep(pause)
        if longest_pause is not None:
            pause = min(pause * 2, longest_pause)


def running_elsewhere(
    purpose: str, where: str, *, location: str
) -> Callable[[float], StoreBusyError]:
    """The `busy` of `until_free` for an engine's `exclusive` lock of `purpose` on `where`."""
    return lambda waited: StoreBusyError(
        f"Another process is already running a {purpose} of {where} (waited {waited:.1f} s).",
        location=location,
        waited=waited,
    )


_NAMED_PARAMETER = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")


@lru_cache(maxsize=256)
def with_placeholders(sql: str, marker: str) -> str:
    """`:name` parameters written as `{marker}name` (DuckDB: `$`), leaving `::` casts alone."""
    return _NAMED_PARAMETER.sub(lambda m: marker + m.group(1), sql)


@lru_cache(maxsize=256)
def with_pyformat(sql: str) -> str:
    """`:name` parameters written as `%(name)s` (psycopg), a literal `%` doubled first."""
    return _NAMED_PARAMETER.sub(lambda m: f"%({m.group(1)})s", sql.replace("%", "%%"))


def with_staged(sql: str, name: str) -> str:
    """`{staged}` replaced by a relation's name (a plain replace: SQL has other braces)."""
    return sql.replace("{staged}", name)

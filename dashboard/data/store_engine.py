"""What differs between the store's database engines, behind one small interface.

`HistoryStore` (dashboard/data/store.py) speaks only to a `StoreEngine` and runs only the
statements of `store_sql`. An engine knows how to connect (and what to do when another process
holds the database), how to run a statement with `:name` parameters, how to hand a pandas frame
over in bulk (`staged`), how to read a result into a frame, and how to remove everything. Two
engines implement it: the DuckDB file (`store_duckdb.DuckDBEngine`, the default) and a schema
of a PostgreSQL database (`store_postgres.PostgresEngine`: psycopg 3 with its pool, COPY into
a temporary table for `staged`, advisory locks for migrations and for one sync at a time); the
store and its SQL are the same for both.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from contextlib import AbstractContextManager
from functools import lru_cache
from typing import Any, Protocol

import pandas as pd

Params = Mapping[str, Any]


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
        `{staged}` of `store_sql`), for as long as the context lasts."""
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

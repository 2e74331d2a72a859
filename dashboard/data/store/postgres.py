"""The PostgreSQL engine of the history store: one server shared by a team's processes.

One database holds the history of every (service, company): each gets a schema of its own
(`store.location.store_schema`, e.g. `history_ci_example_com_c7_3f9a0c1d2e4b5a69`), and a
connection's `search_path` points at it, so the statements of `store.sql` run unchanged on
both engines and no query can reach another company's rows by a forgotten `WHERE`.

- Connections come from one `psycopg_pool.ConnectionPool` per server and process (autocommit;
  the session's time zone is UTC). A store holds one while an operation runs, like a file.
- Frames go in by COPY into a temporary table (`staged`), then one `INSERT ... SELECT ... ON
  CONFLICT` of `store.sql`; results come back as rows turned into typed columns at once.
- `migration_lock` is a `pg_advisory_lock` on the schema: whichever process starts first creates
  the schema and migrates it, the others wait and find it current. `exclusive("sync")` is a
  second advisory lock, held on a connection of its own for a whole sync.
- The URL's password is only ever handed to libpq: `location` and `repr` name user, host, port
  and database, and any driver message is cut to its first line with the password removed.

The server side (URL, pools, lock keys) is `store.pg_pool`; values in and out `store.pg_values`.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator, Mapping
from typing import Any

import pandas as pd
import psycopg
from psycopg import sql as pgsql
from psycopg_pool import ConnectionPool, PoolTimeout

from dashboard.data.store.engine import (
    Params,
    Statements,
    running_elsewhere,
    until_free,
    with_pyformat,
)
from dashboard.data.store.errors import StoreBusyError, StoreError, StoreMissingError
from dashboard.data.store.pg_pool import (
    CONNECT_TIMEOUT,
    check_url,
    give_back,
    lock_key,
    pool_for,
    safe_url,
    scrubbed,
)
from dashboard.data.store.pg_values import csv_frame, pg_type, python_rows

_PAUSE = 0.1
_names = itertools.count(1)


class PostgresEngine(Statements[psycopg.Connection[Any]]):
    """A history store in one schema of a PostgreSQL database. Not thread-safe: `HistoryStore`
    serialises use."""

    kind = "postgresql"

    def __init__(self, url: str, schema: str) -> None:
        check_url(url)
        if not schema.isidentifier() or len(schema) > 63:
            raise ValueError("a store schema is a plain identifier of at most 63 characters")
        self._url = url
        self.schema = schema
        self._con: psycopg.Connection[Any] | None = None
        self._from: ConnectionPool | None = None  # the pool `_con` goes back to
        self._read_only = False

    def __repr__(self) -> str:
        return f"PostgresEngine({self.location!r})"

    # -- lifecycle -------------------------------------------------------------------------------

    @property
    def location(self) -> str:
        return f"{safe_url(self._url)}#{self.schema}"

    @property
    def is_open(self) -> bool:
        return self._con is not None

    @property
    def exists(self) -> bool:
        with self._borrowed(wait=CONNECT_TIMEOUT) as con:
            return self._schema_exists(con)

    def connect(self, *, read_only: bool, wait: float) -> None:
        if self._con is not None:
            return
        pool, con = self._take(wait)
        try:
            if read_only and not self._schema_exists(con):
                raise StoreMissingError(
                    f"No history is stored in {self.location} yet.", location=self.location
                )
            con.execute(pgsql.SQL("SET search_path TO {}").format(pgsql.Identifier(self.schema)))
        except BaseException as error:
            pool.putconn(con)
            if isinstance(error, psycopg.Error):
                raise self._error("cannot be opened", error) from None
            raise
        self._con, self._from = con, pool
        self._read_only = read_only

    def close(self) -> None:
        con, self._con = self._con, None
        if con is not None and self._from is not None:
            give_back(self._from, con)

    # -- statements ------------------------------------------------------------------------------

    def frame(
        self, sql: str, schema: Mapping[str, str], params: Params | None = None
    ) -> pd.DataFrame:
        """The query's rows by `COPY ... TO STDOUT` as CSV, parsed by Arrow (`csv_frame`): no
        Python object per value (a page's 170,000 results take a fraction of a second, not
        seconds). The values are bound client-side by psycopg's own quoting."""

        def read(con: psycopg.Connection[Any]) -> bytes:
            bound = psycopg.ClientCursor(con).mogrify(self._driver_sql(sql), dict(params or {}))
            copy_sql = f"COPY ({bound}) TO STDOUT WITH (FORMAT csv, HEADER true)"
            out = bytearray()
            with con.cursor().copy(copy_sql.encode()) as copy:
                for chunk in copy:
                    out += chunk
            return bytes(out)

        return csv_frame(self._run(read), schema)

    @contextlib.contextmanager
    def staged(self, frame: pd.DataFrame) -> Iterator[str]:
        con = self._connection()
        name = f"staged_{next(_names)}"
        columns = [
            pgsql.SQL("{} {}").format(pgsql.Identifier(str(c)), pgsql.SQL(pg_type(frame[c])))
            for c in frame.columns
        ]
        names = pgsql.SQL(", ").join(pgsql.Identifier(str(c)) for c in frame.columns)
        table = pgsql.Identifier(name)
        try:
            con.execute(
                pgsql.SQL("CREATE TEMPORARY TABLE {} ({})").format(
                    table, pgsql.SQL(", ").join(columns)
                )
            )
            with con.cursor().copy(
                pgsql.SQL("COPY {} ({}) FROM STDIN").format(table, names)
            ) as copy:
                for row in python_rows(frame):
                    copy.write_row(row)
        except psycopg.Error as error:
            raise self._error("cannot be written", error) from None
        try:
            yield name
        finally:
            with contextlib.suppress(psycopg.Error):
                con.execute(pgsql.SQL("DROP TABLE IF EXISTS {}").format(table))

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """All or nothing; a failure to begin or commit (the server gone) is the store's error,
        as a statement's is."""
        con = self._connection()
        try:
            with con.transaction():
                yield
        except psycopg.Error as error:
            raise self._failure(con, error) or error from None

    @contextlib.contextmanager
    def migration_lock(self) -> Iterator[None]:
        """The schema made if missing and migrated by one process at a time (whoever comes
        first; the others wait here and then find it current)."""
        con = self._connection()
        key = lock_key(self.schema, "migrate")
        self._run(lambda c: c.execute("SELECT pg_advisory_lock(%s)", (key,)))
        try:
            self._run(
                lambda c: c.execute(
                    pgsql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(
                        pgsql.Identifier(self.schema)
                    )
                )
            )
            yield
        finally:
            with contextlib.suppress(psycopg.Error):
                con.execute("SELECT pg_advisory_unlock(%s)", (key,))

    @contextlib.contextmanager
    def exclusive(self, purpose: str, *, wait: float) -> Iterator[None]:
        """Only one holder of (this store, `purpose`) across every process, for the block; held
        on a connection of its own (a crashed holder's lock goes with its connection)."""
        key = lock_key(self.schema, purpose)
        with self._borrowed(wait=wait) as con:
            until_free(
                lambda: _try_lock(con, key),
                wait=wait,
                busy=running_elsewhere(purpose, self.location, location=self.location),
                pause=_PAUSE,
            )
            try:
                yield
            finally:
                with contextlib.suppress(psycopg.Error):
                    con.execute("SELECT pg_advisory_unlock(%s)", (key,))

    # -- space -----------------------------------------------------------------------------------

    def secure(self) -> None:
        """Nothing to do: who may read the schema is the server's (its roles and grants)."""

    def size_bytes(self) -> int | None:
        value = self.scalar(
            "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class AS c "
            "JOIN pg_namespace AS n ON n.oid = c.relnamespace "
            "WHERE n.nspname = :schema AND c.relkind = 'r'",
            {"schema": self.schema},
        )
        return int(value) if value is not None else None

    def set_aside(self) -> str | None:
        """A schema that cannot be read is dropped (the store is a cache; a sync refills it)."""
        self.destroy()
        return None

    def destroy(self) -> None:
        """Drop the schema and everything in it; when open, an empty schema is made again at
        once (the connection stays: a migration lock may be held on it)."""
        name = pgsql.Identifier(self.schema)
        drop = pgsql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(name)
        if self._con is not None:
            self._run(lambda con: con.execute(drop))
            self._run(lambda con: con.execute(pgsql.SQL("CREATE SCHEMA {}").format(name)))
            return
        with self._borrowed(wait=CONNECT_TIMEOUT) as con:
            con.execute(drop)

    # -- internals -------------------------------------------------------------------------------

    def _pool(self) -> ConnectionPool:
        return pool_for(self._url)

    def _take(self, wait: float) -> tuple[ConnectionPool, psycopg.Connection[Any]]:
        """A connection of this server's pool (and the pool it goes back to), waiting at most
        `wait` seconds for a free one: `StoreBusyError` after that."""
        pool = self._pool()
        try:
            return pool, pool.getconn(timeout=max(wait, 0.1))
        except PoolTimeout:
            raise StoreBusyError(
                f"The history store {self.location} has no free connection (waited {wait:.1f} s).",
                location=self.location,
                waited=wait,
            ) from None

    @contextlib.contextmanager
    def _borrowed(self, *, wait: float) -> Iterator[psycopg.Connection[Any]]:
        pool, con = self._take(wait)
        try:
            yield con
        except psycopg.Error as error:
            raise self._error("cannot be used", error) from None
        finally:
            give_back(pool, con)

    def _schema_exists(self, con: psycopg.Connection[Any]) -> bool:
        row = con.execute(
            "SELECT COUNT(*) FROM pg_namespace WHERE nspname = %s", (self.schema,)
        ).fetchone()
        return bool(row and row[0])

    @staticmethod
    def _driver_sql(sql: str) -> str:
        return with_pyformat(sql)

    def _failure(self, con: psycopg.Connection[Any], error: Exception) -> StoreError | None:
        if not isinstance(error, psycopg.Error):
            return None
        if isinstance(error, psycopg.OperationalError) and con.broken:
            self.close()  # the server went away: give the connection back, reopen next time
        return self._error("cannot be used", error)

    def _error(self, what: str, error: BaseException) -> StoreError:
        return StoreError(
            f"The history store {self.location} {what}: {scrubbed(str(error), self._url)}",
            location=self.location,
        )


def _try_lock(con: psycopg.Connection[Any], key: int) -> bool | None:
    """True when the advisory lock `key` is now held on `con`; None while another holds it."""
    row = con.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
    return True if row and row[0] else None

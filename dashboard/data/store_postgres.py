"""The PostgreSQL engine of the history store: one server shared by a team's processes.

One database holds the history of every (service, company): each gets a schema of its own
(`store_location.store_schema`, e.g. `history_ci_example_com_c7_3f9a0c1d2e4b5a69`), and a
connection's `search_path` points at it, so the statements of `store_sql` run unchanged on
both engines and no query can reach another company's rows by a forgotten `WHERE`.

- Connections come from one `psycopg_pool.ConnectionPool` per server and process (autocommit;
  the session's time zone is UTC). A store holds one while an operation runs, like a file.
- Frames go in by COPY into a temporary table (`staged`), then one `INSERT ... SELECT ... ON
  CONFLICT` of `store_sql`; results come back as rows turned into typed columns at once.
- `migration_lock` is a `pg_advisory_lock` on the schema: whichever process starts first creates
  the schema and migrates it, the others wait and find it current. `exclusive("sync")` is a
  second advisory lock, held on a connection of its own for a whole sync.
- The URL's password is only ever handed to libpq: `location` and `repr` name user, host, port
  and database, and any driver message is cut to its first line with the password removed.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import pandas as pd
import psycopg
import pyarrow as pa
from psycopg import sql as pgsql
from psycopg_pool import ConnectionPool, PoolTimeout
from pyarrow import csv as pa_csv

from dashboard.data.store_engine import Params, typed_frame, with_pyformat
from dashboard.data.store_errors import StoreBusyError, StoreError, StoreMissingError

SCHEMES = ("postgresql", "postgres")
POOL_SIZE = 10
"""Connections per server and process: a page's store, a sync's lock, a few sessions at once."""
CONNECT_TIMEOUT = 10
_PAUSE = 0.1
_names = itertools.count(1)
_pools: dict[str, ConnectionPool] = {}
_pools_lock = threading.Lock()


class PostgresEngine:
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
        pool = self._pool()
        try:
            con = pool.getconn(timeout=max(wait, 0.1))
        except PoolTimeout:
            raise StoreBusyError(
                f"The history store {self.location} has no free connection (waited {wait:.1f} s).",
                location=self.location,
                waited=wait,
            ) from None
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
            _give_back(self._from, con)

    # -- statements ------------------------------------------------------------------------------

    def execute(self, sql: str, params: Params | None = None) -> None:
        self._run(lambda con: con.execute(_pg_sql(sql), dict(params or {})))

    def scalar(self, sql: str, params: Params | None = None) -> Any:
        rows = self.rows(sql, params)
        return rows[0][0] if rows else None

    def rows(self, sql: str, params: Params | None = None) -> list[tuple[Any, ...]]:
        return self._run(lambda con: con.execute(_pg_sql(sql), dict(params or {})).fetchall())

    def frame(
        self, sql: str, schema: Mapping[str, str], params: Params | None = None
    ) -> pd.DataFrame:
        """The query's rows by `COPY ... TO STDOUT` as CSV, parsed by Arrow into typed columns
        at once: no Python object per value (a page's 170,000 results take a fraction of a
        second, not seconds). The values are bound client-side by psycopg's own quoting."""

        def read(con: psycopg.Connection[Any]) -> bytes:
            bound = psycopg.ClientCursor(con).mogrify(_pg_sql(sql), dict(params or {}))
            copy_sql = f"COPY ({bound}) TO STDOUT WITH (FORMAT csv, HEADER true)"
            out = bytearray()
            with con.cursor().copy(copy_sql.encode()) as copy:
                for chunk in copy:
                    out += chunk
            return bytes(out)

        data = self._run(read)
        table = pa_csv.read_csv(
            io.BytesIO(data),
            parse_options=pa_csv.ParseOptions(newlines_in_values=True),
            convert_options=pa_csv.ConvertOptions(
                column_types={n: _ARROW_TYPES[_kind(t)] for n, t in schema.items()},
                true_values=["t"],
                false_values=["f"],
                strings_can_be_null=True,
                quoted_strings_can_be_null=False,
            ),
        )
        return typed_frame(table.to_pandas(types_mapper=_PANDAS_TYPES.get), schema)

    @contextlib.contextmanager
    def staged(self, frame: pd.DataFrame) -> Iterator[str]:
        con = self._connection()
        name = f"staged_{next(_names)}"
        columns = [
            pgsql.SQL("{} {}").format(pgsql.Identifier(str(c)), pgsql.SQL(_pg_type(frame[c])))
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
                for row in _python_rows(frame):
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
        con = self._connection()
        with con.transaction():
            yield

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
        started = time.monotonic()
        with self._borrowed(wait=wait) as con:
            while not con.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0]:  # type: ignore[index]
                waited = time.monotonic() - started
                if waited + _PAUSE > wait:
                    raise StoreBusyError(
                        f"Another process is already running a {purpose} of {self.location} "
                        f"(waited {waited:.1f} s).",
                        location=self.location,
                        waited=waited,
                    )
                time.sleep(_PAUSE)
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

    @contextlib.contextmanager
    def _borrowed(self, *, wait: float) -> Iterator[psycopg.Connection[Any]]:
        pool = self._pool()
        try:
            con = pool.getconn(timeout=max(wait, 0.1))
        except PoolTimeout:
            raise StoreBusyError(
                f"The history store {self.location} has no free connection (waited {wait:.1f} s).",
                location=self.location,
                waited=wait,
            ) from None
        try:
            yield con
        except psycopg.Error as error:
            raise self._error("cannot be used", error) from None
        finally:
            _give_back(pool, con)

    def _schema_exists(self, con: psycopg.Connection[Any]) -> bool:
        row = con.execute(
            "SELECT COUNT(*) FROM pg_namespace WHERE nspname = %s", (self.schema,)
        ).fetchone()
        return bool(row and row[0])

    def _connection(self) -> psycopg.Connection[Any]:
        if self._con is None:
            raise StoreError("The history store is not open.", location=self.location)
        return self._con

    def _run(self, action: Any) -> Any:
        con = self._connection()
        try:
            return action(con)
        except psycopg.OperationalError as error:
            if con.broken:  # the server went away: give the connection back, reopen next time
                self.close()
            raise self._error("cannot be used", error) from None
        except psycopg.Error as error:
            raise self._error("cannot be used", error) from None

    def _error(self, what: str, error: BaseException) -> StoreError:
        return StoreError(
            f"The history store {self.location} {what}: {scrubbed(str(error), self._url)}",
            location=self.location,
        )


# -- URLs and pools ------------------------------------------------------------------------------


def check_url(url: str) -> None:
    """Refuse what is not a postgresql:// URL with a host and a database, without echoing it
    (it may carry a password)."""
    parts = urlsplit(url.strip())
    if parts.scheme not in SCHEMES or not parts.path.strip("/"):
        raise StoreError(
            "The store URL must look like postgresql://user:password@host:5432/database.",
            location=safe_url(url),
        )


def safe_url(url: str) -> str:
    """`url` without its password or query: scheme, user, host, port and database."""
    try:
        parts = urlsplit(url.strip())
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "postgresql://?"
    user = f"{unquote(parts.username)}@" if parts.username else ""
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{user}{host}{port}{parts.path}"


def _passwords(url: str) -> list[str]:
    parts = urlsplit(url.strip())
    found = [parts.password, unquote(parts.password or "")]
    found += [v for k, v in parse_qsl(parts.query) if k.lower() == "password"]
    return [p for p in found if p]


def scrubbed(message: str, url: str) -> str:
    """A driver's message cut to its first line, with the URL's password removed."""
    lines = message.strip().splitlines()
    text = lines[0][:300] if lines else "no details"
    for password in _passwords(url):
        text = text.replace(password, "***")
    return text


def lock_key(schema: str, purpose: str) -> int:
    """A signed 64-bit advisory-lock key for (schema, purpose)."""
    digest = hashlib.sha256(f"qa-dashboard\n{schema}\n{purpose}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _configure(con: psycopg.Connection[Any]) -> None:
    con.execute("SET TimeZone = 'UTC'")
    con.execute("SET DateStyle = 'ISO, YMD'")  # what Arrow parses (the default, made sure)
    con.execute("SET work_mem = '64MB'")  # a page's window sorts in memory, not on disk


def pool_for(url: str) -> ConnectionPool:
    """This process's pool for the server at `url` (made and checked on first use)."""
    key = hashlib.sha256(url.encode()).hexdigest()  # the password is never a key
    with _pools_lock:
        pool = _pools.get(key)
        if pool is None:
            try:
                with psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT):
                    pass
            except psycopg.Error as error:
                raise StoreError(
                    f"The history store server {safe_url(url)} cannot be reached: "
                    f"{scrubbed(str(error), url)}",
                    location=safe_url(url),
                ) from None
            pool = ConnectionPool(
                url,
                min_size=0,
                max_size=POOL_SIZE,
                kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT},
                configure=_configure,
                name=f"history-store-{len(_pools) + 1}",
                open=True,
            )
            _pools[key] = pool
        return pool


def _give_back(pool: ConnectionPool, con: psycopg.Connection[Any]) -> None:
    """Return `con` to the pool it came from (closed instead when that pool is closed)."""
    if pool.closed:
        con.close()
    else:
        pool.putconn(con)


def close_pool(url: str) -> None:
    """Close this process's pool for `url`, if there is one (a store of it reopens a new one)."""
    with _pools_lock:
        pool = _pools.pop(hashlib.sha256(url.encode()).hexdigest(), None)
    if pool is not None:
        with contextlib.suppress(Exception):
            pool.close(timeout=2)


def close_pools() -> None:
    """Close every pool of this process (at exit, and between tests of several servers)."""
    with _pools_lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        with contextlib.suppress(Exception):
            pool.close(timeout=2)


# -- values --------------------------------------------------------------------------------------


def _pg_sql(sql: str) -> str:
    """`:name` parameters as psycopg's `%(name)s`."""
    return with_pyformat(sql)


def _pg_type(series: pd.Series) -> str:
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return "BOOLEAN"
    if pd.api.types.is_integer_dtype(dtype):
        return "BIGINT"
    if pd.api.types.is_float_dtype(dtype):
        return "DOUBLE PRECISION"
    if isinstance(dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_any_dtype(dtype):
        return "TIMESTAMPTZ"
    return "TEXT"


def _python_rows(frame: pd.DataFrame) -> Iterator[tuple[Any, ...]]:
    """The rows of `frame` as plain Python values (None for every kind of missing)."""
    columns = []
    for name in frame.columns:
        series = frame[name]
        values = series.astype(object).tolist()
        missing = series.isna().tolist()
        columns.append(
            [None if gone else value for value, gone in zip(values, missing, strict=True)]
        )
    return zip(*columns, strict=True) if columns else iter(())


_ARROW_TYPES = {
    "time": pa.timestamp("us", tz="UTC"),
    "int": pa.int64(),
    "bool": pa.bool_(),
    "float": pa.float64(),
    "text": pa.string(),
}
# Arrow -> pandas: nullable integers and booleans, so NULL stays <NA> before the schema's astype.
_PANDAS_TYPES = {pa.int64(): pd.Int64Dtype(), pa.bool_(): pd.BooleanDtype()}


def _kind(dtype: str) -> str:
    """The Arrow column type a frame dtype is read as."""
    if dtype.startswith("datetime64"):
        return "time"
    if dtype in ("int64", "Int64"):
        return "int"
    if dtype in ("bool", "boolean"):
        return "bool"
    if dtype.startswith("float"):
        return "float"
    return "text"

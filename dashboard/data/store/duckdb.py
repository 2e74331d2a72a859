"""The DuckDB file engine of the history store: one file per (service, company), owner-only.

DuckDB lets one process at a time open a file for writing (it takes a lock on the file; a
read-only open takes a shared one). So `connect` retries a lock conflict with a growing pause
until its bounded wait runs out, then raises `StoreBusyError`; it never opens around the lock.
Frames go in through DuckDB's pandas integration (a frame registered as a view, then one
`INSERT ... SELECT`), and come out through Arrow (`to_arrow_table()`, then one conversion to
pandas), never row by row.

Files are kept 0600: DuckDB creates the database and its write-ahead log with the process's
umask, so they are narrowed right after each open and each write (the folder, made 0700 by
`store.location`, keeps everyone else out in between).
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import logging
import os
import shutil
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa

from dashboard.columns.shapes import typed
from dashboard.data.store.engine import (
    Params,
    Statements,
    running_elsewhere,
    until_free,
    with_placeholders,
)
from dashboard.data.store.errors import (
    StoreBusyError,
    StoreError,
    StoreMissingError,
    StoreUnreadableError,
)

_LOG = logging.getLogger(__name__)
_MIGRATIONS_HERE: dict[str, threading.Lock] = {}
"""One lock per store file for this process's migrations (see `migration_lock`)."""
_MIGRATIONS_HERE_GUARD = threading.Lock()

FILE_MODE = 0o600
_FIRST_PAUSE = 0.05
_LONGEST_PAUSE = 0.5
_LOCK_CONFLICT = "Could not set lock"
_MISSING = "database does not exist"
# What DuckDB says of a file it cannot read as a database: cut short ("Could not read enough
# bytes from file"), or a block whose checksum does not match ("Corrupt database file").
_DAMAGED = ("Could not read enough bytes", "Corrupt database file", "not a valid DuckDB")

# Arrow -> pandas: integers and booleans become nullable pandas types, so a NULL id stays <NA>
# (not a float NaN that would lose precision past 2**53) before the schema's astype.
_PANDAS_TYPES = {
    pa.int64(): pd.Int64Dtype(),
    pa.int32(): pd.Int64Dtype(),
    pa.bool_(): pd.BooleanDtype(),
}


class DuckDBEngine(Statements[duckdb.DuckDBPyConnection]):
    """A history store in one DuckDB file. Not thread-safe: `HistoryStore` serialises use."""

    kind = "duckdb"

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._con: duckdb.DuckDBPyConnection | None = None
        self._read_only = False
        self._names = itertools.count(1)

    def __repr__(self) -> str:
        return f"DuckDBEngine({str(self.path)!r})"

    # -- lifecycle -------------------------------------------------------------------------------

    @property
    def location(self) -> str:
        return str(self.path)

    @property
    def is_open(self) -> bool:
        return self._con is not None

    @property
    def exists(self) -> bool:
        return self.path.exists()

    def connect(self, *, read_only: bool, wait: float) -> None:
        if self._con is not None:
            return
        con = until_free(
            lambda: self._try_connect(read_only),
            wait=wait,
            busy=lambda waited: StoreBusyError(
                f"The history store {self.path} is in use by another process "
                f"(waited {waited:.1f} s).",
                location=self.location,
                waited=waited,
            ),
            pause=_FIRST_PAUSE,
            longest_pause=_LONGEST_PAUSE,
        )
        try:
            con.execute("SET TimeZone = 'UTC'")
        except duckdb.Error as error:
            con.close()
            raise self._error("cannot be opened", error) from None
        self._con = con
        self._read_only = read_only
        if not read_only:
            self.secure()

    def _try_connect(self, read_only: bool) -> duckdb.DuckDBPyConnection | None:
        """The open file; None while another process holds its lock."""
        try:
            return duckdb.connect(str(self.path), read_only=read_only)
        except duckdb.IOException as error:
            text = str(error)
            if _MISSING in text:
                raise StoreMissingError(
                    f"No history is stored at {self.path} yet.", location=self.location
                ) from None
            if _LOCK_CONFLICT in text:
                return None
            raise self._unopenable(text) from None
        except duckdb.Error as error:
            raise self._unopenable(str(error)) from None

    def _unopenable(self, text: str) -> StoreError:
        return StoreUnreadableError(
            f"The history store {self.path} cannot be opened: {_first_line(text)}",
            location=self.location,
        )

    def _error(self, what: str, error: duckdb.Error) -> StoreError:
        """The store's error for a driver's `error`: one line naming the file; a file DuckDB
        cannot read as a database (cut short, checksums wrong) is `StoreUnreadableError`."""
        text = str(error)
        kind = StoreUnreadableError if any(s in text for s in _DAMAGED) else StoreError
        return kind(
            f"The history store {self.path} {what}: {_first_line(text)}", location=self.location
        )

    def close(self) -> None:
        con, self._con = self._con, None
        if con is not None:
            try:
                con.close()  # a clean close checkpoints the write-ahead log into the file
            except duckdb.Error as error:
                # Nothing to tell a caller that is letting go (often after another error): the
                # write-ahead log stays and the next open replays it.
                _LOG.warning("history store %s was not closed cleanly: %s", self.path, error)
            if not self._read_only:
                self.secure()

    # -- statements ------------------------------------------------------------------------------

    def frame(
        self, sql: str, schema: Mapping[str, str], params: Params | None = None
    ) -> pd.DataFrame:
        def read(con: duckdb.DuckDBPyConnection) -> pa.Table:
            relation = con.sql(self._driver_sql(sql), params=dict(params or {}) or None)
            return relation.to_arrow_table()

        table = self._run(read)
        return typed(table.to_pandas(types_mapper=_PANDAS_TYPES.get), schema)

    @contextlib.contextmanager
    def staged(self, frame: pd.DataFrame) -> Iterator[str]:
        name = f"staged_{next(self._names)}"
        self._run(lambda con: con.register(name, frame))
        try:
            yield name
        finally:
            if self._con is not None:
                with contextlib.suppress(duckdb.Error):
                    self._con.unregister(name)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        self._run(lambda con: con.execute("BEGIN TRANSACTION"))
        try:
            yield
        except BaseException:
            if self._con is not None:
                with contextlib.suppress(duckdb.Error):
                    self._con.execute("ROLLBACK")
            raise
        self._run(lambda con: con.execute("COMMIT"))
        self.secure()

    @contextlib.contextmanager
    def migration_lock(self) -> Iterator[None]:
        """A writable open holds the file alone against other processes, but two threads of
        this process share one DuckDB database per file (the MCP server warms its store while a
        first question opens it): their migrations take turns, or both would create the schema
        ("Catalog write-write conflict")."""
        with _MIGRATIONS_HERE_GUARD:
            lock = _MIGRATIONS_HERE.setdefault(str(self.path), threading.Lock())
        with lock:
            yield

    @contextlib.contextmanager
    def exclusive(self, purpose: str, *, wait: float) -> Iterator[None]:
        """One holder of (this file, `purpose`) at a time across processes: an exclusive
        `flock` on `<file>.<purpose>.lock` (0600), which exists only while held (removed
        before it is let go; a waiter that locked a removed file tries again), and is let go
        when the block ends or the process dies. The database file stays free between
        operations, so pages read it while a sync runs."""
        lock_path = self.path.with_name(f"{self.path.name}.{purpose}.lock")
        descriptor = until_free(
            lambda: _locked(lock_path),
            wait=wait,
            busy=running_elsewhere(purpose, str(self.path), location=self.location),
            pause=_FIRST_PAUSE,
        )
        try:
            yield
        finally:
            with contextlib.suppress(FileNotFoundError):
                lock_path.unlink()
            os.close(descriptor)

    # -- files -----------------------------------------------------------------------------------

    def _files(self) -> list[Path]:
        return [self.path, self.path.with_name(self.path.name + ".wal")]

    def secure(self) -> None:
        for file in self._files():
            with contextlib.suppress(FileNotFoundError):
                if file.stat().st_mode & 0o777 != FILE_MODE:
                    file.chmod(FILE_MODE)

    def size_bytes(self) -> int | None:
        total = 0
        for file in self._files():
            with contextlib.suppress(FileNotFoundError):
                total += file.stat().st_size
        return total

    def set_aside(self) -> str | None:
        self.close()
        if not self.path.exists():
            return None
        aside = self.path.with_name(self.path.name + ".unreadable")
        os.replace(self.path, aside)
        with contextlib.suppress(FileNotFoundError):
            self._files()[1].unlink()
        with contextlib.suppress(OSError):
            aside.chmod(FILE_MODE)
        return str(aside)

    def destroy(self) -> None:
        self.close()
        for file in self._files():
            with contextlib.suppress(FileNotFoundError):
                file.unlink()
        shutil.rmtree(self.path.with_name(self.path.name + ".tmp"), ignore_errors=True)

    # -- the driver: how `Statements` runs a statement here -----------------------------------

    @staticmethod
    def _driver_sql(sql: str) -> str:
        return with_placeholders(sql, "$")

    def _failure(self, con: duckdb.DuckDBPyConnection, error: Exception) -> StoreError | None:
        """Every DuckDB error is the store's (a caller never sees the driver's class); after a
        fatal one or a damaged file, the connection is let go so the next use reopens (DuckDB
        invalidates a database after a fatal error, and a damaged one may be set aside)."""
        if not isinstance(error, duckdb.Error):
            return None
        failure = self._error("cannot be used", error)
        if isinstance(error, duckdb.FatalException) or isinstance(failure, StoreUnreadableError):
            self._con = None
            with contextlib.suppress(duckdb.Error):
                con.close()
        return failure


def _locked(lock_path: Path) -> int | None:
    """A descriptor of `lock_path` holding its exclusive `flock`; None while another process
    holds it, or when the holder removed the file as it was locked (the next try makes anew)."""
    descriptor = os.open(lock_path, os.O_RDWR | os.O_CREAT, FILE_MODE)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(descriptor)
        return None
    try:
        current = os.stat(lock_path).st_ino
    except FileNotFoundError:
        current = None
    if current == os.fstat(descriptor).st_ino:
        return descriptor
    os.close(descriptor)
    return None


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0][:300] if lines else "no details"

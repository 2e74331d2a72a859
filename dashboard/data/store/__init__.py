"""The history store: finished executions and their results, fetched once and kept locally.

Finished executions and their results never change, so the dashboard keeps them in an embedded
analytical database (DuckDB, one file per service and company; see `store.location`) instead of
asking the service again at every restart, cache expiry or viewer. What is kept:

- plans, replaced at each sync (they name an execution's plan and list its scenarios; an answer
  of no plans replaces nothing);
- finished executions, with their status counts and result ids, stored once: a running one is
  never stored, so nothing stored ever goes stale, and one the service sends again changed is
  kept as first stored and noted (`store.changes`);
- the results of finished executions (upsert by result id), and each (execution, scenario)
  pair whose results were fetched, so "this pair has no results" is remembered too.

Safe to interrupt and to run twice: every write is keyed by id inside one transaction, so a
killed sync leaves the store as it was after its last committed step. The schema has a version
and migrations; a file written by a newer program is rebuilt rather than misread. One writer at
a time: the sessions of one process share one `HistoryStore` whose lock serialises every use,
and the database is held only while an operation runs, so a second process (a cron sync beside
the dashboard) waits for it, within a bounded wait, and never opens around the lock.

Queries select in the database what a page needs and return frames with the columns and dtypes
of `dashboard.columns.schemas`. All SQL is in `store.sql`; the engine is behind the small
`store.engine.StoreEngine` interface: a DuckDB file per (service, company) by default
(`store.duckdb`), or, when `QA_DASHBOARD_STORE_URL` / `[store] url` names a PostgreSQL server,
a schema per (service, company) on it (`store.postgres`), shared by a team's processes.

This module is where a caller opens a store (`open_for`, `open_store`, `open_url`); the store is
`store.history.HistoryStore` (its writes `store.writing`), taking turns with its database is
`store.lease`, the frames in and out `store.frames`, its plain values `store.types`, who may
read it `store.access` and `store.readers`, who may clear it `store.operators`. No Streamlit
here.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

from dashboard.data.connection import Connection
from dashboard.data.store.duckdb import DuckDBEngine
from dashboard.data.store.errors import StoreError, StoreUnreadableError
from dashboard.data.store.frames import pairs_frame
from dashboard.data.store.history import HistoryStore
from dashboard.data.store.lease import LeaseOptions
from dashboard.data.store.location import (
    private_folder,
    service_address,
    store_path,
    store_schema,
    store_url,
)
from dashboard.data.store.types import (
    DEFAULT_IDLE,
    DEFAULT_WAIT,
    RESULT_IDS_COLUMNS,
    StoreIdentity,
    StoreInfo,
)

__all__ = [
    "DEFAULT_IDLE",
    "DEFAULT_WAIT",
    "RESULT_IDS_COLUMNS",
    "HistoryStore",
    "StoreIdentity",
    "StoreInfo",
    "identity_of",
    "open_for",
    "open_store",
    "open_url",
    "pairs_frame",
]

_LOG = logging.getLogger(__name__)


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
    options: LeaseOptions = {
        "identity": identity,
        "wait": wait,
        "idle": idle,
        "renew_unreadable": True,  # a file found damaged later is set aside then too
    }
    try:
        return HistoryStore.open(path, **options)
    except StoreUnreadableError as error:
        engine = DuckDBEngine(path)
        if not engine.exists:
            raise
        aside = engine.set_aside()
        _LOG.warning("history store %s could not be read (%s); set aside as %s", path, error, aside)
        return HistoryStore.open(path, **options)


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
    """The writable store of `connection`'s service and company: on the configured PostgreSQL
    server when there is one (`store.location.store_url`), else in the configured cache folder
    (`store.location`), the folder made owner-only if it is new. Raises `StoreError` (and
    `StoreBusyError` after `wait` seconds) when it cannot be used."""
    url = store_url(secrets=secrets, env=env)
    if url is not None:
        return open_url(url, connection, wait=wait, idle=idle)
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


def open_url(
    url: str,
    connection: Connection,
    *,
    read_only: bool = False,
    wait: float = DEFAULT_WAIT,
    idle: float = DEFAULT_IDLE,
) -> HistoryStore:
    """The store of `connection`'s service and company in its own schema of the PostgreSQL
    database at `url` (made and migrated on first use, by one process whoever comes first)."""
    from dashboard.data.store.postgres import PostgresEngine  # psycopg only when configured

    engine = PostgresEngine(url, store_schema(connection))
    identity = None if read_only else identity_of(connection)
    return HistoryStore.on(engine, read_only=read_only, wait=wait, idle=idle, identity=identity)

"""Fixtures of the history store tests: real DuckDB files in temporary folders, a real
PostgreSQL server (tests/pg_server.py), real HTTP.

`store` and `open_history` are parametrised over both engines: a test that takes either runs
once on a DuckDB file and once on a schema of a fresh PostgreSQL database (skipped locally when
no server can be had, failed in CI). `open_history.stored_bytes()` is everything the store holds
as bytes (the DuckDB files, or every row of every table of the PostgreSQL database), for scans.

Requests are counted where they go over the wire: the client is given an httpx transport that
counts every request it sends (by operation) before handing it to the real network transport.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from api_client import ApiClient, RetryPolicy
from dashboard.data.store import HistoryStore, StoreIdentity, open_store
from sandbox import Authority, DemoUser, RunningSandbox

REPO = Path(__file__).resolve().parents[2]
IDENTITY = StoreIdentity(service="http://127.0.0.1:9/Api", company_id=1)


class CountingTransport(httpx.BaseTransport):
    """The real transport, counting each request by operation ("results", "executions",
    "plans") as it is sent."""

    def __init__(self, inner: httpx.BaseTransport | None = None) -> None:
        self._inner = inner or httpx.HTTPTransport()
        self._lock = threading.Lock()
        self.sent: Counter[str] = Counter()
        self.results_paths: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        kind = (
            "results"
            if "/api/results/" in path
            else "executions"
            if "/api/executions/" in path
            else "plans"
            if "/api/plans/" in path
            else "other"
        )
        with self._lock:
            self.sent[kind] += 1
            if kind == "results":
                self.results_paths.append(path)
        return self._inner.handle_request(request)

    def close(self) -> None:
        self._inner.close()


ClientFactory = Callable[..., tuple[ApiClient, CountingTransport]]

QUICK_RETRIES = RetryPolicy(
    max_retries=8, max_server_error_retries=8, backoff_base=0.01, backoff_max=0.05
)


@pytest.fixture
def client_for() -> Iterator[ClientFactory]:
    """`client_for(sandbox, user)`: a real client whose requests are counted."""
    opened: list[httpx.Client] = []

    def make(
        running: RunningSandbox,
        who: DemoUser,
        *,
        timeout: float = 30.0,
        retry_policy: RetryPolicy | None = None,
    ) -> tuple[ApiClient, CountingTransport]:
        transport = CountingTransport()
        http = httpx.Client(transport=transport, timeout=timeout, follow_redirects=False)
        client = ApiClient(
            base_url=running.base_url,
            token=who.token,
            company_id=who.company_id,
            http_client=http,
            timeout=timeout,
            retry_policy=retry_policy,
        )
        opened.append(http)  # a client given an http_client leaves closing it to its owner
        return client, transport

    yield make
    for http in opened:
        http.close()


def lead_of(running: RunningSandbox, company_id: int = 1) -> DemoUser:
    """The company's full-authority user."""
    return next(
        u
        for u in running.users
        if u.company_id == company_id and len(u.authorities) == len(Authority)
    )


def lacking(running: RunningSandbox, authority: Authority, company_id: int = 1) -> DemoUser:
    return next(
        u
        for u in running.users
        if u.company_id == company_id
        and authority not in u.authorities
        and len(u.authorities) == len(Authority) - 1
    )


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    return folder / "history-test-c1.duckdb"


ENGINES = ("duckdb", "postgresql")
PG_SCHEMA = "history_test_c1"


class HistoryOpener:
    """Opens the one store of a test, on its engine, as often as the test likes."""

    def __init__(self, kind: str, path: Path, pg_url: str | None) -> None:
        self.kind = kind
        self.path = path
        self.pg_url = pg_url
        self.opened: list[HistoryStore] = []

    def __call__(self, **options: Any) -> HistoryStore:
        """The store, writable unless `read_only=True`; other options as `HistoryStore`'s."""
        options.setdefault("identity", None if options.get("read_only") else IDENTITY)
        if self.pg_url is None:
            if options.get("read_only"):
                options.pop("identity")
                store = HistoryStore.open(self.path, **options)
            else:
                store = open_store(self.path, **options)
        else:
            from dashboard.data.store.postgres import PostgresEngine

            store = HistoryStore.on(PostgresEngine(self.pg_url, PG_SCHEMA), **options)
        self.opened.append(store)
        return store

    def stored_bytes(self) -> bytes:
        """Everything the store keeps: its files, or every row of every table on the server."""
        if self.pg_url is None:
            return b"".join(f.read_bytes() for f in files_under(self.path.parent))
        return pg_dump_rows(self.pg_url)


def pg_dump_rows(url: str) -> bytes:
    """Every row of every table of every non-system schema of the database at `url`, as JSON."""
    import psycopg
    from psycopg import sql as pgsql

    chunks: list[bytes] = []
    with psycopg.connect(url, autocommit=True) as con:
        tables = con.execute(
            "SELECT schemaname, tablename FROM pg_tables "
            "WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"
        ).fetchall()
        for schema, table in tables:
            name = pgsql.Identifier(schema, table)
            rows = con.execute(
                pgsql.SQL("SELECT row_to_json(t)::text FROM {} AS t").format(name)
            ).fetchall()
            chunks.append(f"{schema}.{table}\n".encode())
            chunks.extend(row[0].encode() for row in rows)
    return b"\n".join(chunks)


@pytest.fixture(params=ENGINES)
def open_history(request: pytest.FixtureRequest, store_path: Path) -> Iterator[HistoryOpener]:
    """`open_history(**options)`: the test's store on a DuckDB file or a PostgreSQL schema."""
    url = request.getfixturevalue("pg_url") if request.param == "postgresql" else None
    opener = HistoryOpener(request.param, store_path, url)
    yield opener
    for opened in opener.opened:
        opened.close()
    if url is not None:
        from dashboard.data.store.pg_pool import close_pool

        close_pool(url)


@pytest.fixture
def store(open_history: HistoryOpener) -> Iterator[HistoryStore]:
    with open_history() as opened:
        yield opened


def secret_bytes(running: RunningSandbox) -> list[bytes]:
    """What must never be found in a store file: every bearer token and the access-token
    prefix the sandbox's `user_info` carries."""
    return [u.token.encode() for u in running.users] + [b"demo-at-"]


def files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())

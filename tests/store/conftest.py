"""Fixtures of the history store tests: real DuckDB files in temporary folders, real HTTP.

Requests are counted where they go over the wire: the client is given an httpx transport that
counts every request it sends (by operation) before handing it to the real network transport.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

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


@pytest.fixture
def store(store_path: Path) -> Iterator[HistoryStore]:
    with open_store(store_path, identity=IDENTITY) as opened:
        yield opened


def secret_bytes(running: RunningSandbox) -> list[bytes]:
    """What must never be found in a store file: every bearer token and the access-token
    prefix the sandbox's `user_info` carries."""
    return [u.token.encode() for u in running.users] + [b"demo-at-"]


def files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())

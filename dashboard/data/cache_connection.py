"""What this process keeps per connection under the caches of `cache` and `cache_history`: its
client, the generation of its data (Refresh), and the service's answer on whether its credential
may see stored history. Together they make `data_key`, what its cached data is keyed by.

A `Connection` is hashed by its fingerprint (service, company and a SHA-256 of the token), so the
token is never part of a cache key, and viewers with different tokens never share data. The data
caches also key on the connection's *generation*, which `cache.refresh` moves on: Refresh then
reloads that connection's data only (Streamlit's `.clear()` would empty every viewer's), and at
most once per `REFRESH_INTERVAL` however many viewers press it. And they key on the 15-minute
slot of the store's access check (`store.access`): nothing kept for a credential outlives the
check that let it be shown, so a token revoked in one slot sees none of it, stored history or
cached answers, from the next slot on (a cached entry would otherwise be reused for up to
`DATA_TTL` after the check that withholds the store).

`GENERATIONS` and `STORE_ACCESS` are read through this module at each use, so a test may put
its own in their place.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar

import streamlit as st

from api_client import ApiClient, ApiTimeoutError
from api_client.errors import RequestValidationError
from api_client.operations import Operation
from dashboard.data import service_budget
from dashboard.data.connection import Connection, api_client
from dashboard.data.store import access as store_access

F = TypeVar("F", bound=Callable[..., Any])

DATA_TTL = timedelta(minutes=5)
"""How long loaded data is reused before it is fetched again (Refresh fetches at once)."""

REFRESH_INTERVAL = timedelta(seconds=10)
"""Refresh reloads one connection's data at most this often (a viewer's click, or anyone's)."""


class Generations:
    """Per connection fingerprint: which generation of its data is current, and since when.

    Thread-safe (every session's script thread uses it). An entry is forgotten once its data
    has outlived `DATA_TTL`: by then every cache entry of an older generation has expired too.
    """

    def __init__(self, *, interval: timedelta, ttl: timedelta) -> None:
        self._interval = interval.total_seconds()
        self._ttl = ttl.total_seconds()
        self._lock = threading.Lock()
        self._current: dict[str, tuple[int, float]] = {}  # fingerprint -> (generation, when)
        self._counter = 0

    def of(self, fingerprint: str) -> int:
        with self._lock:
            return self._current.get(fingerprint, (0, 0.0))[0]

    def advance(self, fingerprint: str, *, now: float) -> bool:
        """Start a new generation, unless the last one began less than `interval` ago."""
        with self._lock:
            _, since = self._current.get(fingerprint, (0, float("-inf")))
            if now - since < self._interval:
                return False
            self._current = {
                key: value for key, value in self._current.items() if now - value[1] < self._ttl
            }
            self._counter += 1
            self._current[fingerprint] = (self._counter, now)
            return True

    def seconds_until_next(self, fingerprint: str, *, now: float) -> float:
        with self._lock:
            _, since = self._current.get(fingerprint, (0, float("-inf")))
        return max(0.0, self._interval - (now - since))


GENERATIONS = Generations(interval=REFRESH_INTERVAL, ttl=DATA_TTL)


def data_key(connection: Connection) -> str:
    """What a connection's cached data is keyed by: its fingerprint (a hash, never the token),
    its generation (Refresh) and the access check's slot (see the module)."""
    fingerprint = connection.fingerprint
    return f"{fingerprint}:{GENERATIONS.of(fingerprint)}:{STORE_ACCESS.slot()}"


# The client is one per connection, whatever the generation; data is per generation too.
BY_FINGERPRINT: dict[str | type[Any], Callable[[Any], Any]] = {
    Connection: lambda connection: connection.fingerprint
}
BY_GENERATION: dict[str | type[Any], Callable[[Any], Any]] = {Connection: data_key}


@st.cache_resource(
    hash_funcs=BY_FINGERPRINT,
    show_spinner=False,
    max_entries=32,
    ttl=timedelta(hours=8),
    on_release=lambda client: client.close(),
)
def client(connection: Connection) -> ApiClient:
    """One HTTP client (and connection pool) per service and token (or token source)."""
    return api_client(connection, timeout=30.0, max_retries=3)


TIMEOUTS = service_budget.RecentTimeouts()
"""Connections whose service just timed out: their requests wait (`service_budget`)."""


def one_budget(operation: Operation) -> Callable[[F], F]:
    """A loader of `operation` that sends nothing while its connection's service has just
    timed out (the page has spent its time budget), and notes a timeout of its own."""

    def decorate(load: F) -> F:
        @functools.wraps(load)
        def within_budget(connection: Connection, *args: Any, **kwargs: Any) -> Any:
            retry_in = TIMEOUTS.retry_in(connection.fingerprint)
            if retry_in is not None:
                raise service_budget.timed_out(operation, retry_in)
            try:
                return load(connection, *args, **kwargs)
            except ApiTimeoutError:
                TIMEOUTS.note(connection.fingerprint)
                raise

        return within_budget  # type: ignore[return-value]

    return decorate


def _ask_service(connection: Connection) -> store_access.Access:
    if TIMEOUTS.retry_in(connection.fingerprint) is not None:
        # The service just timed out: the page has spent its time on it (`service_budget`).
        return store_access.Access(False, "unchecked", definitive=False, timed_out=True)
    try:
        api = client(connection)
    except RequestValidationError:
        # A credential the client will not send (a space in the token) is refused here; the
        # page says why through its own request.
        return store_access.Access(False, "refused")
    answer = store_access.ask_service(connection, api)
    if answer.timed_out:
        TIMEOUTS.note(connection.fingerprint)
    return answer


STORE_ACCESS = store_access.AccessChecks(_ask_service)
"""Whether the service accepts a connection's credential for its company, asked at most once
per connection and 15-minute slot (`store.access`)."""

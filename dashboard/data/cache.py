"""The thin Streamlit caching layer over `live`: the client as a resource, frames as data.

Cached functions take plain arguments (a `Connection` and values), never read widgets or the
URL. A `Connection` is hashed by its fingerprint (service, company and a SHA-256 of the token),
so the token is never part of a cache key, and viewers with different tokens never share data.
The data caches also key on the connection's *generation*, which `refresh` moves on: Refresh
then reloads that connection's data only (Streamlit's `.clear()` would empty every viewer's),
and at most once per `REFRESH_INTERVAL` however many viewers press it.
Only frames, counts and typed errors are cached, never model objects: nothing sensitive is
pickled. This is the one module of the data layer that imports Streamlit.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import Any

import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitSecretNotFoundError

from api_client import ApiClient, ExecutionQuery
from api_client.errors import RequestValidationError
from dashboard.analytics import plans as plan_analytics
from dashboard.data import demo, live, results_fanout, store, store_access, stored_results
from dashboard.data.connection import Connection
from dashboard.data.pairs import result_pairs
from dashboard.data.store import HistoryStore
from dashboard.data.store_errors import StoreError

_LOG = logging.getLogger(__name__)

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

# The client is one per connection, whatever the generation; data is per generation too.
_BY_FINGERPRINT: dict[str | type[Any], Callable[[Any], Any]] = {
    Connection: lambda connection: connection.fingerprint
}
_BY_GENERATION: dict[str | type[Any], Callable[[Any], Any]] = {
    Connection: lambda connection: (
        f"{connection.fingerprint}:{GENERATIONS.of(connection.fingerprint)}"
    )
}


@st.cache_resource(show_spinner="Starting the demo service…")
def demo_service() -> demo.DemoService:
    """The embedded sandbox: started once per process, shared by every session."""
    return demo.start()


@st.cache_resource(
    hash_funcs=_BY_FINGERPRINT,
    show_spinner=False,
    max_entries=32,
    ttl=timedelta(hours=8),
    on_release=lambda client: client.close(),
)
def client(connection: Connection) -> ApiClient:
    """One HTTP client (and connection pool) per service and token."""
    return ApiClient(
        base_url=connection.base_url,
        token=connection.token,
        company_id=connection.company_id,
        timeout=30.0,
        max_retries=3,
        verify=connection.ca_bundle or True,
    )


@st.cache_data(ttl=DATA_TTL, hash_funcs=_BY_GENERATION, show_spinner="Loading test plans…")
def plans(connection: Connection, *, active_only: bool) -> live.PlansData:
    return live.load_plans(client(connection), active_only=active_only)


@st.cache_data(ttl=DATA_TTL, hash_funcs=_BY_GENERATION, show_spinner=False)
def executions(connection: Connection, query: ExecutionQuery) -> live.ExecutionsData:
    # The bar is created inside the cached function so Streamlit can replay it on a cache hit
    # (where it is emptied at once); a bar created by the caller could not be replayed.
    bar = st.progress(0.0, text="Loading executions…")

    def on_progress(done: int, total: int) -> None:
        bar.progress(done / max(total, 1), text=f"Loading executions: page {done} of {total}")

    try:
        return live.load_executions(client(connection), query, on_progress=on_progress)
    finally:
        bar.empty()


def execution_results(
    connection: Connection, *, execution_id: int, scenario_ids: tuple[int, ...]
) -> live.ResultsData:
    """One execution's results: from the history store when it holds them all (a finished
    execution a sync or an earlier visit stored: no request), else from the service."""
    history = history_store(connection)
    if history is not None:
        try:
            kept = stored_results.execution_results(
                history, execution_id=execution_id, scenario_ids=scenario_ids
            )
        except StoreError as error:
            _LOG.warning("history store not read: %s", type(error).__name__)
            kept = None
        if kept is not None:
            return kept
    return _live_execution_results(connection, execution_id=execution_id, scenario_ids=scenario_ids)


@st.cache_data(
    ttl=DATA_TTL, hash_funcs=_BY_GENERATION, show_spinner="Loading the scenarios' results…"
)
def _live_execution_results(
    connection: Connection, *, execution_id: int, scenario_ids: tuple[int, ...]
) -> live.ResultsData:
    return live.load_execution_results(
        client(connection), execution_id=execution_id, scenario_ids=scenario_ids
    )


def find_execution(
    connection: Connection,
    execution_id: int,
    *,
    listed: ExecutionQuery,
    started: datetime | None,
    plan_id: int | None,
) -> live.FoundExecution:
    """The execution a results link names (`live.find_execution`), every query cached.

    It is first looked for with `listed`, the executions page's own query for the link's
    filters, which that page has usually just loaded; the results it may load to learn when the
    execution ran (on `plan_id`) are the ones the results page shows next.
    """

    def results_on(plan: int) -> Callable[[], live.ResultsData]:
        def results() -> live.ResultsData:
            every_plan = plans(connection, active_only=False).plans
            scenarios = plan_analytics.plan_scenarios(every_plan, plan) or ()
            return execution_results(connection, execution_id=execution_id, scenario_ids=scenarios)

        return results

    return live.find_execution(
        execution_id,
        listed=listed,
        started=started,
        load=lambda query: executions(connection, query),
        results=results_on(plan_id) if plan_id is not None else None,
    )


def _ask_service(connection: Connection) -> store_access.Access:
    try:
        api = client(connection)
    except RequestValidationError:
        # A credential the client will not send (a space in the token) is refused here; the
        # page says why through its own request.
        return store_access.Access(False, "refused")
    return store_access.ask_service(connection, api)


STORE_ACCESS = store_access.AccessChecks(_ask_service)
"""Whether the service accepts a connection's credential for its company, asked at most once
per connection and 15-minute slot (`store_access`)."""


def history_store(connection: Connection) -> HistoryStore | None:
    """The connection's history store when the service accepts its credential for its company
    in this 15-minute slot (`store_access`); else None, and the page fetches from the service
    what it may see, as without a store."""
    if not STORE_ACCESS.access(connection).allowed:
        return None
    return _history_store(connection)


@st.cache_resource(hash_funcs=_BY_FINGERPRINT, show_spinner=False, max_entries=16)
def _history_store(connection: Connection) -> HistoryStore | None:
    """The connection's history store, shared by every session of this process (it serialises
    its writers); None when it cannot be opened (the pages then fetch everything live)."""
    try:
        return store.open_for(connection, secrets=secrets(), env=os.environ, wait=2.0)
    except (OSError, StoreError) as error:
        _LOG.warning("history store unavailable: %s", type(error).__name__)
        return None


@st.cache_data(ttl=timedelta(seconds=30), hash_funcs=_BY_FINGERPRINT, show_spinner=False)
def store_meta(connection: Connection) -> dict[str, str]:
    """What the connection's history store records about itself (its last sync and by whom);
    {} when there is no store or it is busy. Read at most every 30 s: a worker may hold it."""
    history = history_store(connection)
    if history is None:
        return {}
    try:
        return history.meta()
    except StoreError:
        return {}


@st.cache_data(ttl=DATA_TTL, hash_funcs=_BY_GENERATION, show_spinner=False)
def _fan_out(
    connection: Connection, pairs: tuple[tuple[int, int], ...], finished: tuple[int, ...]
) -> results_fanout.FanOut:
    bar = st.progress(0.0, text="Loading results…")
    executions = len({execution for execution, _ in pairs})

    def on_progress(done: int, total: int) -> None:
        bar.progress(
            done / max(total, 1),
            text=f"Loading the results of {executions:,} executions: {done:,} of {total:,} "
            "requests",
        )

    try:
        return results_fanout.fetch_results(
            client(connection),
            pairs,
            finished=finished,
            store=history_store(connection),
            on_progress=on_progress,
        )
    finally:
        bar.empty()


def history_results(
    connection: Connection, execution_ids: Iterable[int], executions: pd.DataFrame
) -> results_fanout.FanOut:
    """The results of some executions (rows of `executions`), from the history store where it
    has them, else fetched several at a time; finished executions' results are kept."""
    every_plan = plans(connection, active_only=False).plans
    pairs, finished = result_pairs(executions, every_plan, execution_ids)
    return _fan_out(connection, pairs, finished)


def secrets() -> dict[str, Any]:
    """`.streamlit/secrets.toml` as a dictionary ({} when there is none)."""
    try:
        return st.secrets.to_dict() if st.secrets.load_if_toml_exists() else {}
    except StreamlitSecretNotFoundError:
        return {}


def refresh(connection: Connection, *, now: float | None = None) -> bool:
    """Load `connection`'s data afresh on the next run; other connections' data is kept.

    False (nothing done) when its data was refreshed less than `REFRESH_INTERVAL` ago: one
    viewer pressing Refresh in a loop cannot make the dashboard reload all the time.
    """
    return GENERATIONS.advance(connection.fingerprint, now=time.monotonic() if now is None else now)


def seconds_until_refresh(connection: Connection) -> float:
    """How long until `refresh(connection)` would reload again (0: now)."""
    return GENERATIONS.seconds_until_next(connection.fingerprint, now=time.monotonic())


def clear_all() -> None:
    """Forget every connection's loaded data (tests start from the service with this)."""
    plans.clear()
    executions.clear()
    _live_execution_results.clear()
    _fan_out.clear()

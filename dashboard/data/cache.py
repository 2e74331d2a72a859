"""The thin Streamlit caching layer over `live`: the client as a resource, frames as data.

Cached functions take plain arguments (a `Connection` and values), never read widgets or the
URL. A `Connection` is hashed by its fingerprint (service, company and a SHA-256 of the token),
so the token is never part of a cache key, and viewers with different tokens never share data.
The data caches also key on the connection's *generation*, which `refresh` moves on: Refresh
then reloads that connection's data only (Streamlit's `.clear()` would empty every viewer's),
and at most once per `REFRESH_INTERVAL` however many viewers press it. And they key on the
15-minute slot of the store's access check (`store_access`): nothing kept for a credential
outlives the check that let it be shown, so a token revoked in one slot sees none of it, stored
history or cached answers, from the next slot on (a cached entry would otherwise be reused for
up to `DATA_TTL` after the check that withholds the store).
Only frames, counts and typed errors are cached, never model objects: nothing sensitive is
pickled. This is the one module of the data layer that imports Streamlit.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import Any, TypeVar

import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitSecretNotFoundError

from api_client import ApiClient, ApiTimeoutError, ExecutionQuery
from api_client.errors import RequestValidationError
from api_client.operations import Operation
from dashboard.analytics.cells import time_extent
from dashboard.data import (
    demo,
    frames,
    live,
    results_fanout,
    service_budget,
    store,
    store_access,
    store_status,
)
from dashboard.data.connection import Connection
from dashboard.data.pairs import result_pairs
from dashboard.data.store import HistoryStore
from dashboard.data.store_errors import StoreError

_LOG = logging.getLogger(__name__)
T = TypeVar("T")
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
_BY_FINGERPRINT: dict[str | type[Any], Callable[[Any], Any]] = {
    Connection: lambda connection: connection.fingerprint
}
_BY_GENERATION: dict[str | type[Any], Callable[[Any], Any]] = {Connection: data_key}


TIMEOUTS = service_budget.RecentTimeouts()
"""Connections whose service just timed out: their requests wait (`service_budget`)."""


def _one_budget(operation: Operation) -> Callable[[F], F]:
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
@_one_budget(Operation.PLANS)
def plans(connection: Connection, *, active_only: bool) -> live.PlansData:
    return live.load_plans(client(connection), active_only=active_only)


@st.cache_data(ttl=DATA_TTL, hash_funcs=_BY_GENERATION, show_spinner=False)
@_one_budget(Operation.EXECUTIONS)
def executions(connection: Connection, query: ExecutionQuery) -> live.ExecutionsData:
    # The bar is created inside the cached function so Streamlit can replay it on a cache hit
    # (where it is emptied at once); a bar created by the caller could not be replayed.
    bar = st.progress(0.0, text="Loading executions…")

    def on_progress(done: int, total: int) -> None:
        bar.progress(done / max(total, 1), text=f"Loading executions: page {done} of {total}")

    try:
        loaded = live.load_executions(client(connection), query, on_progress=on_progress)
    finally:
        bar.empty()
    LOADED.note(_loaded_key(connection, query))
    return dataclasses.replace(loaded, loaded_at=time.time())


class Loaded:
    """Which executions queries this process holds loaded (thread-safe): a narrower view of a
    loaded window (one plan or project of it) is then cut from it instead of fetched again.
    An entry is trusted for a little less than `DATA_TTL`, the life of the cached data."""

    def __init__(self, *, ttl: timedelta) -> None:
        self._ttl = ttl.total_seconds() - 15.0
        self._lock = threading.Lock()
        self._when: dict[str, float] = {}

    def note(self, key: str, *, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        with self._lock:
            self._when = {k: t for k, t in self._when.items() if now - t < self._ttl}
            self._when[key] = now

    def holds(self, key: str, *, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        with self._lock:
            since = self._when.get(key)
        return since is not None and now - since < self._ttl

    def forget(self) -> None:
        with self._lock:
            self._when = {}


LOADED = Loaded(ttl=DATA_TTL)


def _loaded_key(connection: Connection, query: ExecutionQuery) -> str:
    # As the data cache is keyed (`data_key`: a hash, never the token).
    return f"{data_key(connection)}:{query!r}"


def executions_in_scope(connection: Connection, query: ExecutionQuery) -> live.ExecutionsData:
    """`executions(connection, query)`, but when the same window without its plan and project
    filters is already loaded, cut from it (no request): changing the plan or project on the
    executions page, or opening a results link from it, does not fetch the window again."""
    if query.plan_id is None and query.project_id is None:
        return executions(connection, query)
    wider = dataclasses.replace(query, plan_id=None, project_id=None)
    if LOADED.holds(_loaded_key(connection, wider)):
        return live.narrowed(
            executions(connection, wider), plan_id=query.plan_id, project_id=query.project_id
        )
    return executions(connection, query)


def execution_results(
    connection: Connection,
    *,
    execution_id: int,
    scenario_ids: tuple[int, ...],
    finished: bool,
) -> live.ResultsData:
    """One execution's results: a finished execution's from the history store when it holds
    them (no request, even after a restart), else fetched and kept there; a running
    execution's always fetched, never stored."""
    pairs = tuple((int(execution_id), int(s)) for s in dict.fromkeys(scenario_ids))
    fan_out = _fan_out(connection, pairs, (int(execution_id),) if finished else ())
    return live.results_of_fan_out(fan_out, scenarios=len(pairs))


@st.cache_data(ttl=DATA_TTL, hash_funcs=_BY_GENERATION, show_spinner=False)
@_one_budget(Operation.TEST_RESULTS)
def _results_by_id(
    connection: Connection, execution_id: int, plan_id: int | None
) -> live.ResultsData:
    """A few of an execution's results, read from the history store or asked for by its id:
    the first scenario of its plan (of every plan when the link names none). They tell when it
    ran and on which plan; the service answers "no such execution" when it has none. Nothing
    is stored: whether the execution is finished is not known yet."""
    kept = history_store(connection)
    if kept is not None:
        try:  # only when and on which plan it ran is read from them: the header is asked for
            stored = kept.results([execution_id])
        except StoreError as error:
            _LOG.warning("history store not read: %s", type(error).__name__)
        else:
            if not stored.empty:
                return live.ResultsData(results=stored, scenarios=0)
    every_plan = plans(connection, active_only=False).plans
    candidates = every_plan if plan_id is None else every_plan[every_plan["plan_id"] == plan_id]
    scenarios = tuple(dict.fromkeys(int(ids[0]) for ids in candidates["scenario_ids"] if len(ids)))
    fan_out = results_fanout.fetch_results(
        client(connection), [(execution_id, s) for s in scenarios], finished=()
    )
    return live.results_of_fan_out(fan_out, scenarios=len(scenarios))


@st.cache_data(ttl=DATA_TTL, hash_funcs=_BY_GENERATION, show_spinner=False)
def _stored_around(connection: Connection, execution_id: int) -> live.ExecutionsData | None:
    """The stored executions of the plan of `execution_id` around its start, when the history
    store holds its results (None otherwise): finding a stored execution sends no request."""
    kept = history_store(connection)
    if kept is None:
        return None
    try:
        results = kept.results([execution_id])
        extent = time_extent(results["start"])
        plan_ids = results["plan_id"].dropna()
        if extent is None:
            return None
        date_from, date_to = extent[0] - live.RESULT_LEAD, extent[0] + live.START_MARGIN
        plan_id = int(plan_ids.iloc[0]) if len(plan_ids) else None
        executions = kept.executions(date_from=date_from, date_to=date_to, plan_id=plan_id)
        statuses = kept.status_counts(date_from=date_from, date_to=date_to, plan_id=plan_id)
    except StoreError as error:
        _LOG.warning("history store not read: %s", type(error).__name__)
        return None
    return live.ExecutionsData(frames.executions_of_history(executions, statuses), statuses.copy())


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
    filters, which that page has usually just loaded; then in the history store, whatever the
    window; then around the link's start time, or by its id through the results operation
    (on `plan_id`, else on every plan).
    """
    return live.find_execution(
        execution_id,
        listed=listed,
        started=started,
        load=lambda query: executions_in_scope(connection, query),
        results=lambda: _results_by_id(connection, execution_id, plan_id),
        stored=lambda: _stored_around(connection, execution_id),
    )


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
per connection and 15-minute slot (`store_access`)."""


def clear_history(connection: Connection) -> int | None:
    """Empty `connection`'s history store (no other connection's); how many results it held,
    or None when it has no usable store. What the store said about itself (its last sync) is
    read again; results already loaded in this process stay loaded until they expire or
    Refresh is pressed (they are what the service serves), and are not written back."""
    kept = history_store(connection)
    if kept is None or kept.read_only:
        return None
    try:
        held = kept.clear()
    except StoreError as error:
        _LOG.warning("history store not cleared: %s", type(error).__name__)
        return None
    store_meta.clear()  # every connection's: a cheap read, and this one's "synced" line is gone
    return held


OPEN_FAILURES = store_status.OpenFailures()
"""Stores that could not be opened, remembered a few seconds (`store_status`)."""


def history_store(connection: Connection) -> HistoryStore | None:
    """The connection's history store when the service accepts its credential for its company
    in this 15-minute slot (`store_access`) and it can be opened; else None, and the page
    fetches from the service what it may see, as without a store (`history_status` says why)."""
    if not STORE_ACCESS.access(connection).allowed:
        return None
    if OPEN_FAILURES.recent(connection.fingerprint) is not None:
        return None
    try:
        return _history_store(connection)
    except (OSError, StoreError) as error:
        _LOG.warning("history store unavailable: %s", type(error).__name__)
        OPEN_FAILURES.note(connection.fingerprint, _open_failure(error))
        return None


def history_status(connection: Connection) -> store_status.HistoryStatus:
    """Whether `connection`'s pages use its history store, and if not, why (for a notice)."""
    access = STORE_ACCESS.access(connection)
    if not access.allowed:
        return store_status.HistoryStatus("withheld", access.reason)
    if history_store(connection) is not None:
        return store_status.ON
    return OPEN_FAILURES.recent(connection.fingerprint) or store_status.HistoryStatus(
        "off", "The history store could not be opened.", retry_in=0.0
    )


def _open_failure(error: OSError | StoreError) -> str:
    """Why a store could not be opened, in a sentence fit for a page: a store error's message
    (it names the file, or the server without its password), an OS error's reason only."""
    if isinstance(error, StoreError):
        return error.message
    return f"The history store folder cannot be used ({error.strerror or type(error).__name__})."


@st.cache_resource(
    hash_funcs=_BY_FINGERPRINT,
    show_spinner=False,
    max_entries=16,
    on_release=lambda kept: kept.close(),
)
def _history_store(connection: Connection) -> HistoryStore:
    """The connection's history store, shared by every session of this process (it serialises
    its writers). An open that fails raises, and Streamlit keeps no exception: the next use
    tries again (`history_store` catches it), so a store that comes back is used again."""
    return store.open_for(connection, secrets=secrets(), env=os.environ, wait=2.0)


@st.cache_data(ttl=timedelta(seconds=30), hash_funcs=_BY_GENERATION, show_spinner=False)
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
@_one_budget(Operation.TEST_RESULTS)
def _fan_out(
    connection: Connection, pairs: tuple[tuple[int, int], ...], finished: tuple[int, ...]
) -> results_fanout.FanOut:
    bar = st.progress(0.0, text="Loading results…")
    executions = len({execution for execution, _ in pairs})

    def on_progress(done: int, total: int) -> None:
        noun = "execution" if executions == 1 else "executions"
        bar.progress(
            done / max(total, 1),
            text=f"Loading the results of {executions:,} {noun}: {done:,} of {total:,} requests",
        )

    try:
        return results_fanout.fetch_results(
            client(connection),
            pairs,
            finished=finished,
            store=history_store(connection),
            on_progress=on_progress,
            # The store is per service and company: a token shown none of it until it proves
            # it may read results (a fingerprint, never the token, is what is remembered).
            reader=connection.fingerprint,
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


def scenario_results(
    connection: Connection, execution_ids: Iterable[int], scenario_id: int, executions: pd.DataFrame
) -> results_fanout.FanOut:
    """One scenario's results in some executions (rows of `executions`), whatever their plans
    list now. `history_results` asks for each plan's current scenarios; a scenario its plan has
    dropped since is asked for here, so a link to its past runs still opens them."""
    wanted = tuple(dict.fromkeys(int(i) for i in execution_ids))
    rows = executions[executions["execution_id"].isin(wanted)]
    finished = tuple(
        sorted(
            {int(e) for e, done in zip(rows["execution_id"], rows["finished"], strict=True) if done}
        )
    )
    return _fan_out(connection, tuple((e, int(scenario_id)) for e in wanted), finished)


@st.cache_resource(ttl=DATA_TTL, max_entries=12, show_spinner=False)
def _built(key: str, _build: Callable[[], Any]) -> Any:
    return _build()


def built(
    connection: Connection, name: str, inputs: tuple[object, ...], build: Callable[[], T]
) -> T:
    """What `build` makes of loaded data (a display table, figures, KPIs), made once per
    `inputs` and shared, not copied: a rerun that changed nothing rebuilds nothing. `inputs`
    must name everything `build` depends on (a query, the filters applied locally, the data's
    `loaded_at`); the key is a hash of them and the connection's fingerprint, never a token.
    What is returned is shared between reruns and viewers of the connection: never mutate it.
    """
    material = "\n".join((data_key(connection), name, repr(inputs)))
    return _built(hashlib.sha256(material.encode()).hexdigest(), build)


def secrets() -> dict[str, Any]:
    """`.streamlit/secrets.toml` as a dictionary ({} when there is none)."""
    try:
        return st.secrets.to_dict() if st.secrets.load_if_toml_exists() else {}
    except StreamlitSecretNotFoundError:
        return {}


def refresh(connection: Connection, *, now: float | None = None) -> bool:
    """Load `connection`'s data afresh on the next run; other connections' data is kept. The
    service is asked again whether the credential may see the stored history, and a store that
    could not be opened is tried again at once.

    False (nothing done) when its data was refreshed less than `REFRESH_INTERVAL` ago: one
    viewer pressing Refresh in a loop cannot make the dashboard reload all the time.
    """
    advanced = GENERATIONS.advance(
        connection.fingerprint, now=time.monotonic() if now is None else now
    )
    if advanced:
        STORE_ACCESS.forget(connection)
        OPEN_FAILURES.forget(connection.fingerprint)
        TIMEOUTS.forget(connection.fingerprint)
    return advanced


def seconds_until_refresh(connection: Connection) -> float:
    """How long until `refresh(connection)` would reload again (0: now)."""
    return GENERATIONS.seconds_until_next(connection.fingerprint, now=time.monotonic())


def clear_all() -> None:
    """Forget every connection's loaded data, its stores (closed) and what they and the service
    said about them (tests start from the service with this)."""
    _history_store.clear()
    store_meta.clear()
    STORE_ACCESS.forget_all()
    OPEN_FAILURES.forget()
    TIMEOUTS.forget_all()
    plans.clear()
    executions.clear()
    LOADED.forget()
    _built.clear()
    _results_by_id.clear()
    _stored_around.clear()
    _fan_out.clear()

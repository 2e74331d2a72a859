"""The thin Streamlit caching layer over `live`, and the one the pages use: the client as a
resource, frames as data (the executions of a window as a resource: one object, no pickle).

Cached functions take plain arguments (a `Connection` and values), never read widgets or the
URL, and key on `cache_connection.data_key` (a hash of the connection, never its token; its
Refresh generation; the store access check's slot). Only frames, counts and typed errors are
cached, never model objects: nothing sensitive is pickled. What the process keeps beside them
(windows held across keys, one object per load, short answers' attempts) is in `cachetools`
maps under a lock (`Timed`).

What is kept per connection (its client, its generation, its store access) is
`cache_connection`'s, and its history store `cache_history`'s; the names pages use from them are
re-exported here, so a page needs this module only. These three are the modules of the data
layer that import Streamlit.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import logging
import math
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar

import pandas as pd
import streamlit as st
from cachetools import FIFOCache, TTLCache

from api_client import ExecutionQuery
from api_client.operations import Operation
from dashboard.analytics.evidence import Expected, expected_failures
from dashboard.columns.cells import time_extent
from dashboard.data import (
    cache_connection,
    cache_history,
    cache_names,
    demo,
    fetch_jobs,
    frames,
    live,
    results_fanout,
)
from dashboard.data.cache_connection import BY_GENERATION, data_key, one_budget

# What pages use of the two modules beneath, named here so a page needs this module only.
from dashboard.data.cache_connection import DATA_TTL as DATA_TTL
from dashboard.data.cache_connection import REFRESH_INTERVAL as REFRESH_INTERVAL
from dashboard.data.cache_connection import client as client
from dashboard.data.cache_history import clear_history as clear_history
from dashboard.data.cache_history import history_status as history_status
from dashboard.data.cache_history import history_store as history_store
from dashboard.data.cache_history import secrets as secrets
from dashboard.data.cache_history import store_meta as store_meta
from dashboard.data.connection import Connection
from dashboard.data.fanout_answer import FanOut, PairFailure
from dashboard.data.pairs import result_pairs
from dashboard.data.store.errors import StoreError

_LOG = logging.getLogger(__name__)
T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")


@st.cache_resource(show_spinner="Starting the demo service…")
def demo_service() -> demo.DemoService:
    """The embedded sandbox: started once per process, shared by every session."""
    return demo.start()


@st.cache_data(ttl=DATA_TTL, hash_funcs=BY_GENERATION, show_spinner="Loading test plans…")
@one_budget(Operation.PLANS)
def plans(connection: Connection, *, active_only: bool) -> live.PlansData:
    return live.load_plans(client(connection), active_only=active_only)


# A resource, not data: every run gets the one object loaded, never mutated (as `built`'s
# values), where Streamlit's data cache kept a pickle of it beside the object (30 MB for the 90
# days at 100,000 executions, 45 MB of the benchmark journey's peak) and unpickled a copy at
# every run (about 55 ms for the 90 days). Replaying the bar works the same.
@st.cache_resource(ttl=DATA_TTL, hash_funcs=BY_GENERATION, show_spinner=False)
@one_budget(Operation.EXECUTIONS)
def executions(connection: Connection, query: ExecutionQuery) -> live.ExecutionsData:
    # The bar is created inside the cached function so Streamlit can replay it on a cache hit
    # (where it is emptied at once); a bar created by the caller could not be replayed.
    bar = st.progress(0.0, text="Loading executions…")

    @throttled
    def on_progress(done: int, total: int) -> None:
        bar.progress(done / max(total, 1), text=f"Loading executions: page {done} of {total}")

    window = _window_key(connection, query)
    held = HELD.get(window, query) if window is not None else None
    try:
        if held is None:
            loaded = live.load_executions(client(connection), query, on_progress=on_progress)
        else:  # the same window a little earlier: only what is newer is fetched
            loaded = live.load_newer(client(connection), held, query, on_progress=on_progress)
    finally:
        bar.empty()
    if window is not None:
        HELD.put(window, query, loaded)
    key = _loaded_key(connection, query)
    with LOADED.at() as queries:
        queries[key] = True
    return dataclasses.replace(loaded, loaded_at=time.time())


class Timed(Generic[K, V]):
    """A `cachetools.TTLCache` with the lock its use needs (its caches are not thread-safe),
    read and written `at` a moment: a call's `now` (tests), else the monotonic clock. An entry
    lives `max_age` from when it was last written; past `max_entries`, the least recently used
    goes first."""

    def __init__(self, *, max_entries: float, max_age: timedelta) -> None:
        self._lock = threading.Lock()
        self._now = 0.0
        ttl = max_age.total_seconds()
        self._cache: TTLCache[K, V] = TTLCache(max_entries, ttl, timer=lambda: self._now)

    @contextlib.contextmanager
    def at(self, now: float | None = None) -> Iterator[TTLCache[K, V]]:
        with self._lock:
            self._now = time.monotonic() if now is None else now
            yield self._cache

    def forget(self) -> None:
        with self.at() as cache:
            cache.clear()


class HeldWindows(Timed[str, tuple[datetime, live.ExecutionsData]]):
    """The executions of the open-ended windows ("the last 90 days") this process loaded last,
    per connection data and filters, with the start each was loaded from: when the clock moves
    the window's start on (`state.query.PERIOD_GRANULARITY`), or its cached data expires, the
    window is made from the held one by fetching only what is newer (`live.load_newer`), not
    walked again. A few windows are held, each for at most `max_age`: beyond that, and after
    Refresh (a new generation in the key), a window is walked whole again."""

    def get(
        self, key: str, query: ExecutionQuery, *, now: float | None = None
    ) -> live.ExecutionsData | None:
        """The held executions of `key` when they start no later than `query`."""
        if query.date_from is None:
            return None
        with self.at(now) as held:
            entry = held.get(key)
        return entry[1] if entry is not None and entry[0] <= query.date_from else None

    def put(
        self,
        key: str,
        query: ExecutionQuery,
        data: live.ExecutionsData,
        *,
        now: float | None = None,
    ) -> None:
        if query.date_from is not None:
            with self.at(now) as held:
                held[key] = (query.date_from, data)


HELD = HeldWindows(max_entries=4, max_age=3 * DATA_TTL)


def _holds_earlier(connection: Connection, query: ExecutionQuery) -> bool:
    """Whether `query`'s window is held from an earlier start: loading it fetches only what
    is newer."""
    window = _window_key(connection, query)
    return window is not None and HELD.get(window, query) is not None


def _window_key(connection: Connection, query: ExecutionQuery) -> str | None:
    """What a held open-ended window is filed under: the connection's fingerprint (a hash,
    never the token) and data generation (Refresh), and every filter but the start (None for
    a window with an end: it is loaded as asked). Not the access check's slot, which the
    cached data keys on: a window made from a held one always asks the service first, with
    the same credential, for what is newer, so a credential refused since sees nothing."""
    if query.date_from is None or query.date_to is not None:
        return None
    fingerprint = connection.fingerprint
    generation = cache_connection.GENERATIONS.of(fingerprint)
    return f"{fingerprint}:{generation}:{query.with_changes(date_from=None)!r}"


LOADED: Timed[str, bool] = Timed(max_entries=math.inf, max_age=DATA_TTL - timedelta(seconds=15))
"""Which executions queries this process holds loaded: a narrower view of a loaded window (one
plan or project of it) is then cut from it instead of fetched again. An entry is trusted for a
little less than `DATA_TTL`, the life of the cached data."""


def _loaded_key(connection: Connection, query: ExecutionQuery) -> str:
    # As the data cache is keyed (`data_key`: a hash, never the token).
    return f"{data_key(connection)}:{query!r}"


def executions_in_scope(connection: Connection, query: ExecutionQuery) -> live.ExecutionsData:
    """`executions(connection, query)`, but when the same window without its plan and project
    filters is already loaded, cut from it (no request): changing the plan or project on the
    executions page, or opening a results link from it, does not fetch the window again. The
    same when that window is held from a little earlier (`HELD`): only what is newer is
    fetched. Every run of the same load gets the same object (`SAME_LOADS`)."""
    if query.plan_id is None and query.project_id is None:
        data = executions(connection, query)
    else:
        wider = dataclasses.replace(query, plan_id=None, project_id=None)
        key = _loaded_key(connection, wider)
        with LOADED.at() as queries:
            loaded = key in queries
        if loaded or _holds_earlier(connection, wider):
            data = live.narrowed(
                executions(connection, wider), plan_id=query.plan_id, project_id=query.project_id
            )
        else:
            data = executions(connection, query)
    return SAME_LOADS.one(_loaded_key(connection, query), data)


class SameLoads(Timed[str, live.ExecutionsData]):
    """One object per load of an executions query. A plan or project cut from a loaded window
    (`live.narrowed`) is made anew at every run, and the views made of it (`built`) keep it
    alive: each run's copy lived as long as its view. Handing every run of the same load (the
    same key and `loaded_at`) the object met first, the views share its frames (`executions`
    itself hands every run the same object). A few loads are kept, each for at most `max_age`;
    what is handed out is shared between runs and viewers of the connection: never mutated
    (as `built`'s values)."""

    def one(
        self, key: str, data: live.ExecutionsData, *, now: float | None = None
    ) -> live.ExecutionsData:
        """The object of `data`'s load under `key`: the one met first, else `data` (kept)."""
        with self.at(now) as kept:
            first = kept.get(key)
            if first is not None and first.loaded_at == data.loaded_at:
                return first
            kept[key] = data
            return data


SAME_LOADS = SameLoads(max_entries=8, max_age=DATA_TTL)


def execution_results(
    connection: Connection,
    *,
    execution_id: int,
    scenario_ids: tuple[int, ...],
    finished: bool,
    failures_counted: int | None = None,
) -> live.ResultsData:
    """One execution's results: a finished execution's from the history store when it holds
    them (no request, even after a restart), else fetched and kept there once they hold the
    `failures_counted` by its summary (when given: `analytics.evidence`); a running
    execution's always fetched, never stored."""
    pairs = tuple((int(execution_id), int(s)) for s in dict.fromkeys(scenario_ids))
    expected = () if failures_counted is None else ((int(execution_id), int(failures_counted)),)
    fan_out = _fan_out(connection, pairs, (int(execution_id),) if finished else (), (), expected)
    return live.results_of_fan_out(fan_out, scenarios=len(pairs))


@st.cache_data(ttl=DATA_TTL, hash_funcs=BY_GENERATION, show_spinner=False)
@one_budget(Operation.TEST_RESULTS)
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


@st.cache_data(ttl=DATA_TTL, hash_funcs=BY_GENERATION, show_spinner=False)
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


def _fan_out(
    connection: Connection,
    pairs: tuple[tuple[int, int], ...],
    finished: tuple[int, ...],
    failed: tuple[PairFailure, ...] = (),
    expected: tuple[tuple[int, int], ...] = (),
) -> FanOut:
    """The fan-out of `pairs`, cached; `expected` holds (execution id, failures its summary
    counts) of the finished executions to check (`analytics.evidence`). An answer found short
    of them is shown for this run but not cached beyond it: the next run asks again."""
    # Streamlit hashes a cached function's arguments at every call: a long window's 18,000
    # pairs cost a quarter of a second a rerun, so they are keyed by a digest.
    digest = hashlib.sha256(repr((pairs, finished, expected)).encode()).hexdigest()
    with _SHORT_LOCK:
        attempt = SHORT_ANSWERS.get(digest, 0)
    answer = _fan_out_of(connection, f"{digest}:{attempt}", pairs, finished, failed, expected)
    if answer.short:
        with _SHORT_LOCK:
            if SHORT_ANSWERS.get(digest, 0) == attempt:  # once, however many viewers saw it
                SHORT_ANSWERS[digest] = attempt + 1
    return dataclasses.replace(answer, results=answer.results.copy(deep=False))


SHORT_ANSWERS: FIFOCache[str, int] = FIFOCache(maxsize=256)
"""The fan-outs whose last answer was short of what the service's record says, by digest: each
such answer's next run is keyed anew (its attempt), so it is fetched again."""
_SHORT_LOCK = threading.Lock()


# A resource, as `executions`: one answer per key in the process, shared by every session,
# where the data cache unpickled a copy of the results at every run of every session (each
# copy kept alive by the views made of it: #39's peak memory with five viewers). A run gets a
# shallow copy of the frame (`_fan_out`): pandas' copy-on-write keeps the shared data
# untouched whatever a caller does with its own.
@st.cache_resource(ttl=DATA_TTL, hash_funcs=BY_GENERATION, show_spinner=False)
@one_budget(Operation.TEST_RESULTS)
def _fan_out_of(
    connection: Connection,
    digest: str,
    _pairs: tuple[tuple[int, int], ...],
    _finished: tuple[int, ...],
    _failed: tuple[PairFailure, ...],
    _expected: tuple[tuple[int, int], ...] = (),
) -> FanOut:
    pairs, finished = _pairs, _finished  # keyed by `digest`, a SHA-256 of them
    bar = st.progress(0.0, text="Loading results…")
    executions = len({execution for execution, _ in pairs})
    store = history_store(connection)
    started = time.monotonic()

    @throttled
    def on_progress(done: int, total: int) -> None:
        bar.progress(
            done / max(total, 1),
            text=fetch_progress_text(
                executions,
                done,
                total,
                elapsed=time.monotonic() - started,
                kept=store is not None and bool(finished),
            ),
        )

    try:
        return results_fanout.fetch_results(
            client(connection),
            pairs,
            finished=finished,
            store=store,
            on_progress=on_progress,
            # The store is per service and company: a token shown none of it until it proves
            # it may read results (a fingerprint, never the token, is what is remembered).
            reader=connection.fingerprint,
            failed=_failed,
            expected={e: Expected(failed=n) for e, n in _expected} if _expected else None,
        )
    finally:
        bar.empty()


PROGRESS_EVERY_S = 0.25
"""How often a loading bar is redrawn at most. Each redraw is a message to the browser and a
redraw there: the 90 days' 70 pages redrew the bar 70 times in about 1.5 s, and the browser's
work for it took CPU the load needed on a small machine (benchmarks/RESULTS.md, #27)."""


def throttled(
    report: Callable[[int, int], None],
    *,
    every_s: float = PROGRESS_EVERY_S,
    clock: Callable[[], float] = time.monotonic,
) -> Callable[[int, int], None]:
    """`report(done, total)` passed on at most once every `every_s` seconds: always the first
    and the last (done == total), and otherwise the newest once `every_s` has passed."""
    last: float | None = None

    def report_now_and_then(done: int, total: int) -> None:
        nonlocal last
        now = clock()
        if last is None or done >= total or now - last >= every_s:
            last = now
            report(done, total)

    return report_now_and_then


def fetch_progress_text(
    executions: int, done: int, total: int, *, elapsed: float, kept: bool
) -> str:
    """What a results fan-out's bar says: how much it must fetch (the requests the history
    store could not answer), how far it is, about how long is left once that can be told, and
    whether what is fetched is kept (then it is fetched only once)."""
    noun = "execution" if executions == 1 else "executions"
    text = f"Fetching the results of {executions:,} {noun}: {done:,} of {total:,} requests"
    if done >= FETCH_RATE_AFTER and done < total:
        text += f", about {_rounded_seconds(elapsed / done * (total - done))} left"
    if kept and total >= FETCH_RATE_AFTER:
        text += " (kept in the history store: fetched only once)"
    return text


FETCH_RATE_AFTER = 50
"""Requests done before the bar says how long is left (and before a fetch is long enough to
say it is kept)."""


def _rounded_seconds(seconds: float) -> str:
    if seconds < 60:
        return f"{max(1, round(seconds))} s"
    return f"{round(seconds / 60)} min"


def history_results(
    connection: Connection,
    execution_ids: Iterable[int],
    executions: pd.DataFrame,
    *,
    failed: tuple[PairFailure, ...] = (),
) -> FanOut:
    """The results of some executions (rows of `executions`), from the history store where it
    has them, else fetched several at a time; finished executions' results are kept once they
    hold every failure the executions' summaries count (`analytics.evidence`: a short answer is
    shown, said in `FanOut.short`, and asked for again next time). Pairs in `failed` (a fetch
    job's) are not asked for again."""
    every_plan = plans(connection, active_only=False).plans
    pairs, finished = result_pairs(executions, every_plan, execution_ids)
    return _fan_out(connection, pairs, finished, failed, failures_counted(executions, finished))


def failures_counted(
    executions: pd.DataFrame, execution_ids: Iterable[int]
) -> tuple[tuple[int, int], ...]:
    """(execution id, failures its summary counts) of the finished `execution_ids` among
    `executions` (the pages' executions frame), in id order: what their fetches check."""
    wanted = {int(i) for i in execution_ids}
    rows = executions[executions["execution_id"].isin(wanted)].drop_duplicates("execution_id")
    counted = expected_failures(rows)
    return tuple(sorted((e, want.failed) for e, want in counted.items()))


def scenario_results(
    connection: Connection,
    execution_ids: Iterable[int],
    scenario_id: int,
    executions: pd.DataFrame,
    *,
    failed: tuple[PairFailure, ...] = (),
) -> FanOut:
    """One scenario's results in some executions (rows of `executions`), whatever their plans
    list now. `history_results` asks for each plan's current scenarios; a scenario its plan has
    dropped since is asked for here, so a link to its past runs still opens them.
    Only a part of each execution is asked for, so whether it holds what the execution's
    summary counts (`history_results`' check) cannot be told here."""
    wanted = tuple(dict.fromkeys(int(i) for i in execution_ids))
    rows = executions[executions["execution_id"].isin(wanted)]
    finished = tuple(
        sorted(
            {int(e) for e, done in zip(rows["execution_id"], rows["finished"], strict=True) if done}
        )
    )
    return _fan_out(connection, tuple((e, int(scenario_id)) for e in wanted), finished, failed)


BUILT_MAX_ENTRIES = 64
"""How many views `built` keeps in the process, each for at most `DATA_TTL` and shared by its
viewers, not copied: every page's views (the standup's two steps, Failures', Time to green's,
the executions', Flaky's, the verdicts and known counts each page reads) for a few sets of
inputs each (scopes, periods, a view keyed by the minute made anew each minute). A view holds
references to the loaded frames it was made of, rarely copies of them."""


@st.cache_resource(ttl=DATA_TTL, max_entries=BUILT_MAX_ENTRIES, show_spinner=False)
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


def refresh(connection: Connection, *, now: float | None = None) -> bool:
    """Load `connection`'s data afresh on the next run; other connections' data is kept. The
    service is asked again whether the credential may see the stored history, and a store that
    could not be opened is tried again at once.

    False (nothing done) when its data was refreshed less than `REFRESH_INTERVAL` ago: one
    viewer pressing Refresh in a loop cannot make the dashboard reload all the time.
    """
    advanced = cache_connection.GENERATIONS.advance(
        connection.fingerprint, now=time.monotonic() if now is None else now
    )
    if advanced:
        cache_connection.STORE_ACCESS.forget(connection)
        cache_history.OPEN_FAILURES.forget(connection.fingerprint)
        cache_connection.TIMEOUTS.forget(connection.fingerprint)
    return advanced


def seconds_until_refresh(connection: Connection) -> float:
    """How long until `refresh(connection)` would reload again (0: now)."""
    return cache_connection.GENERATIONS.seconds_until_next(
        connection.fingerprint, now=time.monotonic()
    )


def clear_all() -> None:
    """Forget every connection's loaded data, its stores (closed) and what they and the service
    said about them (tests start from the service with this)."""
    cache_history.forget_all()
    cache_names.forget_all()
    cache_connection.STORE_ACCESS.forget_all()
    cache_connection.TIMEOUTS.forget_all()
    plans.clear()
    executions.clear()
    LOADED.forget()
    HELD.forget()
    SAME_LOADS.forget()
    _built.clear()
    _results_by_id.clear()
    _stored_around.clear()
    _fan_out_of.clear()
    with _SHORT_LOCK:
        SHORT_ANSWERS.clear()
    fetch_jobs.JOBS.forget()

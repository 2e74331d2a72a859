"""The thin Streamlit caching layer over `live`: the client as a resource, frames as data.

Cached functions take plain arguments (a `Connection` and values), never read widgets or the
URL. A `Connection` is hashed by its fingerprint (service, company and a SHA-256 of the token),
so the token is never part of a cache key, and viewers with different tokens never share data.
Only frames, counts and typed errors are cached, never model objects: nothing sensitive is
pickled. This is the one module of the data layer that imports Streamlit.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import Any

import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitSecretNotFoundError

from api_client import ApiClient, ExecutionQuery
from dashboard.analytics import plans as plan_analytics
from dashboard.data import demo, live, results_fanout, store
from dashboard.data.connection import Connection
from dashboard.data.pairs import result_pairs
from dashboard.data.store import HistoryStore
from dashboard.data.store_errors import StoreError

_LOG = logging.getLogger(__name__)

DATA_TTL = timedelta(minutes=5)
"""How long loaded data is reused before it is fetched again (Refresh fetches at once)."""

_BY_FINGERPRINT: dict[str | type[Any], Callable[[Any], Any]] = {
    Connection: lambda connection: connection.fingerprint
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


@st.cache_data(ttl=DATA_TTL, hash_funcs=_BY_FINGERPRINT, show_spinner="Loading test plans…")
def plans(connection: Connection, *, active_only: bool) -> live.PlansData:
    return live.load_plans(client(connection), active_only=active_only)


@st.cache_data(ttl=DATA_TTL, hash_funcs=_BY_FINGERPRINT, show_spinner=False)
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


@st.cache_data(
    ttl=DATA_TTL, hash_funcs=_BY_FINGERPRINT, show_spinner="Loading the scenarios' results…"
)
def execution_results(
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


@st.cache_resource(hash_funcs=_BY_FINGERPRINT, show_spinner=False, max_entries=16)
def history_store(connection: Connection) -> HistoryStore | None:
    """The connection's history store, shared by every session of this process (it serialises
    its writers); None when it cannot be opened (the pages then fetch everything live)."""
    try:
        return store.open_for(connection, secrets=secrets(), env=os.environ, wait=2.0)
    except (OSError, StoreError) as error:
        _LOG.warning("history store unavailable: %s", type(error).__name__)
        return None


@st.cache_data(ttl=DATA_TTL, hash_funcs=_BY_FINGERPRINT, show_spinner=False)
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


def refresh() -> None:
    """Forget loaded data so the next run fetches it again (clients and the demo are kept)."""
    plans.clear()
    executions.clear()
    execution_results.clear()
    _fan_out.clear()

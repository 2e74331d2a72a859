"""The thin Streamlit caching layer over `loaders`: the client as a resource, frames as data.

Cached functions take plain arguments (a `Connection` and values), never read widgets or the
URL. A `Connection` is hashed by its fingerprint (service, company and a SHA-256 of the token),
so the token is never part of a cache key, and viewers with different tokens never share data.
Only frames and strings are cached, never model objects: nothing sensitive is pickled.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import streamlit as st

from api_client import ApiClient
from dashboard import demo, loaders, transforms, url_state
from dashboard.connection import Connection

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
def plans(connection: Connection, *, active_only: bool) -> loaders.PlansData:
    return loaders.load_plans(client(connection), active_only=active_only)


@st.cache_data(ttl=DATA_TTL, hash_funcs=_BY_FINGERPRINT, show_spinner=False)
def executions(connection: Connection, filters: loaders.ExecutionFilters) -> loaders.ExecutionsData:
    # The bar is created inside the cached function so Streamlit can replay it on a cache hit
    # (where it is emptied at once); a bar created by the caller could not be replayed.
    bar = st.progress(0.0, text="Loading executions…")

    def on_progress(done: int, total: int) -> None:
        bar.progress(done / max(total, 1), text=f"Loading executions: page {done} of {total}")

    try:
        return loaders.load_executions(client(connection), filters, on_progress=on_progress)
    finally:
        bar.empty()


@st.cache_data(
    ttl=DATA_TTL, hash_funcs=_BY_FINGERPRINT, show_spinner="Loading the scenarios' results…"
)
def execution_results(
    connection: Connection, *, execution_id: int, scenario_ids: tuple[int, ...]
) -> loaders.ResultsData:
    return loaders.load_execution_results(
        client(connection), execution_id=execution_id, scenario_ids=scenario_ids
    )


def find_execution(
    connection: Connection, state: url_state.ViewState, *, now: datetime
) -> loaders.FoundExecution:
    """The execution a results link names (`loaders.find_execution`), every query cached.

    It is first looked for with the executions page's own filters for `state`, which that page
    has usually just loaded; the results it may load to learn when the execution ran are the
    ones the results page shows next.
    """
    execution_id = state.execution
    if execution_id is None:
        raise ValueError("the view state names no execution")

    def results_on(plan_id: int) -> Callable[[], loaders.ResultsData]:
        def results() -> loaders.ResultsData:
            every_plan = plans(connection, active_only=False).plans
            scenarios = transforms.plan_scenarios(every_plan, plan_id) or ()
            return execution_results(connection, execution_id=execution_id, scenario_ids=scenarios)

        return results

    return loaders.find_execution(
        execution_id,
        listed=loaders.ExecutionFilters.for_view(state, now=now, email=connection.email),
        started=state.execution_start,
        load=lambda filters: executions(connection, filters),
        results=results_on(state.plan) if state.plan is not None else None,
    )


def refresh() -> None:
    """Forget loaded data so the next run fetches it again (clients and the demo are kept)."""
    plans.clear()
    executions.clear()
    execution_results.clear()

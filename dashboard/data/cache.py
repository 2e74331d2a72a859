"""The thin Streamlit caching layer over `live`: the client as a resource, frames as data.

Cached functions take plain arguments (a `Connection` and values), never read widgets or the
URL. A `Connection` is hashed by its fingerprint (service, company and a SHA-256 of the token),
so the token is never part of a cache key, and viewers with different tokens never share data.
Only frames, counts and typed errors are cached, never model objects: nothing sensitive is
pickled. This is the one module of the data layer that imports Streamlit.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import streamlit as st

from api_client import ApiClient, ExecutionQuery
from dashboard.analytics import plans as plan_analytics
from dashboard.data import demo, live
from dashboard.data.connection import Connection

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


def refresh() -> None:
    """Forget loaded data so the next run fetches it again (clients and the demo are kept)."""
    plans.clear()
    executions.clear()
    execution_results.clear()

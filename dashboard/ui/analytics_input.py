"""What the scenario analytics pages read: the executions of the last 90 days (the executions
page's own "90 d" query, so the pages share its cache) and the results of each plan's last W
finished executions, through the history store (`cache.history_results`).

The flaky, environments and scenario pages look at the same executions for the same W, so
their results come from one cache entry; a running execution is never part of the window.
Whatever cannot be loaded is said on the page, which then stops: the helpers below return only
what the page can use.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import pandas as pd
import streamlit as st

from api_client import ApiError, ExecutionQuery, ScenarioNotFoundError
from dashboard.analytics.evidence import Expected
from dashboard.analytics.flaky import last_finished
from dashboard.columns.schemas import RESULT_HISTORY_COLUMNS
from dashboard.columns.shapes import empty
from dashboard.data import cache
from dashboard.data.connection import Connection
from dashboard.data.fanout_answer import FanOut
from dashboard.data.pairs import result_pairs
from dashboard.present.messages import describe_left_out
from dashboard.state.params import DateRange
from dashboard.state.query import preset_query
from dashboard.ui import notices
from dashboard.ui.fetch_first import fetched_first

LOOKBACK = DateRange.LAST_90_DAYS
"""How far back executions are looked for: each plan's last W finished ones are among them."""
LOOKBACK_WORDS = "last 90 days"


@dataclass(frozen=True)
class AnalyticsInput:
    """executions: every execution of the lookback in scope (running ones too).
    analysed: each plan's last W finished executions, the window (rows of `executions`).
    results: their results. fan_out: where the results came from, and what failed."""

    executions: pd.DataFrame
    analysed: pd.DataFrame
    results: pd.DataFrame
    fan_out: FanOut | None


def lookback_executions(
    connection: Connection, *, now: datetime, project: int | None, plan: int | None
) -> pd.DataFrame:
    """The executions of the lookback (one project or plan, or all; one plan's or project's
    cut from all of them when those are loaded); the page stops after showing why they could
    not be loaded."""
    query = preset_query(LOOKBACK, now=now, project=project, plan=plan)
    try:
        return cache.executions_in_scope(connection, query).executions
    except ApiError as error:
        notices.show_error(error, part=f"the executions of the {LOOKBACK_WORDS}")
        st.stop()


def executions_for(connection: Connection, query: ExecutionQuery, *, part: str) -> pd.DataFrame:
    """The executions `query` selects; the page stops after showing why they could not be
    loaded (`part` names them)."""
    try:
        return cache.executions(connection, query).executions
    except ApiError as error:
        notices.show_error(error, part=f"the executions of {part}")
        st.stop()


def load_window(
    connection: Connection,
    *,
    now: datetime,
    window: int,
    project: int | None = None,
    plan: int | None = None,
    leave_out: frozenset[int] = frozenset(),
) -> AnalyticsInput:
    """The lookback's executions (one project's or plan's, or all) and the results of each
    plan's last `window` finished executions among them, those of `leave_out` (outages) left
    out before the window is counted; the page stops after showing why they could not be
    loaded."""
    executions = lookback_executions(connection, now=now, project=project, plan=plan)
    if leave_out:
        executions = executions[~executions["execution_id"].isin(leave_out)]
    scoped, chosen = _window_of(executions, window, plan)
    if chosen.empty:
        return AnalyticsInput(scoped, chosen, _no_results(), None)
    ids = chosen["execution_id"].tolist()
    fan_out = _through_store(
        connection, ids, executions, part="the results of the executions analysed"
    )
    return AnalyticsInput(scoped, chosen, fan_out.results, fan_out)


def load_scenario_window(
    connection: Connection, *, now: datetime, window: int, plan: int, scenario: int
) -> AnalyticsInput:
    """One scenario's results in the plan's last `window` finished executions, asked for
    whatever the plan lists now (a scenario it dropped keeps its past runs); the page stops
    after showing why they could not be loaded. A scenario the service does not know simply
    has none."""
    executions = lookback_executions(connection, now=now, project=None, plan=plan)
    scoped, chosen = _window_of(executions, window, plan)
    if chosen.empty:
        return AnalyticsInput(scoped, chosen, _no_results(), None)
    ids = [int(i) for i in chosen["execution_id"]]
    finished = [
        int(e) for e, done in zip(chosen["execution_id"], chosen["finished"], strict=True) if done
    ]
    try:
        failed = fetched_first(connection, [(e, int(scenario)) for e in ids], finished)
        fan_out = cache.scenario_results(connection, ids, scenario, executions, failed=failed)
    except ApiError as error:
        notices.show_error(error, part=f"the results of scenario {scenario}")
        st.stop()
    if not all(isinstance(f.error, ScenarioNotFoundError) for f in fan_out.failures):
        show_failures(fan_out)
    return AnalyticsInput(scoped, chosen, fan_out.results, fan_out)


def results_of(
    connection: Connection, chosen: pd.DataFrame, executions: pd.DataFrame, *, part: str
) -> pd.DataFrame:
    """The results of the `chosen` executions (rows of `executions`), through the history store
    as `load_window` reads them; what could not be loaded is said, and the page stops when
    nothing could (`part` names what was being loaded)."""
    if chosen.empty:
        return _no_results()
    return _through_store(
        connection, chosen["execution_id"].tolist(), executions, part=part
    ).results


def _through_store(
    connection: Connection, ids: list[int], executions: pd.DataFrame, *, part: str
) -> FanOut:
    """The results of executions `ids` (rows of `executions`) through the history store, what
    it lacks fetched into it first (said before, with progress, and once for every page and
    viewer: `fetch_first`); what could not be loaded is said, and the page stops when the
    service refuses (`part` names what was being loaded)."""
    try:
        every_plan = cache.plans(connection, active_only=False).plans
        pairs, finished = result_pairs(executions, every_plan, ids)
        counted = {e: Expected(failed=n) for e, n in cache.failures_counted(executions, finished)}
        failed = fetched_first(connection, pairs, finished, expected=counted)
        fan_out = cache.history_results(connection, ids, executions, failed=failed)
    except ApiError as error:
        notices.show_error(error, part=part)
        st.stop()
    show_failures(fan_out)
    return fan_out


def _window_of(
    executions: pd.DataFrame, window: int, plan: int | None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The executions in scope (one plan's when `plan`) and each plan's last `window`
    finished ones among them."""
    scoped = executions if plan is None else executions[executions["plan_id"] == plan]
    positions = last_finished(scoped, window)
    return scoped, scoped[scoped["execution_id"].isin(positions["execution_id"])]


def show_failures(fan_out: FanOut) -> None:
    """Say which results could not be loaded, and which lack what the service counts of their
    execution (the rest are used, and what was had is shown)."""
    failures = [(failure.scenario_id, failure.error) for failure in fan_out.failures]
    left_out = describe_left_out(failures, fan_out.counts.pairs)
    short = incomplete_text(fan_out)
    if short is not None and _said_this_run(short):
        short = None  # a page loading two windows with the same short execution says it once
    notices.show_messages([m for m in (left_out, short) if m], severity="warning")


_SAID = "_analytics_input_said"


def _said_this_run(text: str) -> bool:
    """Whether `text` was said already in this run (then True), else noted as said. A run is
    told apart by the script context's cursors, a mapping Streamlit makes anew for each run
    (held here, so it cannot be mistaken for a later one)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    context = get_script_run_ctx()
    if context is None:
        return False
    said = st.session_state.get(_SAID)
    if said is None or said[0] is not context.cursors:
        said = (context.cursors, set[str]())
        st.session_state[_SAID] = said
    if text in said[1]:
        return True
    said[1].add(text)
    return False


def incomplete_text(fan_out: FanOut) -> str | None:
    """One sentence when some finished executions' results lack what their summaries count
    ("results incomplete: 1 failure counted by the service is not in its results yet ..."),
    else None: fewer failures are never shown silently."""
    gap = fan_out.shortfall()
    if gap is None:
        return None
    ids = sorted(fan_out.short)
    named = ", ".join(str(i) for i in ids[:5]) + (", ..." if len(ids) > 5 else "")
    which = f"execution{'s' if len(ids) != 1 else ''} {named}"
    return (
        f"Results incomplete: {gap.text()} yet ({which}); they are asked for again on the "
        "next visit."
    )


def _no_results() -> pd.DataFrame:
    return empty(RESULT_HISTORY_COLUMNS)

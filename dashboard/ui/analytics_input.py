"""What the scenario analytics pages read: the view and the company's plans they open on, the
executions of the last 90 days (the executions page's own "90 d" query, so the pages share its
cache) and the results of each plan's last W finished executions, through the history store
(`cache.history_results`).

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
from streamlit.delta_generator import DeltaGenerator

from api_client import ApiError, ScenarioNotFoundError
from dashboard.analytics import plans as plan_analytics
from dashboard.analytics.flaky import last_finished
from dashboard.columns.schemas import RESULT_HISTORY_COLUMNS
from dashboard.columns.shapes import empty
from dashboard.data import cache
from dashboard.data.connection import Connection
from dashboard.data.fanout_answer import FanOut
from dashboard.present.messages import describe_error
from dashboard.state import plan_choice
from dashboard.state.query import execution_query
from dashboard.state.routes import Route
from dashboard.state.url import DateRange, ViewState
from dashboard.ui import notices, sidebar, url_filters

LOOKBACK = DateRange.LAST_90_DAYS
"""How far back executions are looked for: each plan's last W finished ones are among them."""


@dataclass(frozen=True)
class PageStart:
    """What an analytics page opens on. state/problems: the URL's view and what was wrong with
    it (shown by the page, after its controls). plans: the company's plans (every one, active
    or not: old links name retired plans). heading: the title's place, to retitle it."""

    connection: Connection
    state: ViewState
    problems: list[str]
    now: datetime
    plans: pd.DataFrame
    plan_names: dict[int, str]
    heading: DeltaGenerator


def start_page(route: Route, title: str, *, plan_for: str | None = None) -> PageStart:
    """Read the page's view from the URL, draw its title and load the company's plans (the
    page stops after saying why they could not be loaded). With `plan_for` (what the page
    needs one plan for: "heat map"), a plan id the company does not have is dropped, saying so.
    """
    connection = sidebar.current_connection()
    parsed = url_filters.read_view(route)
    state, problems = parsed.state, list(parsed.problems)
    now = sidebar.now(connection)
    heading = st.empty()
    heading.title(title)
    try:
        plans = cache.plans(connection, active_only=False).plans
    except ApiError as error:
        notices.show_error(error, part="the plan list")
        st.stop()
    plan_names = plan_analytics.plan_names(plans)
    if plan_for is not None:
        checked = plan_choice.check_plan(state, plan_names, page=plan_for)
        state, problems = checked.state, problems + checked.problems
    return PageStart(connection, state, problems, now, plans, plan_names, heading)


@dataclass(frozen=True)
class AnalyticsInput:
    """executions: every execution of the lookback in scope (running ones too).
    window: each plan's last W finished executions (rows of `executions`).
    results: their results. fan_out: where the results came from, and what failed."""

    executions: pd.DataFrame
    window: pd.DataFrame
    results: pd.DataFrame
    fan_out: FanOut | None


def lookback_executions(
    connection: Connection, *, now: datetime, project: int | None, plan: int | None
) -> pd.DataFrame:
    """The executions of the lookback (one project or plan, or all); the page stops after
    showing why they could not be loaded."""
    query = execution_query(
        ViewState(project=project, plan=plan, date_range=LOOKBACK), now=now, email=None
    )
    try:
        return cache.executions(connection, query).executions
    except ApiError as error:
        notices.show_error(error, part="the executions of the last 90 days")
        st.stop()


def load_window(
    connection: Connection,
    *,
    now: datetime,
    window: int,
    project: int | None = None,
    plan: int | None = None,
) -> AnalyticsInput:
    """The lookback's executions (one project's or plan's, or all) and the results of each
    plan's last `window` finished executions among them; the page stops after showing why
    they could not be loaded."""
    executions = lookback_executions(connection, now=now, project=project, plan=plan)
    scoped, chosen = _window_of(executions, window, plan)
    if chosen.empty:
        return AnalyticsInput(scoped, chosen, _no_results(), None)
    try:
        fan_out = cache.history_results(connection, chosen["execution_id"].tolist(), executions)
    except ApiError as error:
        notices.show_error(error, part="the results of the executions analysed")
        st.stop()
    show_failures(fan_out)
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
    try:
        fan_out = cache.scenario_results(
            connection, chosen["execution_id"].tolist(), scenario, executions
        )
    except ApiError as error:
        notices.show_error(error, part=f"the results of scenario {scenario}")
        st.stop()
    if not all(isinstance(f.error, ScenarioNotFoundError) for f in fan_out.failures):
        show_failures(fan_out)
    return AnalyticsInput(scoped, chosen, fan_out.results, fan_out)


def _window_of(
    executions: pd.DataFrame, window: int, plan: int | None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The executions in scope (one plan's when `plan`) and each plan's last `window`
    finished ones among them."""
    scoped = executions if plan is None else executions[executions["plan_id"] == plan]
    positions = last_finished(scoped, window)
    return scoped, scoped[scoped["execution_id"].isin(positions["execution_id"])]


def show_failures(fan_out: FanOut) -> None:
    """Say which results could not be loaded (the rest are used)."""
    if not fan_out.failures:
        return
    first = fan_out.failures[0]
    text = describe_error(first.error, part=f"scenario {first.scenario_id}").text
    notices.show_messages(
        [
            f"{len(fan_out.failures):,} of {fan_out.counts.pairs:,} scenario results could not be "
            f"loaded and are left out; the first: {text}"
        ],
        severity="warning",
    )


def _no_results() -> pd.DataFrame:
    return empty(RESULT_HISTORY_COLUMNS)

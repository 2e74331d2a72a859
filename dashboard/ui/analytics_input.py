"""What the scenario analytics pages read: the executions of the last 90 days (the executions
page's own "90 d" query, so the pages share its cache) and the results of each plan's last W
finished executions, through the history store (`cache.history_results`).

The flaky, environments and scenario pages look at the same executions for the same W, so
their results come from one cache entry; a running execution is never part of the window.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import pandas as pd

from api_client import ApiError, ScenarioNotFoundError
from dashboard.analytics.flaky import last_finished
from dashboard.data import cache
from dashboard.data.connection import Connection
from dashboard.data.results_fanout import FanOut
from dashboard.data.schemas import RESULT_HISTORY_COLUMNS
from dashboard.data.store_engine import empty_frame
from dashboard.present.messages import describe_error
from dashboard.state.query import execution_query
from dashboard.state.url import DateRange, ViewState
from dashboard.ui import notices

LOOKBACK = DateRange.LAST_90_DAYS
"""How far back executions are looked for: each plan's last W finished ones are among them."""


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
) -> pd.DataFrame | None:
    """The executions of the lookback (one project or plan, or all); None after showing why
    they could not be loaded."""
    query = execution_query(
        ViewState(project=project, plan=plan, date_range=LOOKBACK), now=now, email=None
    )
    try:
        return cache.executions(connection, query).executions
    except ApiError as error:
        notices.show_error(error, part="the executions of the last 90 days")
        return None


def load_window(
    connection: Connection,
    executions: pd.DataFrame,
    window: int,
    *,
    plan: int | None = None,
) -> AnalyticsInput | None:
    """The results of each plan's last `window` finished executions (one plan's when `plan`);
    None after showing why they could not be loaded."""
    scoped, chosen = _window_of(executions, window, plan)
    if chosen.empty:
        return AnalyticsInput(scoped, chosen, _no_results(), None)
    try:
        fan_out = cache.history_results(connection, chosen["execution_id"].tolist(), executions)
    except ApiError as error:
        notices.show_error(error, part="the results of the executions analysed")
        return None
    show_failures(fan_out)
    return AnalyticsInput(scoped, chosen, fan_out.results, fan_out)


def load_scenario_window(
    connection: Connection, executions: pd.DataFrame, window: int, *, plan: int, scenario: int
) -> AnalyticsInput | None:
    """One scenario's results in the plan's last `window` finished executions, asked for
    whatever the plan lists now (a scenario it dropped keeps its past runs); None after showing
    why they could not be loaded. A scenario the service does not know simply has none."""
    scoped, chosen = _window_of(executions, window, plan)
    if chosen.empty:
        return AnalyticsInput(scoped, chosen, _no_results(), None)
    try:
        fan_out = cache.scenario_results(
            connection, chosen["execution_id"].tolist(), scenario, executions
        )
    except ApiError as error:
        notices.show_error(error, part=f"the results of scenario {scenario}")
        return None
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
    return empty_frame(RESULT_HISTORY_COLUMNS)

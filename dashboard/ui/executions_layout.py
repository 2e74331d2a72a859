"""The Executions page's parts that are Streamlit only: its filters, bound to the URL (project,
plan and status above; the date range, its own days when custom, *Only mine* and *Include
outages* below), the status chart's two tabs, and the looks of the table's columns."""

from __future__ import annotations

from typing import Any

import streamlit as st

from api_client import ApiError, ExecutionQuery
from dashboard.data import cache
from dashboard.data.connection import Connection
from dashboard.data.live import ExecutionsData
from dashboard.present import help_texts
from dashboard.present.executions_view import ExecutionsView, ExecutionsWords
from dashboard.present.formatting import utc_text
from dashboard.state.choices import ExecutionsFilters
from dashboard.state.params import (
    CHART,
    FROM,
    MINE,
    PLAN,
    PROJECT,
    RANGE,
    STATUS,
    TO,
    DateRange,
    StatusChart,
)
from dashboard.state.query import Period, local_date, period
from dashboard.ui import notices, triage, viewer, zones
from dashboard.ui.charts import chart
from dashboard.ui.page import Page
from dashboard.ui.tables import ident_column, time_column


def filters(page: Page, filters: ExecutionsFilters, *, mine: str | None) -> tuple[str, Period]:
    """Draw the filters of `page` (its view checked into `filters`; `mine`: the viewer's
    address, None when *Only mine* cannot be offered), and the viewer's zone in the sidebar;
    that zone, and the period shown in it (custom days are the viewer's calendar days)."""
    state, now, widgets = page.state, page.now, page.widgets()
    row1 = st.columns([2, 2, 1])
    with row1[0]:
        widgets.selectbox("Project", PROJECT, filters.projects, resets={PLAN: None})
    with row1[1]:
        widgets.selectbox("Plan", PLAN, filters.plans)
    with row1[2]:
        widgets.multiselect(
            "Status",
            STATUS,
            filters.statuses,
            placeholder="Any status",
            help=help_texts.STATUS_RULE,
        )
    tz = zones.sidebar_zone(page.route, state)
    shown = period(state, now, tz=tz)
    row2 = st.columns([2, 1, 1, 1, 1.2], vertical_alignment="bottom")
    with row2[0]:
        widgets.segmented(
            "Started in the last",
            RANGE,
            {r: r.label for r in DateRange},
            # Switching to "custom" starts from the period just shown, so nothing jumps.
            resets={FROM: local_date(shown.start or now, tz), TO: local_date(now, tz)},
        )
    if state.date_range is DateRange.CUSTOM:
        with row2[1]:
            widgets.date(f"From ({tz})", FROM, before=state.date_to)
        with row2[2]:
            widgets.date(f"To ({tz})", TO, after=state.date_from)
    with row2[3]:
        widgets.toggle("Only mine", MINE, disabled=not mine, help=viewer.only_mine_help())
    with row2[4]:
        triage.outages_toggle(widgets)
    return tz, shown


def executions_or_stop(connection: Connection, query: ExecutionQuery) -> ExecutionsData:
    """The executions `query` selects (`cache.executions_in_scope`). When the service refuses
    or cannot answer, the page stops saying why: a refused *Only mine* as the viewer's own
    address refused, anything else as `notices.show_error` words it, with the filters."""
    try:
        return cache.executions_in_scope(connection, query)
    except ApiError as error:
        if not viewer.show_refused_only_mine(error):
            notices.show_error(error, filters=query.describe(utc_text), source=connection.source)
        st.stop()


def status_charts(page: Page, view: ExecutionsView, words: ExecutionsWords) -> None:
    """The status chart's tabs, the open one in the URL: per execution (per plan above the
    limit) and per day. Only the open tab's chart is built and sent (the per-day one on its
    first opening)."""
    tabs = page.widgets().tabs(
        CHART, {StatusChart.EXECUTION: view.status_tab, StatusChart.DAY: "Per day"}
    )
    if tabs[StatusChart.EXECUTION].open:
        with tabs[StatusChart.EXECUTION]:
            notices.caption(words.per_plan)  # one bar per plan, above one per execution
            chart(view.status_chart, key="status.exec", file_name="results-by-status.csv")
    if tabs[StatusChart.DAY].open:
        with tabs[StatusChart.DAY]:
            chart(
                view.status_per_day(), key="status.day", file_name="results-by-status-per-day.csv"
            )


def table_columns() -> dict[str, Any]:
    """The looks of the executions table's columns (made at each run: Streamlit may amend a
    column's setting when it shows a table)."""
    return {
        "Id": ident_column(),
        "Start": time_column(with_year=True),
        "End": time_column(with_year=True),
        "Pass rate": st.column_config.ProgressColumn(
            format="%.1f %%", min_value=0, max_value=100, help=help_texts.RATE_OF_AN_EXECUTION
        ),
    }

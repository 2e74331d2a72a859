"""Executions: runs of the company's plans over a date range, with trends. Selecting one opens
its results."""

import streamlit as st

from api_client import ApiError
from dashboard.analytics import contradictions
from dashboard.analytics import executions as execution_analytics
from dashboard.data import cache
from dashboard.present import charts, tables
from dashboard.present.executions_view import executions_view
from dashboard.present.formatting import human_duration, percent, plural, times_note, utc_text
from dashboard.present.messages import (
    STATUS_RULE,
    describe_contradictions,
    describe_skipped,
    describe_truncation,
)
from dashboard.state import choices, routes, url
from dashboard.state.query import execution_query, local_date, time_window
from dashboard.state.url import DateRange, StatusChart
from dashboard.ui import notices, sidebar, url_filters, zones
from dashboard.ui.tables import table

ROUTE = routes.EXECUTIONS

connection = sidebar.current_connection()
parsed = url_filters.read_view(ROUTE)
now = sidebar.now(connection)

st.title("Executions")

# The plan list only feeds the project and plan pickers: without it the page still works.
try:
    plans = cache.plans(connection, active_only=False).plans
except ApiError as error:
    plans = None
    notices.show_error(error, part="the plan list (the project and plan filters show ids only)")
filters = choices.executions_filters(
    parsed.state, plans, email=connection.email, source=connection.source
)
state, problems = filters.state, parsed.problems + filters.problems

# -- filters ----------------------------------------------------------------------------------
widgets = url_filters.UrlFilters(ROUTE, state)
row1 = st.columns([2, 2, 1])
with row1[0]:
    widgets.selectbox("Project", "project", filters.projects, resets={"plan": None})
with row1[1]:
    widgets.selectbox("Plan", "plan", filters.plans)
with row1[2]:
    widgets.multiselect(
        "Status",
        "statuses",
        filters.statuses,
        placeholder="Any status",
        help=STATUS_RULE,
    )

# Custom days are the viewer's calendar days.
tz = zones.sidebar_zone(ROUTE, state)
window = time_window(state, now, tz=tz)
row2 = st.columns([2, 1, 1, 1], vertical_alignment="bottom")
with row2[0]:
    widgets.segmented(
        "Started in the last",
        "date_range",
        {r: r.label for r in DateRange},
        # Switching to "custom" starts from the window just shown, so nothing jumps.
        resets={
            "date_from": local_date(window.start or now, tz),
            "date_to": local_date(now, tz),
        },
    )
if state.date_range is DateRange.CUSTOM:
    # Both bounds always given: a picker's own default (ten years around today) would reject
    # a day the link may hold.
    with row2[1]:
        widgets.date(
            f"From ({tz})",
            "date_from",
            min_value=url.FIRST_DAY,
            max_value=state.date_to or url.LAST_DAY,
        )
    with row2[2]:
        widgets.date(
            f"To ({tz})",
            "date_to",
            min_value=state.date_from or url.FIRST_DAY,
            max_value=url.LAST_DAY,
        )
with row2[3]:
    widgets.toggle(
        "Only mine",
        "mine",
        disabled=not connection.email,
        help="Executions started by the user of the configured e-mail address.",
    )
url_filters.write_url(state, ROUTE)
notices.show_notes(problems)

# -- data -------------------------------------------------------------------------------------
query = execution_query(state, now=now, email=connection.email, tz=tz)
try:
    data = cache.executions_in_scope(connection, query)  # a plan of a loaded window: no fetch
except ApiError as error:
    notices.show_error(error, filters=query.describe(utc_text), source=connection.source)
    st.stop()
notices.show_notes(
    [
        describe_skipped((s.reason for s in data.skipped), "execution") or "",
        describe_truncation(data.truncation) or "",
    ]
)

executions, status_counts = execution_analytics.with_statuses(
    data.executions, data.status_counts, state.statuses
)
# Impossible values are said to be (which executions), and a negative runtime is unknown.
notices.show_notes(
    describe_contradictions(
        contradictions.execution_contradictions(executions, now=now), "execution"
    )
)
executions = contradictions.without_impossible_runtimes(executions, "runtime_ms")
slice_text = choices.executions_slice(executions, filters, window=window, now=now)
if executions.empty:
    notices.show_notes(
        [f"No executions match: {slice_text}. Widen the date range or clear a filter."],
        severity="info",
    )
    st.stop()

# Figures, KPIs and the table are made once per input, not at every rerun (cache.built).
view = cache.built(
    connection,
    "executions.view",
    (query, tuple(state.statuses), data.loaded_at, tz),
    lambda: executions_view(executions, status_counts, tz=tz),
)

# -- KPIs -------------------------------------------------------------------------------------
kpis = view.kpis
columns = st.columns(4)
columns[0].metric(
    "Executions",
    f"{kpis.executions:,}",
    delta=f"{kpis.running:,} running" if kpis.running else None,
    delta_color="off",
    border=True,
)
columns[1].metric(
    "Pass rate",
    percent(kpis.pass_rate),
    help="Passed (SUCCESS) results out of those with a verdict: SUCCESS, FAILURE, ERROR or "
    "WARNING (a warning counts as a verdict, not a pass), in finished executions. Running "
    "executions, and waiting, stopped and unknown statuses, are left out.",
    border=True,
)
columns[2].metric("Median duration", human_duration(kpis.median_runtime_s), border=True)
columns[3].metric(
    "Failing plans",
    f"{kpis.failing_plans} of {kpis.plans}",
    help="Plans whose latest finished execution here has a FAILURE or ERROR result (a plan "
    "whose newest execution is still running is judged on the one before).",
    border=True,
)
notices.caption(f"{slice_text}. {times_note(tz)}")

# -- charts -----------------------------------------------------------------------------------
st.subheader("Results by status", divider="gray")
notices.caption(slice_text + ". Colours are fixed per status; unknown statuses are grey.")
# Only the open tab's chart is built and sent (the per-day one on its first opening).
status_tabs = widgets.tabs(
    "status_chart",
    {
        StatusChart.EXECUTION: "Per plan" if view.status_by_plan else "Per execution",
        StatusChart.DAY: "Per day",
    },
)
by_execution, by_day = status_tabs[StatusChart.EXECUTION], status_tabs[StatusChart.DAY]
if by_execution.open:
    with by_execution:
        # One bar per execution stays readable (and quick to draw) up to a limit; above it,
        # one bar per plan sums the whole window.
        if view.status_by_plan:
            notices.caption(
                f"Over {charts.EXECUTION_BAR_LIMIT:,} executions, one bar per plan: the results "
                f"of all {plural(len(executions), 'execution')} of "
                f"{plural(view.plans_drawn, 'plan')}, by status. Per day splits them by day."
            )
        st.plotly_chart(view.status_chart, key="status.exec")
if by_day.open:
    with by_day:
        st.plotly_chart(view.status_per_day(), key="status.day")
runtime_column, rate_column = st.columns([3, 2])
with runtime_column:
    st.subheader("Runtime per execution", divider="gray")
    runtime_note = "; executions with results still running or unknown left out"
    if view.runtime_aggregated:
        runtime_note += (
            f". Over {charts.RUNTIME_POINT_LIMIT:,} executions, each point is a plan's median "
            "runtime on a day (its 10th-90th percentile and count on hover)"
        )
    notices.caption(slice_text + runtime_note + ".")
    st.plotly_chart(view.runtime, key="runtime")
with rate_column:
    st.subheader("Pass rate per day", divider="gray")
    notices.caption(slice_text + "; only results with a verdict count (SUCCESS passes).")
    st.plotly_chart(view.pass_rate, key="rate")

# -- table ------------------------------------------------------------------------------------
st.subheader("Executions", divider="gray")
shown_rows = (
    f" The newest {tables.TABLE_ROW_LIMIT:,} are shown; the CSV holds every one (narrow the "
    "filters to see others)."
    if len(view.table) > tables.TABLE_ROW_LIMIT
    else ""
)
notices.caption(slice_text + ", newest first. Select one to open its results." + shown_rows)
selected = table(
    view.table,
    max_rows=tables.TABLE_ROW_LIMIT,
    key="executions.table",
    file_name="executions.csv",
    selectable=True,
    tz=tz,
    column_config={
        "Id": st.column_config.NumberColumn(format="%d", width="small"),
        "Start": st.column_config.DatetimeColumn(format="D MMM YYYY, HH:mm"),
        "End": st.column_config.DatetimeColumn(format="D MMM YYYY, HH:mm"),
        "Pass rate": st.column_config.ProgressColumn(
            format="%.1f %%",
            min_value=0,
            max_value=100,
            help="Passed (SUCCESS) results out of those with a verdict (SUCCESS, FAILURE, "
            "ERROR, WARNING)",
        ),
    },
)
target = choices.opened_by_execution(executions, selected, state)
if target is not None:
    st.switch_page(
        routes.RESULTS.script, query_params=url_filters.link_params(target, routes.RESULTS)
    )

"""Executions: runs of the company's plans over a date range, with trends. Selecting one opens
its results."""

import streamlit as st

from api_client import ApiError
from dashboard.analytics import contradictions
from dashboard.analytics import executions as execution_analytics
from dashboard.analytics import marks as mark_analytics
from dashboard.data import cache
from dashboard.present import executions as words
from dashboard.present import help_texts, tables
from dashboard.present import known as known_words
from dashboard.present.executions_view import executions_view
from dashboard.present.formatting import count_of, human_duration, percent, utc_text
from dashboard.present.notes import describe_contradictions, describe_skipped, describe_truncation
from dashboard.state import choices, routes
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
from dashboard.state.query import execution_query, local_date, period
from dashboard.ui import notices, url_filters, viewer, zones
from dashboard.ui import triage as triage_view
from dashboard.ui.charts import chart
from dashboard.ui.page import open_page
from dashboard.ui.tables import ident_column, table, time_column

ROUTE = routes.EXECUTIONS

# The plan list only feeds the project and plan pickers: without it the page still works.
page = open_page(ROUTE, "Executions", plans="wanted")
connection, now = page.connection, page.now
mine = viewer.only_mine_email(connection)  # the signed-in viewer's, when sign-in is configured
filters = choices.executions_filters(page.state, page.plans, email=mine, source=connection.source)
page = page.checked(filters.state, filters.problems)
state = page.state

# -- filters ----------------------------------------------------------------------------------
widgets = page.widgets()
row1 = st.columns([2, 2, 1])
with row1[0]:
    widgets.selectbox("Project", PROJECT, filters.projects, resets={PLAN: None})
with row1[1]:
    widgets.selectbox("Plan", PLAN, filters.plans)
with row1[2]:
    widgets.multiselect(
        "Status", STATUS, filters.statuses, placeholder="Any status", help=help_texts.STATUS_RULE
    )

# Custom days are the viewer's calendar days.
tz = zones.sidebar_zone(ROUTE, state)
shown_period = period(state, now, tz=tz)
row2 = st.columns([2, 1, 1, 1, 1.2], vertical_alignment="bottom")
with row2[0]:
    widgets.segmented(
        "Started in the last",
        RANGE,
        {r: r.label for r in DateRange},
        # Switching to "custom" starts from the period just shown, so nothing jumps.
        resets={FROM: local_date(shown_period.start or now, tz), TO: local_date(now, tz)},
    )
if state.date_range is DateRange.CUSTOM:
    with row2[1]:
        widgets.date(f"From ({tz})", FROM, before=state.date_to)
    with row2[2]:
        widgets.date(f"To ({tz})", TO, after=state.date_from)
with row2[3]:
    widgets.toggle("Only mine", MINE, disabled=not mine, help=viewer.only_mine_help())
with row2[4]:
    triage_view.outages_toggle(widgets)
page.settle()

# -- data -------------------------------------------------------------------------------------
query = execution_query(state, now=now, email=mine, tz=tz)
try:
    data = cache.executions_in_scope(connection, query)  # a plan of a loaded period: no fetch
except ApiError as error:
    if not viewer.show_refused_only_mine(error):
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
slice_text = choices.executions_slice(executions, filters, period=shown_period, now=now)
if executions.empty:
    notices.show_notes([words.no_executions_text(slice_text)], severity="info")
    st.stop()

# Likely outages are left out of the KPIs and charts unless included; the table lists them all.
triage = triage_view.triage_of(connection, executions, now=now, state=state)
outages = words.outage_labels(triage.outages)
left_out = len(triage.left_out)

# Figures, KPIs and the table are made once per input, not at every rerun (cache.built).
view = cache.built(
    connection,
    "executions.view",
    (
        query,
        tuple(state.statuses),
        data.loaded_at,
        tz,
        tuple(sorted(outages.items())),
        tuple(sorted(triage.left_out)),
    ),
    lambda: executions_view(
        executions, status_counts, tz=tz, outages=outages, left_out=triage.left_out
    ),
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
    "Pass rate", percent(kpis.pass_rate), help=help_texts.RATE_OF_EXECUTIONS, border=True
)
columns[2].metric("Median duration", human_duration(kpis.median_runtime_s), border=True)
columns[3].metric(
    "Failing plans",
    count_of(kpis.failing_plans, kpis.plans),
    help=help_texts.FAILING_PLANS,
    border=True,
)
notices.caption(words.figures_caption(slice_text, tz))
notices.caption(words.outages_caption(triage.outages, included=triage.include))
# Known failures told apart from unresolved ones (results are read only when a mark applies).
counted = triage.without_outages(executions)
known = triage_view.known_per_execution(connection, counted, triage.marks)
notices.caption(known_words.split_caption(mark_analytics.split_of(counted, known)))

# -- charts -----------------------------------------------------------------------------------
st.header("Results by status", divider="gray")
notices.caption(words.status_caption(slice_text, left_out))
# Only the open tab's chart is built and sent (the per-day one on its first opening).
status_tabs = widgets.tabs(
    CHART,
    {
        StatusChart.EXECUTION: "Per plan" if view.status_by_plan else "Per execution",
        StatusChart.DAY: "Per day",
    },
)
by_execution, by_day = status_tabs[StatusChart.EXECUTION], status_tabs[StatusChart.DAY]
if by_execution.open:
    with by_execution:
        # One bar per execution stays readable (and quick to draw) up to a limit; above it,
        # one bar per plan sums the whole period.
        if view.status_by_plan:
            notices.caption(words.per_plan_caption(len(executions) - left_out, view.plans_drawn))
        chart(view.status_chart, key="status.exec", file_name="results-by-status.csv")
if by_day.open:
    with by_day:
        chart(view.status_per_day(), key="status.day", file_name="results-by-status-per-day.csv")
runtime_column, rate_column = st.columns([3, 2])
with runtime_column:
    st.header("Runtime per execution", divider="gray")
    notices.caption(
        words.runtime_caption(slice_text, aggregated=view.runtime_aggregated, left_out=left_out)
    )
    chart(view.runtime, key="runtime", file_name="runtime-per-execution.csv")
with rate_column:
    st.header("Pass rate per day", divider="gray")
    notices.caption(words.pass_rate_caption(slice_text, left_out))
    chart(view.pass_rate, key="rate", file_name="pass-rate-per-day.csv")

# -- table ------------------------------------------------------------------------------------
st.header("Executions", divider="gray")
notices.caption(words.table_caption(slice_text, len(view.table)))
selected = table(
    view.table,
    max_rows=tables.TABLE_ROW_LIMIT,
    key="executions.table",
    file_name="executions.csv",
    selectable=True,
    tz=tz,
    column_config={
        "Id": ident_column(),
        "Start": time_column(with_year=True),
        "End": time_column(with_year=True),
        "Pass rate": st.column_config.ProgressColumn(
            format="%.1f %%", min_value=0, max_value=100, help=help_texts.RATE_OF_AN_EXECUTION
        ),
    },
)
target = choices.opened_by_execution(executions, selected, state)
if target is not None:
    url_filters.switch_to(routes.RESULTS, target)

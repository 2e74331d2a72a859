"""Executions: runs of the company's plans over a date range, with trends. Selecting one opens
its results."""

import streamlit as st

from dashboard.data import cache
from dashboard.present import executions_view as views
from dashboard.present import tables
from dashboard.present.executions import no_executions_text, outage_labels
from dashboard.state import choices, routes
from dashboard.state.query import execution_query
from dashboard.ui import executions_layout as layout
from dashboard.ui import notices, url_filters, viewer
from dashboard.ui import triage as triage_view
from dashboard.ui.charts import chart
from dashboard.ui.kpis import kpi_row
from dashboard.ui.page import open_page
from dashboard.ui.tables import table

ROUTE = routes.EXECUTIONS

# The plan list only feeds the project and plan pickers: without it the page still works.
page = open_page(ROUTE, "Executions", plans="wanted")
connection, now = page.connection, page.now
mine = viewer.only_mine_email(connection)  # the signed-in viewer's, when sign-in is configured
filters = choices.executions_filters(page.state, page.plans, email=mine, source=connection.source)
page = page.checked(filters.state, filters.problems)
state = page.state

# -- filters ----------------------------------------------------------------------------------
tz, shown_period = layout.filters(page, filters, mine=mine)
page.settle()

# -- data -------------------------------------------------------------------------------------
query = execution_query(state, now=now, email=mine, tz=tz)
data = layout.executions_or_stop(connection, query)  # a plan of a loaded period: no fetch
loaded = views.executions_slice(data, state.statuses, now=now)
notices.show_notes(loaded.data_notes)
notices.show_notes(loaded.contradictions)
executions = loaded.executions
slice_text = choices.executions_slice(executions, filters, period=shown_period, now=now)
if executions.empty:
    notices.show_notes([no_executions_text(slice_text)], severity="info")
    st.stop()

# Likely outages are left out of the KPIs and charts unless included; the table lists them all.
triage = triage_view.triage_of(connection, executions, now=now, state=state)
outages, left_out = outage_labels(triage.outages), len(triage.left_out)
# Figures, KPIs and the table are made once per input, not at every rerun (cache.built).
view = cache.built(
    connection,
    "executions.view",
    views.view_key(query, state.statuses, data.loaded_at, tz, outages, triage.left_out),
    lambda: views.executions_view(
        executions, loaded.status_counts, tz=tz, outages=outages, left_out=triage.left_out
    ),
)
words = views.executions_words(
    view, slice_text, tz=tz, outages=triage.outages, included=triage.include, left_out=left_out
)

# -- KPIs -------------------------------------------------------------------------------------
kpi_row(view.kpi_row)
for text in words.figures:
    notices.caption(text)
# Known failures told apart from unresolved ones (results are read only when a mark applies).
counted = triage.without_outages(executions)
known = triage_view.known_per_execution(connection, counted, triage.marks)
notices.caption(views.known_caption(counted, known))

# -- charts -----------------------------------------------------------------------------------
st.header("Results by status", divider="gray")
notices.caption(words.status)
layout.status_charts(page, view, words)
runtime_column, rate_column = st.columns([3, 2])
with runtime_column:
    st.header("Runtime per execution", divider="gray")
    notices.caption(words.runtime)
    chart(view.runtime, key="runtime", file_name="runtime-per-execution.csv")
with rate_column:
    st.header("Pass rate per day", divider="gray")
    notices.caption(words.pass_rate)
    chart(view.pass_rate, key="rate", file_name="pass-rate-per-day.csv")

# -- table ------------------------------------------------------------------------------------
st.header("Executions", divider="gray")
notices.caption(words.table)
selected = table(
    view.table,
    max_rows=tables.TABLE_ROW_LIMIT,
    key="executions.table",
    file_name="executions.csv",
    selectable=True,
    tz=tz,
    column_config=layout.table_columns(),
)
target = choices.opened_by_execution(executions, selected, state)
if target is not None:
    url_filters.switch_to(routes.RESULTS, target)

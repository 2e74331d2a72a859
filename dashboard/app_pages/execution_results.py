"""Execution results: one execution's header, and the results of every scenario of its plan."""

import streamlit as st

from dashboard.data import cache, cache_names
from dashboard.present import results as words
from dashboard.present import results_view as views
from dashboard.present.notes import execution_not_found
from dashboard.state import links, routes
from dashboard.state.query import execution_query
from dashboard.ui import analytics_input, notices, url_filters, viewer, zones
from dashboard.ui import results_layout as layout
from dashboard.ui import triage as triage_view
from dashboard.ui.kpis import kpi_row
from dashboard.ui.page import open_page

ROUTE = routes.RESULTS

page = open_page(ROUTE, lambda view: words.page_title(view.execution))
connection, state, now = page.connection, page.state, page.now
tz = zones.sidebar_zone(ROUTE, state)
page.settle()
execution_id = layout.execution_or_back(state)

listed = execution_query(state, now=now, email=viewer.only_mine_email(connection), tz=tz)
found = notices.loaded_or_stop(
    lambda: cache.find_execution(
        connection, execution_id, listed=listed, started=state.execution_start, plan_id=state.plan
    ),
    part=f"execution {execution_id}",
    source=connection.source,
)
if found.header is None:
    notices.show_notes([execution_not_found(found, listed)], severity="warning")
    st.stop()
header = found.header
# The address bar holds when it started: a copy finds it directly, whatever its filters select.
url_filters.write_url(state.with_changes(execution_start=header.start), ROUTE)

top = views.header_view(header, tz=tz, now=now)
notices.plain(top.line)
kpi_row(top.kpis)
notices.show_notes(top.notes)
notices.caption(top.summary)

plans = notices.loaded_or_stop(
    lambda: cache.plans(connection, active_only=False).plans,
    part="the plan's scenario list, so the results cannot be listed",
)
scenarios = views.scenarios_of(plans, header)
if not scenarios:
    notices.show_notes([views.NO_SCENARIOS], severity="info")
    st.stop()
data = notices.loaded_or_stop(
    # Kept in the history store once they hold every failure counted; a running one's never.
    lambda: cache.execution_results(
        connection,
        execution_id=execution_id,
        scenario_ids=scenarios,
        finished=top.finished,
        failures_counted=header.failed if header.summary else None,
    ),
    part=f"the results of execution {execution_id}",
)
triage = triage_view.triage_of(connection, None, now=now, state=state)
plan_id, finished = header.plan_id, top.finished
# Its failures' verdicts, judged on its plan's window (their states) unless it is an outage.
window = (
    analytics_input.load_window(connection, now=now, window=state.window, plan=plan_id)
    if views.wants_window(header, triage.marks, finished=finished)
    else None
)
of = views.verdict_input(header, data.results, finished=finished, window=window)
verdicts = triage_view.verdicts_of(connection, *of, triage.ledger, now=now, judged=[execution_id])
view = views.results_view(
    data,
    header,
    triage.marks,
    finished=finished,
    tz=tz,
    now=now,
    source=connection.source,
    scenario_link=lambda scenario: links.scenario_link(plan_id or 0, scenario),
    verdicts=verdicts,
    names=cache_names.names(connection),
)
notices.show_notes([view.outage or ""], severity="warning")  # a likely outage, said first
notices.show_messages(view.failures, severity="warning")  # each names its scenario
notices.show_notes(view.notes)
if view.shown is None:
    st.info(views.NO_RESULTS)
    st.stop()
shown = view.shown
notices.show_notes(shown.contradictions)
st.header("Results", divider="gray")
notices.caption(shown.table_caption)
selected = layout.results_table(shown)
notices.full_message(shown.message(selected), key="results.message")
layout.known_failures(shown, triage.ledger, connection=connection, now=now, plan_id=plan_id)
layout.charts(shown)

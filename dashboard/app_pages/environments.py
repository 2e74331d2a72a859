"""Environments: a plan's scenario x environment pass rates, and failures that concentrate on
some environments or started with a new browser version."""

import streamlit as st

from dashboard.data import cache_names
from dashboard.present import environments_view
from dashboard.state import links, routes
from dashboard.state.params import PLAN, WINDOW
from dashboard.ui import analytics_input, marking, notices, table_views, view_parts
from dashboard.ui import triage as triage_view
from dashboard.ui.page import open_page
from dashboard.ui.zones import viewer_zone

ROUTE = routes.ENVIRONMENTS

page = open_page(ROUTE, "Environments", plans="needed", plan_for="heat map")
connection, state, now = page.connection, page.state, page.now

widgets = page.widgets()
top = st.columns([3, 1, 1.4, 2], vertical_alignment="bottom")
with top[0]:
    widgets.selectbox("Plan", PLAN, {None: "Pick a plan", **page.plan_names})
with top[1]:
    widgets.number("Window (W)", WINDOW, step=1)
with top[2]:
    triage_view.outages_toggle(widgets)
with top[3]:
    tz = viewer_zone(widgets, state)
page.settle()
if state.plan is None:
    notices.show_notes([environments_view.PICK], severity="info")
    st.stop()

# Outages are found among the lookback's executions and left out before the plan's last W are
# counted, unless the viewer includes them (as on Flaky).
triage = triage_view.triage_of(
    connection,
    analytics_input.lookback_executions(connection, now=now, project=None, plan=state.plan),
    now=now,
    state=state,
)
loaded = analytics_input.load_window(
    connection, now=now, window=state.window, plan=state.plan, leave_out=triage.left_out
)
view = environments_view.environments_view(
    loaded.executions,
    loaded.analysed,
    loaded.results,
    triage.marks,
    plan=state.plan,
    plan_name=page.plan_name,
    window=state.window,
    tz=tz,
    today=now.date(),
    scenario_link=lambda plan, scenario: links.scenario_link(plan, scenario, window=state.window),
    names=cache_names.names(connection),
)
triage_view.outages_caption(triage)

st.header("Environment-specific failures", divider="gray")
notices.caption(view.specific_caption)
view_parts.say(view.specific)
table_views.show(view.specific_table)

st.header("Failures that started with a new version", divider="gray")
notices.caption(view.versions_caption)
view_parts.say(view.versions)
table_views.show(view.versions_table)

st.header("Pass rate by scenario and environment", divider="gray")
notices.caption(view.matrix_caption)
if view.matrix is None:
    view_parts.say(view.no_results)
    st.stop()
view_parts.chart(view.matrix.heatmap)
notices.caption(view.matrix.known)
marking.mark_failures(
    "environments",
    view.matrix.to_mark,
    page.plan_names,
    ledger=triage.ledger,
    connection=connection,
    now=now,
)
table_views.show(view.matrix.table)

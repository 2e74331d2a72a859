"""Time to green: how long plans stay red. Each plan's time to green over 30 and 90 days and its
trend, every red stretch, and how old each failure group is."""

import streamlit as st

from dashboard.data import cache_names
from dashboard.present.time_to_green_view import GROUPINGS, TimeToGreenView
from dashboard.state import routes
from dashboard.state.params import GROUPS
from dashboard.ui import analytics_input, group_rules, notices, shared_views, table_views
from dashboard.ui import triage as triage_view
from dashboard.ui.page import open_page
from dashboard.ui.zones import viewer_zone

ROUTE = routes.TIME_TO_GREEN

page = open_page(ROUTE, "Time to green", plans="wanted")
connection, state, now = page.connection, page.state, page.now

widgets = page.widgets()
top = st.columns([2, 2, 1.2, 2], vertical_alignment="bottom")
page.scope_pickers(widgets, top[0], top[1])
with top[2]:
    triage_view.outages_toggle(widgets)
with top[3]:
    tz = viewer_zone(widgets, state)
page.settle()

# Likely outages are left out of every figure unless included: a night the grid was down is
# not a plan turning red, and its one message is not a failure group to age.
loaded = analytics_input.lookback_executions(
    connection, now=now, project=state.project, plan=state.plan
)
triage = triage_view.triage_of(connection, loaded, now=now, state=state)
executions = triage.without_outages(loaded)
# Made once per input and shared by every viewer of the same data (`ui.shared_views`).
view: TimeToGreenView = shared_views.time_to_green(
    connection,
    loaded,
    triage,
    now=now,
    tz=tz,
    project=page.project_name,
    plan=page.plan_name,
)

for column, (label, value) in zip(st.columns(len(view.kpis)), view.kpis, strict=True):
    column.metric(label, value)
notices.caption(view.turns_caption)
triage_view.outages_caption(triage)

st.header("Plans", divider="gray")
notices.caption(view.plans_caption)
if view.no_plan:
    notices.show_notes([view.no_plan], severity="info")
table_views.show(view.plans)

st.header("Red stretches", divider="gray")
notices.caption(view.stretches_caption)
notices.caption(view.outages_caption)
table_views.show(view.stretches)

st.header("How old each failure is", divider="gray")
widgets.segmented("Failure groups", GROUPS, GROUPINGS, label_visibility="collapsed")
ages = view.failure_ages(
    analytics_input.results_of(
        connection, view.failing, executions, part="the results of the failing executions"
    ),
    group_rules.rules_of(connection),
    grouping=state.grouping,
    names=cache_names.names(connection),
)
notices.caption(ages.caption)
if ages.none_failed:
    notices.show_notes([ages.none_failed], severity="info")
table_views.show(ages.table)

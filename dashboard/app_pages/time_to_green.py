"""Time to green: how long plans stay red. Each plan's time to green over 30 and 90 days and its
trend, every red stretch, and how old each failure group is."""

import pandas as pd
import streamlit as st

from dashboard.analytics import failure_groups as groups_analytics
from dashboard.analytics import red_stretches
from dashboard.present import time_to_green as red_view
from dashboard.present.captions import scope_text
from dashboard.state import links, routes
from dashboard.ui import analytics_input, notices
from dashboard.ui import triage as triage_view
from dashboard.ui.page import open_page
from dashboard.ui.tables import link_column, table, time_column
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
found = red_stretches.time_to_green(executions, now=pd.Timestamp(now))
scope = scope_text(project=page.project_name, plan=page.plan_name)

kpis = st.columns(3)
kpis[0].metric(f"Turned red, last {found.turns.days} days", f"{found.turns.turned_red:,}")
kpis[1].metric("Back to green", f"{found.turns.back_to_green:,}")
kpis[2].metric("Red now", f"{int(found.plans['red_now'].sum()):,} plans")
notices.caption(red_view.turns_caption(found.turns))
triage_view.outages_caption(triage)

st.header("Plans", divider="gray")
notices.caption(red_view.plans_caption(found.basis, found, today=now.date(), scope=scope))
if found.plans.empty:
    notices.show_notes(["No plan has a finished execution with a verdict here."], severity="info")
table(
    red_view.plans_display(found),
    key="red.plans",
    file_name="time-to-green.csv",
    column_config={"Now": st.column_config.TextColumn(width="medium")},
)

st.header("Red stretches", divider="gray")
notices.caption(red_view.stretches_caption(found))
table(
    red_view.stretches_display(
        found.stretches,
        results_link=lambda e, p, s: links.results_link(e, plan_id=p, started=s),
        compare_link=lambda p, before, after: links.compare_link(p, before, after),
    ),
    key="red.stretches",
    file_name="red-stretches.csv",
    tz=tz,
    column_config={
        "Red from": time_column(tz),
        "Green again": time_column(tz),
        "First red": link_column("results"),
        "What changed": link_column("compare"),
        "Green run": link_column("results"),
    },
)

st.header("How old each failure is", divider="gray")
failing = executions[executions["failed"].fillna(0) > 0]
fan_out = analytics_input.results_of(
    connection, failing, executions, part="the results of the failing executions"
)
grouped = groups_analytics.failure_groups(failing, fan_out)
ages = red_stretches.failure_group_ages(grouped.groups, executions, now=pd.Timestamp(now))
notices.caption(red_view.groups_caption(grouped.basis, today=now.date(), scope=scope))
if grouped.groups.empty:
    notices.show_notes(["No result failed in these executions."], severity="info")
table(
    red_view.groups_display(grouped.groups, ages),
    key="red.groups",
    file_name="failure-group-ages.csv",
    tz=tz,
    column_config={
        "Message": st.column_config.TextColumn(width="medium"),
        "First seen": time_column(tz),
        "Last seen": time_column(tz),
    },
)

"""Slower scenarios: every scenario clearly slower than its own earlier runs, across plans, most
slowed first, each with its evidence and a link to its history."""

import streamlit as st

from dashboard.data import cache_names
from dashboard.present.captions import scope_text
from dashboard.present.slower_view import slower_view
from dashboard.state import links, routes
from dashboard.state.params import WINDOW
from dashboard.ui import analytics_input, notices, table_views
from dashboard.ui.page import open_page
from dashboard.ui.zones import viewer_zone

ROUTE = routes.SLOWER

page = open_page(ROUTE, "Slower scenarios", plans="needed")
connection, state, now = page.connection, page.state, page.now

widgets = page.widgets()
top = st.columns([2, 2, 1, 2], vertical_alignment="bottom")
page.scope_pickers(widgets, top[0], top[1])
with top[2]:
    widgets.number("Window (W)", WINDOW, step=1)
with top[3]:
    tz = viewer_zone(widgets, state)
page.settle()

loaded = analytics_input.load_window(
    connection, now=now, window=state.window, project=state.project, plan=state.plan
)
view = slower_view(
    loaded.executions,
    loaded.results,
    window=state.window,
    today=now.date(),
    scope=scope_text(project=page.project_name, plan=page.plan_name),
    plan_names=page.plan_names,
    scenario_link=lambda plan, scenario: links.scenario_link(plan, scenario, window=state.window),
    tz=tz,
    names=cache_names.names(connection),
)

with st.expander("How a scenario is judged slower", icon=":material/help:"):
    st.markdown(view.rule)
notices.caption(view.caption)
if view.none_note:
    notices.show_notes([view.none_note], severity="info")
table_views.show(view.table)

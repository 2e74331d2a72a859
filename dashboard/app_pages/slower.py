"""Slower scenarios: every scenario clearly slower than its own earlier runs, across plans, most
slowed first, each with its evidence and a link to its history."""

import streamlit as st

from dashboard.analytics import slower_scenarios as slower_analytics
from dashboard.present import slower_scenarios as slower_view
from dashboard.present.captions import describe_window, scope_text
from dashboard.state import links, routes
from dashboard.state.params import WINDOW
from dashboard.ui import analytics_input, notices
from dashboard.ui.page import open_page
from dashboard.ui.tables import ident_column, link_column, table, time_column, wide_text_column
from dashboard.ui.zones import viewer_zone

ROUTE = routes.SLOWER

page = open_page(ROUTE, "Slower scenarios", plans="needed")
connection, state, now, plan_names = page.connection, page.state, page.now, page.plan_names

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
found = slower_analytics.slower_scenarios(loaded.executions, loaded.results, window=state.window)
with st.expander("How a scenario is judged slower", icon=":material/help:"):
    st.markdown(slower_view.rule_text(found))
notices.caption(
    describe_window(
        found.basis,
        loaded.executions,
        today=now.date(),
        scope=scope_text(project=page.project_name, plan=page.plan_name),
        window=state.window,
        each_plan=True,
    )
    + ". "
    + slower_view.judged_text(found)
)


def history(plan: int, scenario: int) -> str:
    return links.scenario_link(plan, scenario, window=state.window)


display = slower_view.slower_display(found, plan_names, history)
if display.empty:
    notices.show_notes([slower_view.none_text(found)], severity="info")
table(
    display,
    key="slower.table",
    file_name="slower-scenarios.csv",
    tz=tz,
    column_config={
        "Scenario": ident_column(),
        "Evidence": wide_text_column(),
        "Latest run": time_column(tz),
        "History": link_column("history"),
    },
)

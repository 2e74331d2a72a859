"""Environments: a plan's scenario x environment pass rates, and failures that concentrate on
some environments or started with a new browser version."""

import streamlit as st

from dashboard.analytics import environments as env_analytics
from dashboard.analytics import known_figures
from dashboard.analytics import marks as mark_analytics
from dashboard.present import analytics_charts
from dashboard.present import environments as env_view
from dashboard.present import known as known_words
from dashboard.present.captions import describe_window, scope_text
from dashboard.state import links, routes
from dashboard.state.params import PLAN, WINDOW
from dashboard.ui import analytics_input, marking, notices
from dashboard.ui import triage as triage_view
from dashboard.ui.charts import chart
from dashboard.ui.page import open_page
from dashboard.ui.tables import ident_column, link_column, rate_column, table, time_column
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
    notices.show_notes(["Pick a plan to see its scenarios on each environment."], severity="info")
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
report = env_analytics.environment_report(loaded.analysed, loaded.results)
cells = mark_analytics.known_cells(loaded.results, triage.marks)
basis_text = describe_window(
    report.basis,
    loaded.executions,
    today=now.date(),
    scope=scope_text(plan=page.plan_name),
    window=state.window,
)
triage_view.outages_caption(triage)


def history(plan: int, scenario: int) -> str:
    return links.scenario_link(plan, scenario, window=state.window)


st.header("Environment-specific failures", divider="gray")
notices.caption(env_view.specific_caption(basis_text))
if report.specific.empty:
    notices.show_notes(
        ["No scenario's failures concentrate on some environments."], severity="info"
    )
else:
    for sentence in env_view.specific_sentences(report.specific):
        notices.plain(sentence)
table(
    env_view.specific_display(report.specific, history),
    key="environments.specific",
    file_name=f"plan-{state.plan}-environment-specific.csv",
    column_config={"Scenario": ident_column(), "History": link_column("history")},
)

st.header("Failures that started with a new version", divider="gray")
notices.caption(env_view.versions_caption(basis_text))
if report.version_changes.empty:
    notices.show_notes(["No failures started with a browser version change."], severity="info")
table(
    env_view.version_display(report.version_changes),
    key="environments.versions",
    file_name=f"plan-{state.plan}-version-changes.csv",
    column_config={"First seen": time_column(tz)},
)

st.header("Pass rate by scenario and environment", divider="gray")
notices.caption(env_view.matrix_caption(basis_text))
if report.matrix.empty:
    notices.show_notes(["These executions have no results."], severity="info")
    st.stop()
chart(
    analytics_charts.environment_heatmap_chart(report.matrix),
    key="environments.heatmap",
    file_name=f"plan-{state.plan}-pass-rate-heat-map.csv",
)
matrix = known_figures.matrix_with_known(report.matrix, cells)
notices.caption(known_words.known_caption(int(matrix["known"].sum()), int(matrix["failed"].sum())))
marking.mark_failures(
    "environments",
    matrix[matrix["failed"] > 0],
    page.plan_names,
    ledger=triage.ledger,
    connection=connection,
    now=now,
)
table(
    env_view.matrix_display(matrix, history),
    key="environments.matrix",
    file_name=f"plan-{state.plan}-environments.csv",
    column_config={
        "Scenario": ident_column(),
        "Pass rate": rate_column(),
        "Pass rate without known": rate_column(),
        "History": link_column("history"),
    },
)

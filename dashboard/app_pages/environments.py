"""Environments: a plan's scenario x environment pass rates, and failures that concentrate on
some environments or started with a new browser version."""

import streamlit as st

from dashboard.analytics import environments as env_analytics
from dashboard.present import analytics_charts
from dashboard.present import environments as env_view
from dashboard.present import flaky as flaky_view
from dashboard.present.captions import describe_basis
from dashboard.state import links, routes
from dashboard.state.params import WINDOW_BOUNDS
from dashboard.ui import analytics_input, notices, url_filters
from dashboard.ui.tables import table
from dashboard.ui.zones import viewer_zone

ROUTE = routes.ENVIRONMENTS

start = analytics_input.start_page(ROUTE, "Environments", plan_for="heat map")
connection, state, problems, now = start.connection, start.state, start.problems, start.now
plan_names = start.plan_names

widgets = url_filters.UrlFilters(ROUTE, state)
top = st.columns([3, 1, 2], vertical_alignment="bottom")
with top[0]:
    widgets.selectbox("Plan", "plan", {None: "Pick a plan", **plan_names})
with top[1]:
    widgets.number(
        "Window (W)", "window", min_value=WINDOW_BOUNDS[0], max_value=WINDOW_BOUNDS[1], step=1
    )
with top[2]:
    tz = viewer_zone(widgets, state)
url_filters.write_url(state, ROUTE)
notices.show_notes(problems)
if state.plan is None:
    notices.show_notes(["Pick a plan to see its scenarios on each environment."], severity="info")
    st.stop()

loaded = analytics_input.load_window(connection, now=now, window=state.window, plan=state.plan)
report = env_analytics.environment_report(loaded.window, loaded.results)
basis_text = (
    describe_basis(report.basis, today=now.date(), scope=f"of plan {plan_names[state.plan]}")
    + f" (its last {state.window} finished executions)"
    + flaky_view.running_note(loaded.executions)
)

st.subheader("Environment-specific failures", divider="gray")
notices.caption(
    basis_text
    + f". Flagged: a scenario that failed in at least {env_analytics.FAIL_SHARE:.0%} of at least "
    f"{env_analytics.MIN_RUNS} runs on an environment and passed in at least "
    f"{env_analytics.PASS_SHARE:.0%} of its runs elsewhere."
)


def history(plan: int, scenario: int) -> str:
    return links.scenario_link(plan, scenario, window=state.window)


if report.specific.empty:
    notices.show_notes(
        ["No scenario's failures concentrate on some environments."], severity="info"
    )
else:
    for _, row in report.specific.iterrows():
        notices.plain(f"Scenario {int(row['scenario_id'])} {env_view.specific_sentence(row)}")
table(
    env_view.specific_display(report.specific, history),
    key="environments.specific",
    file_name=f"plan-{state.plan}-environment-specific.csv",
    column_config={
        "Scenario": st.column_config.NumberColumn(format="%d", width="small"),
        "History": st.column_config.LinkColumn(display_text="history"),
    },
)

st.subheader("Failures that started with a new version", divider="gray")
notices.caption(
    basis_text + ". Desktop browsers: a version that failed where the version seen before passed."
)
if report.version_changes.empty:
    notices.show_notes(["No failures started with a browser version change."], severity="info")
table(
    env_view.version_display(report.version_changes),
    key="environments.versions",
    file_name=f"plan-{state.plan}-version-changes.csv",
    column_config={
        "First seen": st.column_config.DatetimeColumn(format="D MMM, HH:mm", timezone=tz),
    },
)

st.subheader("Pass rate by scenario and environment", divider="gray")
notices.caption(basis_text + ". Hover a cell for its counts; grey: the scenario did not run there.")
if report.matrix.empty:
    notices.show_notes(["These executions have no results."], severity="info")
    st.stop()
st.plotly_chart(analytics_charts.environment_heatmap(report.matrix), key="environments.heatmap")
table(
    env_view.matrix_display(report.matrix, history),
    key="environments.matrix",
    file_name=f"plan-{state.plan}-environments.csv",
    column_config={
        "Scenario": st.column_config.NumberColumn(format="%d", width="small"),
        "Pass rate": st.column_config.NumberColumn(format="%.1f %%"),
        "History": st.column_config.LinkColumn(display_text="history"),
    },
)

"""One scenario of one plan: its outcome and runtime in every execution of the window, per
environment, with the failure messages, log links and a runtime regression flag."""

import streamlit as st

from dashboard.analytics import history as history_analytics
from dashboard.analytics import plans as plan_analytics
from dashboard.present import analytics_charts
from dashboard.present import flaky as flaky_view
from dashboard.present import scenario as scenario_view
from dashboard.present.captions import describe_basis
from dashboard.present.formatting import visible_text
from dashboard.state import links, plan_choice, routes
from dashboard.state.params import WINDOW_BOUNDS
from dashboard.ui import analytics_input, notices, url_filters
from dashboard.ui.tables import table
from dashboard.ui.zones import viewer_zone

ROUTE = routes.SCENARIO

start = analytics_input.start_page(ROUTE, "Scenario history", plan_for="scenario history")
connection, state, problems, now = start.connection, start.state, start.problems, start.now
plans, plan_names = start.plans, start.plan_names
scenarios = plan_analytics.plan_scenarios(plans, state.plan) if state.plan is not None else None
past = None  # the window's results of a scenario the plan no longer lists
unlisted = state.scenario is not None and scenarios is not None and state.scenario not in scenarios
if unlisted and state.plan is not None and state.scenario is not None:
    # Links from past runs name scenarios the plan has dropped since: look for its runs.
    past = analytics_input.load_scenario_window(
        connection, now=now, window=state.window, plan=state.plan, scenario=state.scenario
    )
state, scenario_problems = plan_choice.check_scenario(
    state,
    scenarios,
    ran=set(past.results["scenario_id"].dropna().astype(int)) if past is not None else None,
    looked_in=f"its last {state.window} finished executions",
)
problems += scenario_problems
plan_name = visible_text(plan_names[state.plan], one_line=True) if state.plan is not None else ""
retired = plan_choice.retired_note(state, scenarios, plan_name)

if state.scenario is not None:
    start.heading.title(f"Scenario {state.scenario}")
if state.plan is not None and state.scenario is not None:
    notices.plain(f"Plan: {plan_name}")
widgets = url_filters.UrlFilters(ROUTE, state)
top = st.columns([3, 2, 1, 2], vertical_alignment="bottom")
with top[0]:
    widgets.selectbox(
        "Plan", "plan", {None: "Pick a plan", **plan_names}, resets={"scenario": None}
    )
with top[1]:
    listed = {s: f"Scenario {s}" for s in scenarios or ()}
    if retired is not None and state.scenario is not None:
        listed[state.scenario] = f"Scenario {state.scenario} (no longer in the plan)"
    widgets.selectbox("Scenario", "scenario", {None: "Pick a scenario", **listed})
with top[2]:
    widgets.number(
        "Window (W)", "window", min_value=WINDOW_BOUNDS[0], max_value=WINDOW_BOUNDS[1], step=1
    )
with top[3]:
    tz = viewer_zone(widgets, state)
url_filters.write_url(state, ROUTE)
notices.show_notes(problems)
if retired is not None:
    notices.show_notes([retired], severity="info")
if state.plan is None or state.scenario is None:
    notices.show_notes(["Pick a plan and one of its scenarios."], severity="info")
    st.stop()

loaded = (
    past
    if past is not None
    else analytics_input.load_window(connection, now=now, window=state.window, plan=state.plan)
)
history = history_analytics.scenario_history(
    loaded.window, loaded.results, state.plan, state.scenario
)
basis_text = (
    describe_basis(history.basis, today=now.date(), scope=f"of plan {plan_names[state.plan]}")
    + f" (its last {state.window} finished executions)"
    + flaky_view.running_note(loaded.executions)
)
st.page_link(
    routes.FLAKY.script,
    label="Flaky scenarios of this plan",
    icon=":material/shuffle:",
    query_params=url_filters.link_params(state, routes.FLAKY),
)
notices.caption(basis_text)
if history.cells.empty:
    notices.show_notes(["The scenario has no results in these executions."], severity="info")
    st.stop()

st.subheader("Runtime", divider="gray")
regression = scenario_view.regression_text(
    history.overall, history_analytics.RECENT, history_analytics.MIN_EARLIER
)
if history.overall.regressed:
    notices.show_notes([regression], severity="warning")
else:
    notices.caption(regression)
st.plotly_chart(analytics_charts.scenario_runtime(history.cells, tz), key="scenario.runtime")
table(
    scenario_view.regression_display(history.by_environment),
    key="scenario.regressions",
    file_name=f"plan-{state.plan}-scenario-{state.scenario}-runtime.csv",
)

st.subheader("Outcomes", divider="gray")
notices.caption(basis_text + ". One row per environment, one dot per execution.")
st.plotly_chart(analytics_charts.scenario_timeline(history.cells, tz), key="scenario.timeline")
table(
    scenario_view.history_display(
        history, lambda e, p, s: links.results_link(e, plan_id=p, started=s)
    ),
    key="scenario.table",
    file_name=f"plan-{state.plan}-scenario-{state.scenario}.csv",
    column_config={
        "Started": st.column_config.DatetimeColumn(format="D MMM, HH:mm", timezone=tz),
        "Execution": st.column_config.NumberColumn(format="%d", width="small"),
        "Message": st.column_config.TextColumn(width="large"),
        "Node log": st.column_config.LinkColumn(display_text="node log"),
        "Executor log": st.column_config.LinkColumn(display_text="executor log"),
        "Results": st.column_config.LinkColumn(display_text="results"),
    },
)

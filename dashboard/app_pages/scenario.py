"""One scenario of one plan: its outcome and runtime in every execution of the window, per
environment, with the failure messages, log links and a runtime regression flag."""

import streamlit as st

from dashboard.analytics import history as history_analytics
from dashboard.analytics import marks as mark_analytics
from dashboard.analytics import plans as plan_analytics
from dashboard.analytics.marks import failed_of
from dashboard.present import analytics_charts
from dashboard.present import known as known_words
from dashboard.present import scenario as scenario_view
from dashboard.present.captions import describe_window, scope_text
from dashboard.present.formatting import visible_text
from dashboard.state import links, plan_choice, routes
from dashboard.state.params import PLAN, SCENARIO, WINDOW
from dashboard.ui import analytics_input, marking, notices, url_filters
from dashboard.ui import triage as triage_view
from dashboard.ui.charts import chart
from dashboard.ui.page import open_page
from dashboard.ui.tables import ident_column, link_column, table, time_column, wide_text_column
from dashboard.ui.zones import viewer_zone

ROUTE = routes.SCENARIO

page = open_page(ROUTE, "Scenario history", plans="needed", plan_for="scenario history")
connection, state, now = page.connection, page.state, page.now
scenarios = (
    plan_analytics.plan_scenarios(page.plans, state.plan) if state.plan is not None else None
)
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
page = page.checked(state, scenario_problems)
plan_name = visible_text(page.plan_name, one_line=True) if state.plan is not None else ""
retired = plan_choice.retired_note(state, scenarios, plan_name)

if state.scenario is not None:
    page.heading.title(f"Scenario {state.scenario}")
if state.plan is not None and state.scenario is not None:
    notices.plain(f"Plan: {plan_name}")
widgets = page.widgets()
top = st.columns([3, 2, 1, 2], vertical_alignment="bottom")
with top[0]:
    widgets.selectbox(
        "Plan", PLAN, {None: "Pick a plan", **page.plan_names}, resets={SCENARIO: None}
    )
with top[1]:
    listed = scenario_view.scenario_options(scenarios, state.scenario if retired else None)
    widgets.selectbox("Scenario", SCENARIO, {None: "Pick a scenario", **listed})
with top[2]:
    widgets.number("Window (W)", WINDOW, step=1)
with top[3]:
    tz = viewer_zone(widgets, state)
page.settle()
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
    loaded.analysed, loaded.results, state.plan, state.scenario
)
basis_text = describe_window(
    history.basis,
    loaded.executions,
    today=now.date(),
    scope=scope_text(plan=page.plan_name),
    window=state.window,
)
url_filters.page_link(
    routes.FLAKY, state, label="Flaky scenarios of this plan", icon=":material/shuffle:"
)
notices.caption(basis_text)
if history.cells.empty:
    notices.show_notes(["The scenario has no results in these executions."], severity="info")
    st.stop()

st.header("Outcomes", divider="gray")
notices.caption(scenario_view.outcomes_caption(basis_text))
chart(
    analytics_charts.scenario_timeline_chart(history.cells, tz),
    key="scenario.timeline",
    file_name=f"plan-{state.plan}-scenario-{state.scenario}-outcomes-chart.csv",
)
table(
    scenario_view.history_display(
        history, lambda e, p, s: links.results_link(e, plan_id=p, started=s)
    ),
    key="scenario.table",
    file_name=f"plan-{state.plan}-scenario-{state.scenario}.csv",
    column_config={
        "Started": time_column(tz),
        "Execution": ident_column(),
        "Message": wide_text_column(),
        "Node log": link_column("node log"),
        "Executor log": link_column("executor log"),
        "Results": link_column("results"),
    },
)

# What the team knows about this scenario's failures, and marking them from here.
triage = triage_view.triage_of(connection, None, now=now, state=state)
own = loaded.results[
    (loaded.results["plan_id"] == state.plan) & (loaded.results["scenario_id"] == state.scenario)
]
failed = failed_of(own)
if not failed.empty:
    notices.caption(
        known_words.known_caption(
            int(mark_analytics.known_per_execution(own, triage.marks).sum()), len(failed)
        )
    )
    marking.mark_failures(
        "scenario",
        failed.drop_duplicates(["environment"]),
        page.plan_names,
        ledger=triage.ledger,
        connection=connection,
        now=now,
        signatures=failed["signature"],
        plan_id=state.plan,
    )

st.header("Runtime", divider="gray")
regression = scenario_view.regression_text(
    history.overall, history_analytics.RECENT, history_analytics.MIN_EARLIER
)
if history.overall.regressed:
    notices.show_notes([regression], severity="warning")
else:
    notices.caption(regression)
chart(
    analytics_charts.scenario_runtime_chart(history.cells, tz),
    key="scenario.runtime",
    file_name=f"plan-{state.plan}-scenario-{state.scenario}-runtime-chart.csv",
)
table(
    scenario_view.regression_display(history.by_environment),
    key="scenario.regressions",
    file_name=f"plan-{state.plan}-scenario-{state.scenario}-runtime.csv",
)

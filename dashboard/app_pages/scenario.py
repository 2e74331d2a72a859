"""One scenario of one plan: its outcome and runtime in every execution of the window, per
environment, with the failure messages, log links and a runtime regression flag."""

import streamlit as st

from dashboard.present import scenario as scenario_words
from dashboard.present import scenario_view
from dashboard.state import links, routes
from dashboard.state.params import PLAN, SCENARIO, WINDOW
from dashboard.ui import analytics_input, marking, notices, table_views, url_filters, view_parts
from dashboard.ui import triage as triage_view
from dashboard.ui.page import open_page
from dashboard.ui.scenario_choice import choose_scenario, name_form
from dashboard.ui.zones import viewer_zone

ROUTE = routes.SCENARIO

page = open_page(ROUTE, "Scenario history", plans="needed", plan_for="scenario history")
choice = choose_scenario(page)
page, retired = choice.page, choice.retired
connection, state, now = page.connection, page.state, page.now

if state.scenario is not None:
    page.heading.title(scenario_view.title(state.scenario, choice.names))
if state.plan is not None and state.scenario is not None:
    notices.plain(f"Plan: {choice.plan_name}")
widgets = page.widgets()
top = st.columns([3, 2, 1, 2], vertical_alignment="bottom")
with top[0]:
    widgets.selectbox(
        "Plan", PLAN, {None: "Pick a plan", **page.plan_names}, resets={SCENARIO: None}
    )
with top[1]:
    retired_id = state.scenario if retired else None
    listed = scenario_words.scenario_options(choice.scenarios, retired_id, choice.names)
    widgets.selectbox("Scenario", SCENARIO, {None: "Pick a scenario", **listed})
with top[2]:
    widgets.number("Window (W)", WINDOW, step=1)
with top[3]:
    tz = viewer_zone(widgets, state)
page.settle()
if retired is not None:
    notices.show_notes([retired], severity="info")
name_form(choice)
if state.plan is None or state.scenario is None:
    notices.show_notes([scenario_view.PICK], severity="info")
    st.stop()

loaded = choice.past or analytics_input.load_window(
    connection, now=now, window=state.window, plan=state.plan
)
# What the team knows of its failures (marking them from here), and its one verdict now.
triage = triage_view.triage_of(connection, None, now=now, state=state)
verdicts = triage_view.verdicts_of(
    connection, loaded.results, loaded.executions, triage.ledger, now=now
)
view = scenario_view.scenario_view(
    loaded.executions,
    loaded.analysed,
    loaded.results,
    triage.marks,
    plan=state.plan,
    scenario=state.scenario,
    plan_name=page.plan_name,
    window=state.window,
    tz=tz,
    today=now.date(),
    results_link=lambda e, p, s: links.results_link(e, plan_id=p, started=s),
    verdicts=verdicts,
)
view_parts.say(view.current)
url_filters.page_link(
    routes.FLAKY, state, label="Flaky scenarios of this plan", icon=":material/shuffle:"
)
notices.caption(view.basis)
if view.empty:
    notices.show_notes([scenario_view.NO_RESULTS], severity="info")
    st.stop()

st.header("Outcomes", divider="gray")
notices.caption(view.outcomes_caption)
view_parts.chart(view.timeline)
table_views.show(view.table)
if view.known is not None:
    notices.caption(view.known.caption)
    marking.mark_failures(
        "scenario",
        view.known.to_mark,
        page.plan_names,
        ledger=triage.ledger,
        connection=connection,
        now=now,
        signatures=view.known.signatures,
        plan_id=state.plan,
    )

st.header("Runtime", divider="gray")
view_parts.say(view.regression)
view_parts.chart(view.runtime)
table_views.show(view.regressions)

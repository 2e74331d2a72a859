"""Scenario states: every scenario flaky, broken, environment-specific, recovering, failing,
passing or without enough data, with the numbers behind it and the verdict of its latest
failure (outages left out, as every verdict does); other settings previewed before applied."""

from typing import Any

import streamlit as st

from dashboard.present import states, states_view
from dashboard.present.captions import scope_text
from dashboard.state import links, routes
from dashboard.state.params import BROKEN_RUNS, MIN_RUNS, STATE, THRESHOLD, WINDOW, Param
from dashboard.ui import analytics_input, notices, scenario_choice, table_views
from dashboard.ui import triage as triage_view
from dashboard.ui.page import open_page
from dashboard.ui.zones import viewer_zone

ROUTE = routes.STATES

page = open_page(ROUTE, "Scenario states", plans="needed")
connection, state, now = page.connection, page.state, page.now

widgets = page.widgets()
top = st.columns([2, 2, 3, 2], vertical_alignment="bottom")
page.scope_pickers(widgets, top[0], top[1])
with top[2]:
    widgets.multiselect("States", STATE, states_view.STATE_CHOICES, placeholder="Every state")
    names, mine = scenario_choice.names_and_mine(widgets, state, connection)
with top[3]:
    tz = viewer_zone(widgets, state)
page.settle()

applied = states_view.rules(
    window=state.window,
    threshold=state.threshold,
    min_runs=state.min_runs,
    broken_runs=state.broken_runs,
)
settings = st.columns([1, 1, 1, 1, 1], vertical_alignment="bottom")
with settings[0]:
    window = widgets.draft_number("Window (W)", WINDOW, step=1)
with settings[1]:
    threshold = widgets.draft_number("Flaky threshold", THRESHOLD, step=0.05)
with settings[2]:
    min_runs = widgets.draft_number("Runs needed (K)", MIN_RUNS, step=1)
with settings[3]:
    broken_runs = widgets.draft_number("Broken over (N)", BROKEN_RUNS, step=1)
proposed = states_view.proposed(applied, window, threshold, min_runs, broken_runs)
with settings[4]:
    settled: dict[Param[Any], Any] = {WINDOW: proposed.window, THRESHOLD: proposed.threshold}
    settled |= {MIN_RUNS: proposed.min_runs, BROKEN_RUNS: proposed.broken_runs}
    widgets.apply("Apply", settled, disabled=proposed == applied, icon=":material/check:")
preview = st.container()
with st.expander("How a state is decided", icon=":material/help:"):
    st.markdown(states.rules_text(applied))

# Each plan's last max(W, proposed W) executions serve both settings; outages never counted.
lookback = analytics_input.lookback_executions(
    connection, now=now, project=state.project, plan=state.plan
)
triage = triage_view.triage_of(connection, lookback, now=now, state=state)
loaded = analytics_input.load_window(
    connection,
    now=now,
    window=max(applied.window, proposed.window),
    project=state.project,
    plan=state.plan,
    leave_out=states_view.left_out(triage.outages),
)
judged = states_view.judged(loaded.executions, applied)
verdicts = triage_view.verdicts_of(
    connection, loaded.results, lookback, triage.ledger, now=now, judged=judged, rules=applied
)
view = states_view.states_view(
    loaded.executions,
    loaded.results,
    applied,
    proposed,
    only=state.states,
    today=now.date(),
    scope=scope_text(project=page.project_name, plan=page.plan_name),
    plan_names=page.plan_names,
    scenario_link=lambda plan, scenario: links.scenario_link(plan, scenario, window=applied.window),
    verdicts=verdicts,
    outages=len(triage.outages),
    tz=tz,
    names=names,
    only_owner=mine,
)
with preview:
    notices.caption(view.preview_caption)
    table_views.show(view.preview)

st.header("Every scenario's state", divider="gray")
notices.caption(view.caption)
notices.caption(view.outages_caption)
if view.none_note:
    notices.show_notes([view.none_note], severity="info")
table_views.show(view.table)
notices.caption(view.legend)

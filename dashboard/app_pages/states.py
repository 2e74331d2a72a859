"""Scenario states: every scenario flaky, broken, environment-specific, recovering, failing,
passing or without enough data, with the numbers behind it; other settings previewed before
they are applied."""

import streamlit as st

from dashboard.analytics import states as states_analytics
from dashboard.present import flaky as flaky_view
from dashboard.present import states as states_view
from dashboard.present.captions import describe_window, scope_text
from dashboard.state import links, routes
from dashboard.state.params import BROKEN_RUNS, MIN_RUNS, STATE, THRESHOLD, WINDOW
from dashboard.ui import analytics_input, notices
from dashboard.ui.page import open_page
from dashboard.ui.tables import ident_column, link_column, table, wide_text_column
from dashboard.ui.zones import viewer_zone

ROUTE = routes.STATES

page = open_page(ROUTE, "Scenario states", plans="needed")
connection, state, now, plan_names = page.connection, page.state, page.now, page.plan_names

widgets = page.widgets()
top = st.columns([2, 2, 3, 2], vertical_alignment="bottom")
page.scope_pickers(widgets, top[0], top[1])
with top[2]:
    widgets.multiselect(
        "States",
        STATE,
        {s: states_view.state_label(s) for s in states_analytics.STATES},
        placeholder="Every state",
    )
with top[3]:
    tz = viewer_zone(widgets, state)
page.settle()

applied = states_analytics.StateRules(
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
proposed = applied.with_changes(
    window=int(window),
    threshold=float(threshold),
    min_runs=int(min_runs),
    broken_runs=int(broken_runs),
)
with settings[4]:
    widgets.apply(
        "Apply",
        {
            WINDOW: proposed.window,
            THRESHOLD: proposed.threshold,
            MIN_RUNS: proposed.min_runs,
            BROKEN_RUNS: proposed.broken_runs,
        },
        disabled=proposed == applied,
        icon=":material/check:",
    )
preview = st.container()
with st.expander("How a state is decided", icon=":material/help:"):
    st.markdown(states_view.rules_text(applied))

# One load serves both settings: each plan's last max(W, proposed W) executions hold both.
loaded = analytics_input.load_window(
    connection,
    now=now,
    window=max(applied.window, proposed.window),
    project=state.project,
    plan=state.plan,
)
found = states_analytics.scenario_states(loaded.executions, loaded.results, applied)
then = None
if proposed != applied:
    then = states_analytics.scenario_states(loaded.executions, loaded.results, proposed).counts()
with preview:
    notices.caption(states_view.preview_caption(applied, proposed))
    table(
        states_view.preview_display(found.counts(), then),
        key="states.preview",
        file_name="scenario-states-preview.csv",
    )

scope = scope_text(project=page.project_name, plan=page.plan_name)
st.header("Every scenario's state", divider="gray")
notices.caption(
    describe_window(
        found.basis,
        loaded.executions,
        today=now.date(),
        scope=scope,
        window=applied.window,
        each_plan=True,
    )
    + f". {states_view.counts_text(found.counts())}."
)


def history(plan: int, scenario: int) -> str:
    return links.scenario_link(plan, scenario, window=applied.window)


display = states_view.states_display(found, plan_names, history, only=state.states)
if display.empty:
    notices.show_notes(["No scenario is in these states over these executions."], severity="info")
table(
    display,
    key="states.table",
    file_name="scenario-states.csv",
    column_config={
        "Scenario": ident_column(),
        "Why": wide_text_column(),
        "History": link_column("history"),
    },
)
notices.caption(flaky_view.timeline_legend())

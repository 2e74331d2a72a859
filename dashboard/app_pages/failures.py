"""Failures: every failed result of a period across plans, with its environment, failure group,
message, logs, since when it has been failing and its scenario's state."""

from datetime import UTC, datetime, timedelta

import streamlit as st

from dashboard.analytics import failures as failures_analytics
from dashboard.analytics import states as states_analytics
from dashboard.present import failures as failures_view
from dashboard.present import states as states_view
from dashboard.present.captions import scope_text
from dashboard.present.tables import TABLE_ROW_LIMIT
from dashboard.state import links, routes
from dashboard.state.params import FROM, RANGE, STATE, TO, DateRange
from dashboard.state.query import execution_query, period
from dashboard.ui import analytics_input, notices
from dashboard.ui.page import open_page
from dashboard.ui.tables import ident_column, link_column, table, time_column, wide_text_column
from dashboard.ui.zones import viewer_zone

ROUTE = routes.FAILURES
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

page = open_page(ROUTE, "Failures", plans="wanted")
connection, state, now = page.connection, page.state, page.now

widgets = page.widgets()
top = st.columns([2, 2, 3, 2], vertical_alignment="bottom")
page.scope_pickers(widgets, top[0], top[1])
with top[2]:
    widgets.segmented(
        "Period",
        RANGE,
        {preset: preset.label for preset in DateRange},
        resets={FROM: (now - timedelta(days=1)).date(), TO: now.date()},
    )
with top[3]:
    tz = viewer_zone(widgets, state)
custom = state.date_range is DateRange.CUSTOM
second = st.columns([2, 2, 5] if custom else [5, 4], vertical_alignment="bottom")
if custom:
    with second[0]:
        widgets.date("From", FROM)
    with second[1]:
        widgets.date("To", TO)
with second[-1 if custom else 0]:
    widgets.multiselect(
        "States",
        STATE,
        {s: states_view.state_label(s) for s in states_analytics.STATES},
        placeholder="Every state",
    )
page.settle()

# The scenario states need each plan's last W executions; the lookback's executions also hold
# every preset period, so a custom period is the only one loaded on its own.
rules = states_analytics.StateRules()
loaded = analytics_input.load_window(
    connection, now=now, window=rules.window, project=state.project, plan=state.plan
)
span = period(state, now, tz=tz)
start = span.start or EPOCH  # a custom period with only an end: from the first
end = None if span.end is None else span.end + timedelta(milliseconds=1)  # its last ms, in
executions = loaded.executions
if custom:
    custom_runs = analytics_input.executions_for(
        connection, execution_query(state, now=now, email=None, tz=tz), part="the period"
    )
    executions = failures_analytics.together([executions, custom_runs], "execution_id")
found_states = states_analytics.scenario_states(loaded.executions, loaded.results, rules)
failing = failures_analytics.failing_executions(executions, start=start, end=end)
results = analytics_input.results_of(
    connection, failing, executions, part="the results of the failing executions"
)
found = failures_analytics.failures(
    executions,
    failures_analytics.together([loaded.results, results], "result_id"),
    start=start,
    end=end,
    read=[*loaded.analysed["execution_id"], *failing["execution_id"]],
    states=found_states.scenarios,
)
rows = failures_analytics.of_states(found.rows, state.states)

notices.caption(
    failures_view.basis_caption(
        found.basis,
        today=now.date(),
        scope=scope_text(project=page.project_name, plan=page.plan_name),
        window=rules.window,
    )
)
figures = st.columns(4)
for place, (label, value) in zip(figures, failures_view.summary(rows).items(), strict=True):
    place.metric(label, value)
if rows.empty:
    notices.show_notes([failures_view.none_text(state.states)], severity="info")
display = failures_view.failures_display(
    rows,
    plan_names=page.plan_names,
    scenario_link=links.scenario_link,
    results_link=lambda e, p, s: links.results_link(e, plan_id=p, started=s),
    tz=tz,
)
notices.caption(failures_view.shown_text(min(len(display), TABLE_ROW_LIMIT), len(display)))
table(
    display,
    key="failures.table",
    file_name="failures.csv",
    tz=tz,
    max_rows=TABLE_ROW_LIMIT,
    column_config={
        "Started": time_column(tz),
        "Scenario": ident_column(),
        "Failure group": st.column_config.TextColumn(width="medium"),
        "Message": wide_text_column(),
        "Results": link_column("results"),
        "History": link_column("history"),
        "Node log": link_column("node log"),
        "Executor log": link_column("executor log"),
    },
)

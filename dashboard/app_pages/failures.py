"""Failures: every failed result of a period across plans, with its verdict and evidence, its
mark, environment, failure group and category, message, logs, since when, and its state."""

from datetime import timedelta

import streamlit as st

from dashboard.data import cache_history
from dashboard.present import failures_view
from dashboard.present.states_view import STATE_CHOICES
from dashboard.state import routes
from dashboard.state.params import FROM, RANGE, STATE, TO, DateRange
from dashboard.state.query import execution_query, period
from dashboard.ui import analytics_input, notices, scenario_choice, shared_views, table_views
from dashboard.ui import triage as triage_view
from dashboard.ui.page import open_page
from dashboard.ui.zones import viewer_zone

ROUTE = routes.FAILURES

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
second = st.columns([2, 2, 5, 2] if custom else [5, 2, 2], vertical_alignment="bottom")
if custom:
    with second[0]:
        widgets.date("From", FROM)
    with second[1]:
        widgets.date("To", TO)
with second[-2 if custom else 0]:
    widgets.multiselect("States", STATE, STATE_CHOICES, placeholder="Every state")
with second[-1 if custom else 1]:
    triage_view.outages_toggle(widgets)
    names, mine = scenario_choice.names_and_mine(widgets, state, connection)
page.settle()

# Each plan's last W executions hold every preset period; outages stay (the verdicts label them).
loaded = analytics_input.load_window(
    connection, now=now, window=failures_view.WINDOW, project=state.project, plan=state.plan
)
custom_runs = None
if custom:
    custom_runs = analytics_input.executions_for(
        connection, execution_query(state, now=now, email=None, tz=tz), part="the period"
    )
span = period(state, now, tz=tz)
runs = failures_view.period_runs(loaded.executions, custom_runs, start=span.start, end=span.end)
results = analytics_input.results_of(
    connection, runs.failing, runs.executions, part="the results of the failing executions"
)
history = failures_view.triage_results(loaded.results, results)
ledger = cache_history.ledger(connection)
verdicts = triage_view.verdicts_of(
    connection, history, runs.executions, ledger, now=now, judged=runs.judged
)
# Made once per input and shared by every viewer of the same data (`ui.shared_views`).
view: failures_view.FailuresView = shared_views.failures(
    page, loaded, runs, results, verdicts, ledger, names=names, only_owner=mine, tz=tz
)

notices.caption(view.caption)
for place, (label, value) in zip(st.columns(len(view.figures)), view.figures.items(), strict=True):
    place.metric(label, value, help=view.figure_help.get(label))
notices.caption(view.split)
notices.caption(view.outages_caption)
if view.none_note:
    notices.show_notes([view.none_note], severity="info")
notices.caption(view.shown_caption)
table_views.show(view.table)

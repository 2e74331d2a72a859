"""Failures: every failed result of a period across plans, with its verdict and evidence, its
mark, environment, failure group and category, message, logs, since when, and its state."""

from datetime import timedelta

import streamlit as st

from dashboard.data import cache_history
from dashboard.present import failures_view
from dashboard.present.captions import scope_text
from dashboard.present.states_view import STATE_CHOICES
from dashboard.state import links, routes
from dashboard.state.params import FROM, RANGE, STATE, TO, DateRange
from dashboard.state.query import execution_query, period
from dashboard.ui import analytics_input, group_rules, notices, scenario_choice, table_views
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
view = failures_view.failures_view(
    loaded.executions,
    loaded.results,
    loaded.analysed,
    runs,
    results,
    verdicts=verdicts,
    marks=ledger.marks,
    names=names,
    rules=group_rules.rules_of(connection),
    only_owner=mine,
    include_outages=state.include_outages,
    only=state.states,
    now=now,
    standup_at=state.standup_at,
    scope=scope_text(project=page.project_name, plan=page.plan_name),
    plan_names=page.plan_names,
    scenario_link=links.scenario_link,
    results_link=lambda e, p, s: links.results_link(e, plan_id=p, started=s),
    tz=tz,
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

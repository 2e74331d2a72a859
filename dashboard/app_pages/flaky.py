"""Flaky scenarios: the scenarios that flip, with the evidence, and the window's failure groups."""

from functools import partial

import streamlit as st

from dashboard.data import cache, cache_names
from dashboard.present import flaky_view
from dashboard.present.captions import scope_text
from dashboard.state import links, routes
from dashboard.state.params import GROUPS, THRESHOLD, WINDOW
from dashboard.ui import analytics_input, group_rules, marking, notices, table_views
from dashboard.ui import triage as triage_view
from dashboard.ui.charts import chart
from dashboard.ui.page import open_page
from dashboard.ui.zones import viewer_zone

ROUTE = routes.FLAKY

page = open_page(ROUTE, "Flaky scenarios", plans="needed")
connection, state, now, plan_names = page.connection, page.state, page.now, page.plan_names

widgets = page.widgets()
top = st.columns([1.9, 1.9, 1, 1, 1.7, 1.9], vertical_alignment="bottom")
page.scope_pickers(widgets, top[0], top[1])
with top[2]:
    widgets.number("Window (W)", WINDOW, step=1)
with top[3]:
    widgets.number("Threshold", THRESHOLD, step=0.05)
with top[4]:
    triage_view.outages_toggle(widgets)
with top[5]:
    tz = viewer_zone(widgets, state)
page.settle()
with st.expander("How a scenario is judged flaky", icon=":material/help:"):
    st.markdown(flaky_view.rule(state.window, state.threshold))
lookback = analytics_input.lookback_executions(
    connection, now=now, project=state.project, plan=state.plan
)
triage = triage_view.triage_of(connection, lookback, now=now, state=state)
outages = flaky_view.left_out(triage.outages)
load = partial(analytics_input.load_window, connection, now=now, window=state.window)
loaded = load(project=state.project, plan=state.plan, leave_out=outages)
grouped = load(project=state.project, plan=state.plan) if triage.include and outages else loaded
read = flaky_view.verdict_results(loaded.results, grouped.results)
judged, rules = flaky_view.judged(grouped.analysed), flaky_view.rules(state.window, state.threshold)
verdicts = triage_view.verdicts_of(
    connection, read, lookback, triage.ledger, now=now, judged=judged, rules=rules
)
shown = flaky_view.flaky_page(
    loaded.analysed,
    loaded.results,
    loaded.executions,
    triage.marks,
    counts=loaded.fan_out.counts if loaded.fan_out is not None else None,
    window=state.window,
    threshold=state.threshold,
    today=now.date(),
    scope=scope_text(project=page.project_name, plan=page.plan_name),
    plan=state.plan,
    plan_names=plan_names,
    tz=tz,
    scenario_link=lambda p, s: links.scenario_link(p, s, window=state.window),
    results_link=lambda e, p, s: links.results_link(e, plan_id=p, started=s),
    memo=lambda inputs, build: cache.built(connection, "flaky.view", inputs, build),  # once
    verdicts=verdicts,
    grouped_window=None if grouped is loaded else (grouped.analysed, grouped.results),
    outages=(len(outages), triage.include),
    names=cache_names.names(connection),
    rules=group_rules.rules_of(connection),
    grouping=state.grouping,
)

st.header("Flaky", divider="gray")
notices.caption(shown.window_caption)
if shown.chart is None:
    notices.show_notes([shown.none_flaky], severity="info")
else:
    chart(shown.chart, key="flaky.timeline", file_name="flaky-outcomes.csv")
    notices.caption(shown.legend)
table_views.show(shown.table)
notices.caption(shown.not_enough_runs)
notices.caption(shown.known_runs)

st.header("Failure groups", divider="gray")
widgets.segmented("Failure groups", GROUPS, flaky_view.GROUPINGS, label_visibility="collapsed")
notices.caption(shown.groups_caption)
marking.notice(triage.ledger)
if shown.groups_table is None:
    notices.show_notes([shown.no_failures], severity="info")
    st.stop()
notices.caption(shown.known_caption)
marking.mark_form(
    "groups", shown.mark_choices, ledger=triage.ledger, connection=connection, now=now
)
table_views.show(shown.groups_table)
for label, group_table in shown.group_sections:
    with st.expander(label):
        table_views.show(group_table)
notices.caption(shown.more_groups)

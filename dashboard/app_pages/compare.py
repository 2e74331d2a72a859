"""Compare two executions of a plan, scenario by scenario and environment by environment."""

import streamlit as st

from dashboard.data import cache, cache_names
from dashboard.present import compare as compare_words
from dashboard.present import compare_view
from dashboard.state import links, plan_choice, routes
from dashboard.state.params import AFTER, BEFORE, CHANGES, PLAN
from dashboard.ui import analytics_input, marking, notices, table_views, view_parts
from dashboard.ui import triage as triage_view
from dashboard.ui.page import open_page
from dashboard.ui.zones import viewer_zone

ROUTE = routes.COMPARE
LOOKBACK = analytics_input.LOOKBACK_WORDS

page = open_page(ROUTE, "Compare executions", plans="needed", plan_for="comparison")
connection, now = page.connection, page.now

choice = None
if page.state.plan is not None:
    executions = analytics_input.lookback_executions(
        connection, now=now, project=None, plan=page.state.plan
    )
    # Outages are named in the pickers and passed over by the default pair.
    triage = triage_view.triage_of(connection, executions, now=now, state=page.state)
    choice = compare_view.pair_choice(executions, page.state.plan, triage.outages)
    name = page.plan_name or ""
    pair = plan_choice.check_pair(
        page.state, set(choice.ids), choice.default, plan_name=name, lookback=LOOKBACK
    )
    # The URL always holds both executions, so a shared link keeps comparing the same two.
    page = page.checked(
        page.state.with_changes(before=pair.before, after=pair.after), pair.problems
    )
state = page.state

widgets = page.widgets()
top = st.columns([3, 2], vertical_alignment="bottom")
with top[0]:
    widgets.selectbox(
        "Plan", PLAN, {None: "Pick a plan", **page.plan_names}, resets={BEFORE: None, AFTER: None}
    )
with top[1]:
    tz = viewer_zone(widgets, state)
if choice is not None:
    options, sides = choice.options(tz), st.columns([2, 2, 1], vertical_alignment="bottom")
    with sides[0]:
        widgets.selectbox("Before", BEFORE, options)
    with sides[1]:
        widgets.selectbox("After", AFTER, options)
    with sides[2]:
        widgets.toggle("Only changes", CHANGES)
page.settle()
if state.plan is None or choice is None or state.before is None or state.after is None:
    picked = state.plan is not None and choice is not None
    missing = compare_words.fewer_than_two_text(page.plan_name or "", LOOKBACK) if picked else None
    notices.show_notes([missing or compare_view.PICK_A_PLAN], severity="info")
    st.stop()
before, after, chosen = state.before, state.after, choice

fan_out = notices.loaded_or_stop(
    lambda: cache.history_results(connection, [before, after], chosen.executions),
    part="the results of the two executions",
)
analytics_input.show_failures(fan_out)
view = compare_view.compare_view(
    choice,
    fan_out.results,
    triage.marks,
    plans=page.plans,
    plan_names=page.plan_names,
    plan_name=page.plan_name,
    before=before,
    after=after,
    only_changes=state.only_changes,
    tz=tz,
    today=now.date(),
    scenario_link=links.scenario_link,
    names=cache_names.names(connection),
)
view_parts.say(view.notes)
for tile, (label, value) in zip(st.columns(len(view.kpis)), view.kpis, strict=True):
    tile.metric(label, value, border=True)
notices.caption(view.summary)
with st.container(border=True):
    st.markdown("**What changed between them**")
    view_parts.say(view.changes)
    notices.caption(view.changes_caption)
view_parts.chart(view.chart)
notices.caption(view.known)
marking.mark_failures(
    "compare", view.to_mark, page.plan_names, ledger=triage.ledger, connection=connection, now=now
)
view_parts.say(view.nothing_changed)
table_views.show(view.table)
notices.caption(view.legend)

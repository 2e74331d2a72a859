"""Compare two executions of a plan, scenario by scenario and environment by environment."""

import streamlit as st

from dashboard.analytics import compare as compare_analytics
from dashboard.analytics import marks as mark_analytics
from dashboard.analytics import what_changed
from dashboard.analytics.known_figures import compare_with_known
from dashboard.analytics.outcomes import FAIL
from dashboard.data import cache
from dashboard.present import analytics_charts
from dashboard.present import compare as compare_view
from dashboard.present import executions as executions_words
from dashboard.present import what_changed as changes_view
from dashboard.present.captions import scope_text
from dashboard.state import links, plan_choice, routes
from dashboard.state.params import AFTER, BEFORE, CHANGES, PLAN
from dashboard.ui import analytics_input, marking, notices
from dashboard.ui import triage as triage_view
from dashboard.ui.charts import chart
from dashboard.ui.page import open_page
from dashboard.ui.tables import ident_column, link_column, table, wide_text_column
from dashboard.ui.zones import viewer_zone

ROUTE = routes.COMPARE

page = open_page(ROUTE, "Compare executions", plans="needed", plan_for="comparison")
connection, now = page.connection, page.now

executions = None
outages: dict[int, str] = {}
if page.state.plan is not None:
    executions = analytics_input.lookback_executions(
        connection, now=now, project=None, plan=page.state.plan
    )
    # Outages are named in the pickers and passed over by the default pair.
    triage = triage_view.triage_of(connection, executions, now=now, state=page.state)
    outages = executions_words.outage_labels(triage.outages)
    pair = plan_choice.check_pair(
        page.state,
        {int(i) for i in executions["execution_id"]},
        compare_analytics.default_pair(executions, page.state.plan, leave_out=outages),
        plan_name=page.plan_name or "",
        lookback=analytics_input.LOOKBACK_WORDS,
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
if executions is not None:
    options = compare_view.execution_options(executions, tz, outages)
    sides = st.columns([2, 2, 1], vertical_alignment="bottom")
    with sides[0]:
        widgets.selectbox("Before", BEFORE, options)
    with sides[1]:
        widgets.selectbox("After", AFTER, options)
    with sides[2]:
        widgets.toggle("Only changes", CHANGES)
page.settle()
if state.plan is None or executions is None:
    notices.show_notes(["Pick a plan to compare two of its executions."], severity="info")
    st.stop()
if state.before is None or state.after is None:
    notices.show_notes(
        [compare_view.fewer_than_two_text(page.plan_name or "", analytics_input.LOOKBACK_WORDS)],
        severity="info",
    )
    st.stop()

fan_out = notices.loaded_or_stop(
    lambda: cache.history_results(connection, [state.before, state.after], executions),
    part="the results of the two executions",
)
analytics_input.show_failures(fan_out)
# An outage on either side is said first: its failures are not what changed in the tests.
sides = compare_analytics.outage_sides(
    executions, triage.marks, fan_out.results, state.before, state.after
)
notices.show_notes(compare_view.outage_lines(sides, page.plan_names, tz))
if (state.before, state.after) == compare_analytics.default_pair(
    executions, state.plan, leave_out=outages
):
    notices.show_notes(
        [
            compare_view.passed_over_text(
                compare_analytics.passed_over(executions, state.plan, outages, state.before)
            )
            or ""
        ],
        severity="info",
    )
comparison = compare_analytics.compare_executions(
    fan_out.results, state.before, state.after, executions=executions
)
notices.caption(
    compare_view.basis_caption(
        comparison.basis,
        today=now.date(),
        scope=scope_text(plan=page.plan_name),
        before=state.before,
        after=state.after,
    )
)
kpis = st.columns(4)
kpis[0].metric("New failures", f"{comparison.count(compare_analytics.NEW_FAILURE):,}", border=True)
kpis[1].metric("Fixed", f"{comparison.count(compare_analytics.FIXED):,}", border=True)
kpis[2].metric(
    "Still failing", f"{comparison.count(compare_analytics.STILL_FAILING):,}", border=True
)
kpis[3].metric("Runtime change", compare_view.runtime_change(comparison), border=True)
notices.caption(compare_view.summary_caption(comparison))
changed = what_changed.between(
    state.plan, state.before, state.after, executions, fan_out.results, page.plans
)
moves = what_changed.version_moves(comparison.cells, fan_out.results)
with st.container(border=True):
    st.markdown("**What changed between them**")
    for sentence in changes_view.pair_sentences(changed, state.before, state.after, tz):
        notices.plain(sentence)
    for sentence in changes_view.moves_sentences(moves):
        notices.plain(sentence)
    notices.caption(changes_view.pair_caption())
if any(n for _, n in comparison.counts):
    chart(
        analytics_charts.bucket_counts_chart(comparison.counts),
        key="compare.buckets",
        file_name=f"compare-{state.before}-{state.after}-changes.csv",
    )

# The after side's failures a mark covers, or an outage holds, are told apart (the counts
# above keep them all).
cells = compare_analytics.with_outage_sides(
    compare_with_known(comparison.cells, mark_analytics.known_cells(fan_out.results, triage.marks)),
    sides["execution_id"],
)
notices.caption(compare_view.known_caption(cells))
marking.mark_failures(
    "compare",
    cells[cells["after_outcome"] == FAIL],
    page.plan_names,
    ledger=triage.ledger,
    connection=connection,
    now=now,
)
if state.only_changes:
    cells = compare_analytics.only_changes(cells)
    if cells.empty:
        notices.show_notes(
            [
                "Nothing changed between the two executions: switch off Only changes to see every "
                "scenario."
            ],
            severity="info",
        )
table(
    compare_view.compare_display(cells, state.plan, links.scenario_link),
    key="compare.table",
    file_name=f"compare-{state.before}-{state.after}.csv",
    column_config={
        "Scenario": ident_column(),
        "History": link_column("history"),
        "Message after": wide_text_column(),
    },
)
notices.caption(compare_view.legend())

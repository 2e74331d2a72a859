"""Compare two executions of a plan, scenario by scenario and environment by environment."""

import streamlit as st

from api_client import ApiError
from dashboard.analytics import compare as compare_analytics
from dashboard.data import cache
from dashboard.present import analytics_charts
from dashboard.present import compare as compare_view
from dashboard.present.captions import describe_basis
from dashboard.state import links, plan_choice, routes
from dashboard.ui import analytics_input, notices, url_filters
from dashboard.ui.tables import table
from dashboard.ui.zones import viewer_zone

ROUTE = routes.COMPARE

start = analytics_input.start_page(ROUTE, "Compare executions", plan_for="comparison")
connection, state, problems, now = start.connection, start.state, start.problems, start.now
plan_names = start.plan_names

executions = None
if state.plan is not None:
    executions = analytics_input.lookback_executions(
        connection, now=now, project=None, plan=state.plan
    )
    default = compare_analytics.default_pair(executions, state.plan)
    pair = plan_choice.check_pair(
        state,
        {int(i) for i in executions["execution_id"]},
        default,
        plan_name=plan_names[state.plan],
        lookback="last 90 days",
    )
    problems += pair.problems
    # The URL always holds both executions, so a shared link keeps comparing the same two.
    state = state.with_changes(before=pair.before, after=pair.after)

widgets = url_filters.UrlFilters(ROUTE, state)
top = st.columns([3, 2], vertical_alignment="bottom")
with top[0]:
    widgets.selectbox(
        "Plan", "plan", {None: "Pick a plan", **plan_names}, resets={"before": None, "after": None}
    )
with top[1]:
    tz = viewer_zone(widgets, state)
if executions is not None:
    ordered = executions.sort_values(["start", "execution_id"], ascending=False, na_position="last")
    options = {
        int(row.execution_id): compare_view.execution_label(
            int(row.execution_id), row.start, bool(row.finished), tz
        )
        for row in ordered.itertuples(index=False)
    }
    sides = st.columns([2, 2, 1], vertical_alignment="bottom")
    with sides[0]:
        widgets.selectbox("Before", "before", options)
    with sides[1]:
        widgets.selectbox("After", "after", options)
    with sides[2]:
        widgets.toggle("Only changes", "only_changes")
url_filters.write_url(state, ROUTE)
notices.show_notes(problems)
if state.plan is None or executions is None:
    notices.show_notes(["Pick a plan to compare two of its executions."], severity="info")
    st.stop()
if state.before is None or state.after is None:
    notices.show_notes(
        [
            f"Plan {plan_names[state.plan]} has fewer than two finished executions in the last 90 "
            "days: pick two executions."
        ],
        severity="info",
    )
    st.stop()

try:
    fan_out = cache.history_results(connection, [state.before, state.after], executions)
except ApiError as error:
    notices.show_error(error, part="the results of the two executions")
    st.stop()
analytics_input.show_failures(fan_out)
comparison = compare_analytics.compare_executions(
    fan_out.results, state.before, state.after, executions=executions
)
notices.caption(
    describe_basis(comparison.basis, today=now.date(), scope=f"of plan {plan_names[state.plan]}")
    + f": #{state.before} before, #{state.after} after."
)
kpis = st.columns(4)
kpis[0].metric("New failures", f"{comparison.count(compare_analytics.NEW_FAILURE):,}", border=True)
kpis[1].metric("Fixed", f"{comparison.count(compare_analytics.FIXED):,}", border=True)
kpis[2].metric(
    "Still failing", f"{comparison.count(compare_analytics.STILL_FAILING):,}", border=True
)
delta = comparison.runtime_delta_ms
kpis[3].metric(
    "Runtime change",
    compare_view.signed_duration(None if delta is None else delta / 1000),
    border=True,
)
notices.caption(compare_view.counts_text(comparison) + ". " + compare_view.runtime_text(comparison))
if any(n for _, n in comparison.counts):
    st.plotly_chart(analytics_charts.bucket_counts(comparison.counts), key="compare.buckets")

cells = comparison.cells
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
    compare_view.compare_display(
        cells, state.plan, lambda plan, scenario: links.scenario_link(plan, scenario)
    ),
    key="compare.table",
    file_name=f"compare-{state.before}-{state.after}.csv",
    column_config={
        "Scenario": st.column_config.NumberColumn(format="%d", width="small"),
        "History": st.column_config.LinkColumn(display_text="history"),
        "Message after": st.column_config.TextColumn(width="large"),
    },
)
notices.caption(compare_view.legend())

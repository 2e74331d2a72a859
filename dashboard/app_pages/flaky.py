"""Flaky scenarios: which scenarios flip between pass and fail, with the evidence, and the
failures of the same window grouped by their message."""

import hashlib

import streamlit as st

from dashboard.analytics import flaky as flaky_analytics
from dashboard.analytics import plans as plan_analytics
from dashboard.analytics.marks import marks_key
from dashboard.data import cache
from dashboard.present import failure_groups as groups_view
from dashboard.present import flaky as flaky_view
from dashboard.present import known as known_words
from dashboard.present.captions import describe_window, scope_text
from dashboard.present.flaky_view import flaky_view as build_view
from dashboard.present.formatting import escape_markdown, visible_text
from dashboard.state import links, routes
from dashboard.state.params import PLAN, PROJECT, THRESHOLD, WINDOW
from dashboard.ui import analytics_input, marking, notices
from dashboard.ui import triage as triage_view
from dashboard.ui.charts import chart
from dashboard.ui.page import open_page
from dashboard.ui.tables import ident_column, link_column, table, time_column
from dashboard.ui.zones import viewer_zone

ROUTE = routes.FLAKY

page = open_page(ROUTE, "Flaky scenarios", plans="needed")
connection, state, now, plan_names = page.connection, page.state, page.now, page.plan_names

widgets = page.widgets()
top = st.columns([2, 2, 1, 1, 1.4, 2], vertical_alignment="bottom")
with top[0]:
    widgets.selectbox(
        "Project", PROJECT, {None: "All projects", **page.projects}, resets={PLAN: None}
    )
with top[1]:
    in_project = plan_analytics.plan_names(page.plans, project_id=state.project)
    widgets.selectbox("Plan", PLAN, {None: "All plans", **in_project})
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
    st.markdown(flaky_view.rule_text(state.window, state.threshold, flaky_analytics.MIN_RUNS))

# Outages are found among the lookback's executions (their status counts), and left out
# before each plan's last W are counted, unless the viewer includes them.
triage = triage_view.triage_of(
    connection,
    analytics_input.lookback_executions(
        connection, now=now, project=state.project, plan=state.plan
    ),
    now=now,
    state=state,
)
loaded = analytics_input.load_window(
    connection,
    now=now,
    window=state.window,
    project=state.project,
    plan=state.plan,
    leave_out=triage.left_out,
)


def history(plan: int, scenario: int) -> str:
    return links.scenario_link(plan, scenario, window=state.window)


# Scores, tables and the chart are made once per input, not at every load (cache.built): the
# window's executions and its results' counts, W, the threshold, the marks that apply, names.
view = cache.built(
    connection,
    "flaky.view",
    (
        hashlib.sha256(loaded.analysed["execution_id"].to_numpy().tobytes()).hexdigest(),
        loaded.fan_out.counts if loaded.fan_out is not None else None,
        state.window,
        state.threshold,
        marks_key(triage.marks),
        tuple(plan_names.items()),
        tz,
    ),
    lambda: build_view(
        loaded.analysed,
        loaded.results,
        triage.marks,
        window=state.window,
        threshold=state.threshold,
        plan_names=plan_names,
        tz=tz,
        scenario_link=history,
        results_link=lambda e, p, s: links.results_link(e, plan_id=p, started=s),
    ),
)
flakiness, display = view.flakiness, view.display
scope = scope_text(project=page.project_name, plan=page.plan_name)
st.header("Flaky", divider="gray")
notices.caption(
    describe_window(
        flakiness.basis,
        loaded.executions,
        today=now.date(),
        scope=scope,
        window=state.window,
        each_plan=True,
    )
)
triage_view.outages_caption(triage)
if view.chart is None:
    notices.show_notes([flaky_view.none_flaky_text(state.threshold)], severity="info")
else:
    chart(view.chart, key="flaky.timeline", file_name="flaky-outcomes.csv")
    notices.caption(flaky_view.timeline_legend())
table(
    display,
    key="flaky.table",
    file_name="flaky-scenarios.csv",
    column_config={
        "Scenario": ident_column(),
        "Score": st.column_config.NumberColumn(format="%.2f", width="small"),
        "History": link_column("history"),
    },
)
notices.caption(flaky_view.not_enough_runs_text(flakiness, flaky_analytics.MIN_RUNS))
notices.caption(known_words.KNOWN_RUNS_CAPTION)

# -- failure groups -----------------------------------------------------------------------------
st.header("Failure groups", divider="gray")
grouped = view.grouped
notices.caption(flaky_view.groups_caption(grouped.basis, today=now.date(), scope=scope))
marking.notice(triage.ledger)
if view.groups is None:
    notices.show_notes(["No result failed in these executions."], severity="info")
    st.stop()
groups = view.groups
notices.caption(
    known_words.known_caption(int(groups["known"].sum()), int(groups["failures"].sum()))
)
marking.mark_form(
    "groups",
    known_words.group_choices(groups["signature"], plan_id=state.plan, plan_names=plan_names),
    ledger=triage.ledger,
    connection=connection,
    now=now,
)
table(
    groups_view.groups_display(groups),
    key="groups.table",
    file_name="failure-groups.csv",
    column_config={"First seen": time_column(tz), "Last seen": time_column(tz)},
)
listed = grouped.groups.head(groups_view.GROUPS_SHOWN).iterrows()
for position, ((_, group), shown) in enumerate(zip(listed, view.group_tables, strict=True)):
    # The message is the service's: shown literally, never as markdown.
    with st.expander(escape_markdown(visible_text(groups_view.headline(group, tz)))):
        table(
            shown,
            key=f"groups.{position}",
            file_name=f"failure-group-{position + 1}.csv",
            column_config={
                "Started": time_column(tz),
                "Scenario": ident_column(),
                "Execution": ident_column(),
                "Results": link_column("results"),
                "History": link_column("history"),
                "Node log": link_column("node log"),
            },
        )
notices.caption(flaky_view.more_groups_caption(len(grouped.groups), groups_view.GROUPS_SHOWN) or "")

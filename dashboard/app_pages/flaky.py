"""Flaky scenarios: which scenarios flip between pass and fail, with the evidence, and the
failures of the same window grouped by their message."""

import streamlit as st

from dashboard.analytics import failure_groups as groups_analytics
from dashboard.analytics import flaky as flaky_analytics
from dashboard.analytics import plans as plan_analytics
from dashboard.present import analytics_charts
from dashboard.present import failure_groups as groups_view
from dashboard.present import flaky as flaky_view
from dashboard.present.captions import describe_basis
from dashboard.present.formatting import escape_markdown, visible_text
from dashboard.state import choices, links, routes
from dashboard.state.params import THRESHOLD_BOUNDS, WINDOW_BOUNDS
from dashboard.ui import analytics_input, notices, url_filters
from dashboard.ui.tables import table
from dashboard.ui.zones import viewer_zone

ROUTE = routes.FLAKY

start = analytics_input.start_page(ROUTE, "Flaky scenarios")
connection, now, plans, plan_names = start.connection, start.now, start.plans, start.plan_names
projects = plan_analytics.project_names(plans)
checked = choices.reconcile(
    start.state, known_projects=projects, plan_projects=plan_analytics.plan_projects(plans)
)
state, problems = checked.state, start.problems + checked.problems

widgets = url_filters.UrlFilters(ROUTE, state)
top = st.columns([2, 2, 1, 1, 2], vertical_alignment="bottom")
with top[0]:
    widgets.selectbox(
        "Project", "project", {None: "All projects", **projects}, resets={"plan": None}
    )
with top[1]:
    widgets.selectbox(
        "Plan",
        "plan",
        {None: "All plans", **plan_analytics.plan_names(plans, project_id=state.project)},
    )
with top[2]:
    widgets.number(
        "Window (W)", "window", min_value=WINDOW_BOUNDS[0], max_value=WINDOW_BOUNDS[1], step=1
    )
with top[3]:
    # The link's bounds: a threshold the link may hold is one this widget shows as it is.
    widgets.number(
        "Threshold",
        "threshold",
        min_value=THRESHOLD_BOUNDS[0],
        max_value=THRESHOLD_BOUNDS[1],
        step=0.05,
    )
with top[4]:
    tz = viewer_zone(widgets, state)
url_filters.write_url(state, ROUTE)
notices.show_notes(problems)
with st.expander("How a scenario is judged flaky", icon=":material/help:"):
    st.markdown(flaky_view.rule_text(state.window, state.threshold, flaky_analytics.MIN_RUNS))

loaded = analytics_input.load_window(
    connection, now=now, window=state.window, project=state.project, plan=state.plan
)

flakiness = flaky_analytics.flaky_scenarios(
    loaded.executions, loaded.results, window=state.window, threshold=state.threshold
)
scope = (
    f"of plan {plan_names.get(state.plan, state.plan)}"
    if state.plan
    else (f"of project {projects.get(state.project, state.project)}" if state.project else "")
)
basis_text = (
    describe_basis(flakiness.basis, today=now.date(), scope=scope)
    + f" (each plan's last {state.window} finished executions)"
    + flaky_view.running_note(loaded.executions)
)
st.subheader("Flaky", divider="gray")
notices.caption(basis_text)
rows = flaky_view.flaky_rows(flakiness)
display = flaky_view.flaky_display(
    flakiness,
    plan_names,
    lambda plan, scenario: links.scenario_link(plan, scenario, window=state.window),
)
if display.empty:
    notices.show_notes(
        [f"No scenario is flaky at a threshold of {state.threshold:g} over these executions."],
        severity="info",
    )
else:
    st.plotly_chart(
        analytics_charts.flaky_timeline(
            rows, flakiness.positions, analytics_charts.labels_for(rows, plan_names), tz
        ),
        key="flaky.timeline",
    )
    notices.caption(flaky_view.timeline_legend())
table(
    display,
    key="flaky.table",
    file_name="flaky-scenarios.csv",
    column_config={
        "Scenario": st.column_config.NumberColumn(format="%d", width="small"),
        "Score": st.column_config.NumberColumn(format="%.2f", width="small"),
        "History": st.column_config.LinkColumn(display_text="history"),
    },
)
short = flaky_view.not_enough_runs(flakiness)
if short:
    notices.caption(
        f"{short:,} scenarios ran fewer than {flaky_analytics.MIN_RUNS} times: not enough runs "
        "to judge."
    )

# -- failure groups -----------------------------------------------------------------------------
st.subheader("Failure groups", divider="gray")
grouped = groups_analytics.failure_groups(loaded.window, loaded.results)
notices.caption(
    describe_basis(grouped.basis, today=now.date(), scope=scope)
    + ". Failed results (FAILURE or ERROR) grouped by their message with numbers, ids, quoted "
    "values and hex stripped."
)
if grouped.groups.empty:
    notices.show_notes(["No result failed in these executions."], severity="info")
    st.stop()
table(
    groups_view.groups_display(grouped.groups),
    key="groups.table",
    file_name="failure-groups.csv",
    column_config={
        "First seen": st.column_config.DatetimeColumn(format="D MMM, HH:mm", timezone=tz),
        "Last seen": st.column_config.DatetimeColumn(format="D MMM, HH:mm", timezone=tz),
    },
)
starts = dict(zip(loaded.window["execution_id"], loaded.window["start"], strict=True))
for position, (_, group) in enumerate(grouped.groups.head(groups_view.GROUPS_SHOWN).iterrows()):
    # The message is the service's: shown literally, never as markdown.
    with st.expander(escape_markdown(visible_text(groups_view.headline(group, tz)))):
        table(
            groups_view.group_results_display(
                loaded.results,
                group["result_ids"],
                plan_names=plan_names,
                scenario_link=lambda p, s: links.scenario_link(p, s, window=state.window),
                results_link=lambda e, p, s: links.results_link(e, plan_id=p, started=s),
                execution_starts=starts,
            ),
            key=f"groups.{position}",
            file_name=f"failure-group-{position + 1}.csv",
            column_config={
                "Started": st.column_config.DatetimeColumn(format="D MMM, HH:mm", timezone=tz),
                "Scenario": st.column_config.NumberColumn(format="%d", width="small"),
                "Execution": st.column_config.NumberColumn(format="%d", width="small"),
                "Results": st.column_config.LinkColumn(display_text="results"),
                "History": st.column_config.LinkColumn(display_text="history"),
                "Node log": st.column_config.LinkColumn(display_text="node log"),
            },
        )
if len(grouped.groups) > groups_view.GROUPS_SHOWN:
    notices.caption(
        f"The {groups_view.GROUPS_SHOWN} largest groups are listed with their results; the "
        "table and its CSV hold every group."
    )

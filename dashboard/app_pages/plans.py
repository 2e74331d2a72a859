"""Plans: the company's test plans. Selecting one opens its executions."""

import streamlit as st

from api_client import ApiError
from dashboard.analytics import plan_state
from dashboard.analytics import plans as plan_analytics
from dashboard.data import cache
from dashboard.present import tables
from dashboard.present.formatting import describe_slice, times_note
from dashboard.present.messages import describe_skipped, describe_truncation
from dashboard.state import choices, routes
from dashboard.state.query import execution_query
from dashboard.state.url import DateRange, ViewState
from dashboard.ui import notices, sidebar, url_filters, zones
from dashboard.ui.tables import table

ROUTE = routes.PLANS

connection = sidebar.current_connection()
parsed = url_filters.read_view(ROUTE)
state, problems = parsed.state, list(parsed.problems)

st.title("Test plans")

try:
    data = cache.plans(connection, active_only=state.active_only)
except ApiError as error:
    url_filters.write_url(state, ROUTE)
    notices.show_notes(problems)
    notices.show_error(error)
    st.stop()

projects = plan_analytics.project_names(data.plans)
checked = choices.reconcile(state, known_projects=projects, plan_projects={})
state, problems = checked.state, problems + checked.problems

# -- filters ----------------------------------------------------------------------------------
filters = url_filters.UrlFilters(ROUTE, state)
left, right = st.columns([3, 2], vertical_alignment="bottom")
with left:
    filters.selectbox("Project", "project", {None: "All projects", **projects})
with right:
    filters.toggle("Active plans only", "active_only", help="Leave out disabled plans.")
tz = zones.sidebar_zone(ROUTE, state)
url_filters.write_url(state, ROUTE)
notices.show_notes(problems)
notices.show_notes([describe_skipped((s.reason for s in data.skipped), "plan") or ""])

plans = plan_analytics.filter_plans(data.plans, project_id=state.project)
if plans.empty:
    st.info(
        "No plans match these filters."
        + (" Turn off *Active plans only* to include disabled ones." if state.active_only else "")
    )
    st.stop()

# -- KPIs -------------------------------------------------------------------------------------
kpis = plan_analytics.plan_kpis(plans)
columns = st.columns(4)
columns[0].metric("Plans", f"{kpis.plans:,}", border=True)
columns[1].metric("Enabled", f"{kpis.enabled:,}", border=True)
columns[2].metric("Scenarios", f"{kpis.scenarios:,}", border=True)
columns[3].metric("With alerts", f"{kpis.with_alerts:,}", border=True)

# -- where each plan stands: its executions of the last 30 days -----------------------------
# The same query as the executions page's "30 d" view, so each page fills the other's cache.
recent = ViewState(date_range=DateRange.LAST_30_DAYS)
now = sidebar.now(connection)
states = None
try:
    history = cache.executions(connection, execution_query(recent, now=now, email=None))
    states = plan_state.plan_states(history.executions)
    notices.show_notes([describe_truncation(history.truncation) or ""])
except ApiError as error:
    notices.show_error(error, part="the plans' recent executions (the table shows settings only)")

# -- table ------------------------------------------------------------------------------------
scope = f"in project {projects[state.project]}" if state.project else "in every project"
kind = "active " if state.active_only else ""
notices.caption(
    describe_slice(kpis.plans, f"{kind}plan", None, None, today=sidebar.now(connection).date())
    + f" {scope}. Select a plan to open its executions. {times_note(tz)}"
)
if states is not None:
    notices.caption(
        "Now, Latest finished and Same since come from the last 30 days of executions "
        f"({len(history.executions):,}): a plan is judged on its latest finished execution; "
        "a running one is not a verdict. Same since is the first execution of the current run "
        "of passes or failures within those 30 days."
    )
selected = table(
    tables.plans_display(plans, states),
    key="plans.table",
    file_name="plans.csv",
    selectable=True,
    tz=tz,
    column_config={
        "Id": st.column_config.NumberColumn(format="%d", width="small"),
        "Plan": st.column_config.TextColumn(width="medium"),
        "Scenarios": st.column_config.NumberColumn(help="Scenarios linked to the plan"),
        "Parallel limit": st.column_config.NumberColumn(help="Maximum parallel tests"),
        "Retries": st.column_config.NumberColumn(help="Retries of a failed test"),
        "Alerts": st.column_config.NumberColumn(help="Enabled alerts (e.g. e-mail)"),
        "Latest finished": st.column_config.DatetimeColumn(format="D MMM YYYY, HH:mm"),
        "Same since": st.column_config.DatetimeColumn(format="D MMM YYYY, HH:mm"),
        "Executions since": st.column_config.NumberColumn(
            help="Finished executions in a row with the same outcome, newest back"
        ),
        "Created": st.column_config.DatetimeColumn(format="D MMM YYYY, HH:mm"),
        "Updated": st.column_config.DatetimeColumn(format="D MMM YYYY, HH:mm"),
    },
)
target = choices.opened_by_plan(plans, selected)
if target is not None:
    st.switch_page(
        routes.EXECUTIONS.script, query_params=url_filters.link_params(target, routes.EXECUTIONS)
    )

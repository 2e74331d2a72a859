"""Plan health: one row per plan, how it has done over 7 and 30 days. A row opens its executions."""

import pandas as pd
import streamlit as st

from api_client import ApiError
from dashboard.analytics import health as health_analytics
from dashboard.analytics import plans as plan_analytics
from dashboard.data import cache
from dashboard.present import tables
from dashboard.present.captions import describe_basis
from dashboard.state import choices, routes
from dashboard.state.query import execution_query
from dashboard.state.url import DateRange, ViewState
from dashboard.ui import notices, sidebar, url_filters
from dashboard.ui.tables import table
from dashboard.ui.zones import viewer_zone

ROUTE = routes.HEALTH
LONG_DAYS = 30

connection = sidebar.current_connection()
parsed = url_filters.read_view(ROUTE)
state, problems = parsed.state, list(parsed.problems)
now = sidebar.now(connection)

st.title("Plan health")

try:
    plans = cache.plans(connection, active_only=False).plans
except ApiError as error:
    plans = None
    notices.show_error(error, part="the plan list (the project filter shows ids only)")
projects = plan_analytics.project_names(plans) if plans is not None else {}
if plans is not None:
    checked = choices.reconcile(state, known_projects=projects, plan_projects={})
    state, problems = checked.state, problems + checked.problems

widgets = url_filters.UrlFilters(ROUTE, state)
left, right = st.columns([3, 2])
with left:
    widgets.selectbox("Project", "project", {None: "All projects", **projects})
with right:
    tz = viewer_zone(widgets, state)
url_filters.write_url(state, ROUTE)
notices.show_notes(problems)

# The executions page's own "30 d" query (one project or all): the two pages share the cache.
query = execution_query(
    ViewState(project=state.project, date_range=DateRange.LAST_30_DAYS), now=now, email=None
)
try:
    data = cache.executions(connection, query)
except ApiError as error:
    notices.show_error(error, part="the plans' executions")
    st.stop()

health = health_analytics.plan_health(data.executions, now=pd.Timestamp(now), tz=tz)
scope = f"of project {projects.get(state.project, state.project)}" if state.project else ""
if health.plans.empty:
    notices.show_notes(
        [describe_basis(health.basis, today=now.date(), scope=scope) + ": no plan ran."],
        severity="info",
    )
    st.stop()

notices.caption(
    describe_basis(health.basis, today=now.date(), scope=scope)
    + f". Pass rates count the results with a verdict of finished executions; a plan is judged "
    f"on its latest finished execution. Days are in {tz}. Select a plan to open its executions."
)
selected = table(
    tables.health_display(health.plans, now=pd.Timestamp(now)),
    key="health.table",
    file_name="plan-health.csv",
    selectable=True,
    column_config={
        "Id": st.column_config.NumberColumn(format="%d", width="small"),
        "Latest finished": st.column_config.DatetimeColumn(format="D MMM, HH:mm", timezone=tz),
        "Pass rate 7 d": st.column_config.NumberColumn(format="%.1f %%"),
        "Pass rate 30 d": st.column_config.NumberColumn(format="%.1f %%"),
        "Daily pass rate, 30 d": st.column_config.LineChartColumn(
            y_min=0,
            y_max=100,
            help="Pass rate of each day with a verdict in the last 30, oldest on the left",
        ),
        "Executions 30 d": st.column_config.NumberColumn(format="%d"),
    },
)
target = choices.opened_by_plan(health.plans, selected)
if target is not None:
    st.switch_page(
        routes.EXECUTIONS.script,
        query_params=url_filters.link_params(
            target.with_changes(date_range=DateRange.LAST_30_DAYS), routes.EXECUTIONS
        ),
    )

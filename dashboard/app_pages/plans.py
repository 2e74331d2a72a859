"""Plans: the company's test plans. Selecting one opens its executions."""

import streamlit as st

from api_client import ApiError
from dashboard.data import cache
from dashboard.data.live import ExecutionsData
from dashboard.present import help_texts
from dashboard.present.plans_view import plans_view
from dashboard.state import choices, routes
from dashboard.state.params import ACTIVE, PROJECT, DateRange
from dashboard.state.query import preset_query
from dashboard.ui import notices, url_filters, zones
from dashboard.ui.kpis import kpi_row
from dashboard.ui.page import open_page
from dashboard.ui.tables import ident_column, table, time_column

ROUTE = routes.PLANS

page = open_page(ROUTE, "Test plans")
try:
    data = cache.plans(page.connection, active_only=page.state.active_only)
except ApiError as error:
    page.settle()  # what was wrong with the link is said before why the page stops
    notices.show_error(error)
    st.stop()
page = page.with_plans(data.plans)
state = page.state

# -- filters ----------------------------------------------------------------------------------
widgets = page.widgets()
left, right = st.columns([3, 2], vertical_alignment="bottom")
with left:
    widgets.selectbox("Project", PROJECT, {None: "All projects", **page.projects})
with right:
    widgets.toggle("Active plans only", ACTIVE, help=help_texts.ACTIVE_ONLY)
tz = zones.sidebar_zone(ROUTE, state)
page.settle()

view = plans_view(
    data,
    project_id=state.project,
    project=page.projects.get(state.project) if state.project else None,
    active_only=state.active_only,
    today=page.now.date(),
    tz=tz,
)
notices.show_notes(view.notes)
if view.empty_text:
    st.info(view.empty_text)
    st.stop()
kpi_row(view.kpis)

# -- where each plan stands: its executions of the last 30 days -----------------------------
recent: ExecutionsData | None
try:
    recent = cache.executions(page.connection, preset_query(DateRange.LAST_30_DAYS, now=page.now))
except ApiError as error:
    recent = None
    notices.show_error(error, part="the plans' recent executions (the table shows settings only)")
shown = view.with_states(recent)
notices.show_notes(shown.notes)
for text in shown.captions:
    notices.caption(text)
selected = table(
    shown.display,
    key="plans.table",
    file_name="plans.csv",
    selectable=True,
    tz=tz,
    column_config={
        "Id": ident_column(),
        "Plan": st.column_config.TextColumn(width="medium"),
        "Scenarios": st.column_config.NumberColumn(help=help_texts.PLAN_SCENARIOS),
        "Parallel limit": st.column_config.NumberColumn(help=help_texts.PLAN_PARALLEL_LIMIT),
        "Retries": st.column_config.NumberColumn(help=help_texts.PLAN_RETRIES),
        "Alerts": st.column_config.NumberColumn(help=help_texts.PLAN_ALERTS),
        "Latest finished": time_column(with_year=True),
        "Same since": time_column(with_year=True),
        "Executions since": st.column_config.NumberColumn(help=help_texts.PLAN_EXECUTIONS_SINCE),
        "Created": time_column(with_year=True),
        "Updated": time_column(with_year=True),
    },
)
target = choices.opened_by_plan(shown.plans, selected)
if target is not None:
    url_filters.switch_to(routes.EXECUTIONS, target)

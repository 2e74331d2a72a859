"""Plans: the company's test plans. Selecting one opens its executions."""

import streamlit as st

from api_client import ApiError
from dashboard.analytics import plan_state
from dashboard.analytics import plans as plan_analytics
from dashboard.data import cache
from dashboard.present import help_texts, tables
from dashboard.present import plans as plans_view
from dashboard.present.notes import describe_skipped, describe_truncation
from dashboard.state import choices, routes
from dashboard.state.params import ACTIVE, PROJECT, DateRange
from dashboard.state.query import preset_query
from dashboard.ui import notices, url_filters, zones
from dashboard.ui.page import open_page
from dashboard.ui.tables import ident_column, table, time_column

ROUTE = routes.PLANS

page = open_page(ROUTE, "Test plans")
try:
    data = cache.plans(page.connection, active_only=page.state.active_only)
except ApiError as error:
    page.settle()
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
notices.show_notes([describe_skipped((s.reason for s in data.skipped), "plan") or ""])

plans = plan_analytics.filter_plans(data.plans, project_id=state.project)
if plans.empty:
    st.info(plans_view.no_plans_text(active_only=state.active_only))
    st.stop()

# -- KPIs -------------------------------------------------------------------------------------
kpis = plan_analytics.plan_kpis(plans)
columns = st.columns(4)
columns[0].metric("Plans", f"{kpis.plans:,}", border=True)
columns[1].metric("Enabled", f"{kpis.enabled:,}", border=True)
columns[2].metric("Scenarios", f"{kpis.scenarios:,}", border=True)
columns[3].metric("With alerts", f"{kpis.with_alerts:,}", border=True)

# -- where each plan stands: its executions of the last 30 days -----------------------------
states = None
try:
    recent = cache.executions(page.connection, preset_query(DateRange.LAST_30_DAYS, now=page.now))
    states = plan_state.plan_states(recent.executions)
    notices.show_notes([describe_truncation(recent.truncation) or ""])
except ApiError as error:
    notices.show_error(error, part="the plans' recent executions (the table shows settings only)")

# -- table ------------------------------------------------------------------------------------
notices.caption(
    plans_view.plans_caption(
        kpis.plans,
        active_only=state.active_only,
        project=page.projects.get(state.project) if state.project else None,
        today=page.now.date(),
        tz=tz,
    )
)
if states is not None:
    notices.caption(plans_view.states_caption(len(recent.executions)))
selected = table(
    tables.plans_display(plans, states),
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
target = choices.opened_by_plan(plans, selected)
if target is not None:
    url_filters.switch_to(routes.EXECUTIONS, target)

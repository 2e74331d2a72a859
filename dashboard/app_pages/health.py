"""Plan health: one row per plan, how it has done over 7 and 30 days. A row opens its executions."""

import pandas as pd
import streamlit as st

from api_client import ApiError
from dashboard.analytics import health as health_analytics
from dashboard.analytics import red_stretches
from dashboard.analytics.known_figures import plan_known_figures
from dashboard.data import cache
from dashboard.present import health as health_view
from dashboard.present import help_texts, tables
from dashboard.present import known as known_words
from dashboard.present import time_to_green as red_view
from dashboard.present.captions import scope_text
from dashboard.state import choices, routes
from dashboard.state.params import PROJECT, DateRange, ViewState
from dashboard.state.query import preset_query
from dashboard.ui import notices, url_filters
from dashboard.ui import triage as triage_view
from dashboard.ui.page import open_page
from dashboard.ui.tables import ident_column, rate_column, table, time_column
from dashboard.ui.zones import viewer_zone

ROUTE = routes.HEALTH

page = open_page(ROUTE, "Plan health", plans="wanted")
state, now = page.state, page.now

widgets = page.widgets()
left, middle, right = st.columns([3, 1.2, 2], vertical_alignment="bottom")
with left:
    widgets.selectbox("Project", PROJECT, {None: "All projects", **page.projects})
with middle:
    triage_view.outages_toggle(widgets)
with right:
    tz = viewer_zone(widgets, state)
page.settle()


# The executions page's own "30 d" query (one project or all): the two pages share the cache.
try:
    data = cache.executions(
        page.connection, preset_query(DateRange.LAST_30_DAYS, now=now, project=state.project)
    )
except ApiError as error:
    notices.show_error(error, part="the plans' executions")
    st.stop()

# Likely outages are left out of every figure unless included.
triage = triage_view.triage_of(page.connection, data.executions, now=now, state=state)
executions = triage.without_outages(data.executions)
health = health_analytics.plan_health(executions, now=pd.Timestamp(now), tz=tz)
scope = scope_text(project=page.project_name)
if health.plans.empty:
    notices.show_notes(
        [health_view.no_plan_ran(health.basis, today=now.date(), scope=scope)], severity="info"
    )
    st.stop()

notices.caption(health_view.health_caption(health, today=now.date(), scope=scope, tz=tz))
triage_view.outages_caption(triage)
known = triage_view.known_per_execution(page.connection, executions, triage.marks)
figures = plan_known_figures(executions, known, now=pd.Timestamp(now))
notices.caption(
    known_words.known_caption(
        int(figures["known_long"].sum()),
        int(figures["failed_long"].sum()),
        counted_from="the finished executions of the last 30 days",
    )
)
selected = table(
    tables.health_with_known(
        tables.health_display(health.plans, now=pd.Timestamp(now)),
        health.plans["plan_id"],
        figures,
    ),
    key="health.table",
    file_name="plan-health.csv",
    selectable=True,
    column_config={
        "Id": ident_column(),
        "Latest finished": time_column(tz),
        "Pass rate 7 d": rate_column(),
        "Pass rate 30 d": rate_column(),
        "7 d without known": rate_column(help=known_words.KNOWN_RULE),
        "30 d without known": rate_column(help=known_words.KNOWN_RULE),
        "Daily pass rate, 30 d": st.column_config.LineChartColumn(
            y_min=0, y_max=100, help=help_texts.DAILY_RATES
        ),
        "Executions 30 d": st.column_config.NumberColumn(format="%d"),
    },
)

# How long plans stay red, over the same 30 days (the page of its own reaches 90).
red = red_stretches.time_to_green(executions, now=pd.Timestamp(now), short_days=health.long_days)
st.header("How long plans stay red", divider="gray")
notices.plain(red_view.turns_text(red.turns))
notices.caption(red_view.health_caption(red, today=now.date(), scope=scope))
table(
    red_view.plan_rows_for_health(red, page.plan_names),
    key="health.red",
    file_name="plan-health-time-to-green.csv",
)
url_filters.page_link(
    routes.TIME_TO_GREEN,
    ViewState(project=state.project, include_outages=state.include_outages),
    label="Every red stretch, over 90 days, with the trend: Time to green",
    icon=":material/timer:",
)
target = choices.opened_by_plan(health.plans, selected)
if target is not None:
    url_filters.switch_to(routes.EXECUTIONS, target.with_changes(date_range=DateRange.LAST_30_DAYS))

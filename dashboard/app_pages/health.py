"""Plan health: one row per plan, how it has done over 7 and 30 days. A row opens its executions."""

import streamlit as st

from dashboard.data import cache
from dashboard.present import health_view as views
from dashboard.state import choices, routes
from dashboard.state.params import PROJECT, DateRange, ViewState
from dashboard.state.query import preset_query
from dashboard.ui import analytics_input, notices, shared_views, table_views, url_filters
from dashboard.ui import triage as triage_view
from dashboard.ui.page import open_page
from dashboard.ui.tables import rate_column, table
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
query = preset_query(DateRange.LAST_30_DAYS, now=now, project=state.project)
data = notices.loaded_or_stop(
    lambda: cache.executions(page.connection, query), part="the plans' executions"
)
# Likely outages are left out of every figure unless included; the view is shared by viewers.
triage = triage_view.triage_of(page.connection, data.executions, now=now, state=state)
view = shared_views.health(
    page.connection,
    query,
    data,
    triage,
    now=now,
    tz=tz,
    project=page.project_name,
    plan_names=page.plan_names,
)
if view.no_plan_ran:
    notices.show_notes([view.no_plan_ran], severity="info")
    st.stop()

notices.caption(view.caption)
triage_view.outages_caption(triage)
# "Now" reads the one verdict of each failure of each plan's latest failing execution.
latest = view.latest_failing(marks=triage.marks, include_outages=triage.include)
verdicts = triage_view.verdicts_of(
    page.connection,
    analytics_input.results_of(
        page.connection, latest, data.executions, part="each plan's latest failing execution"
    ),
    data.executions,
    triage.ledger,
    now=now,
)
shown = view.with_known(
    triage_view.known_per_execution(page.connection, view.executions, triage.marks),
    verdicts,
    triage.outages,
    included=triage.include,
)
notices.caption(shown.caption)
sparkline, sparkline_help = shown.sparkline
selected = table(
    shown.table.display,
    key=shown.table.key,
    file_name=shown.table.file_name,
    selectable=True,
    column_config={
        **table_views.column_settings(shown.table.columns),
        **{name: rate_column(help=text) for name, text in shown.rate_help.items()},
        sparkline: st.column_config.LineChartColumn(y_min=0, y_max=100, help=sparkline_help),
    },
)

st.header("How long plans stay red", divider="gray")
notices.plain(view.red_turns)
notices.caption(view.red_caption)
table_views.show(view.red_table)
url_filters.page_link(
    routes.TIME_TO_GREEN,
    ViewState(project=state.project, include_outages=state.include_outages),
    label=views.TIME_TO_GREEN_LINK,
    icon=views.TIME_TO_GREEN_ICON,
)
target = choices.opened_by_plan(view.health.plans, selected)
if target is not None:
    url_filters.switch_to(routes.EXECUTIONS, target.with_changes(date_range=DateRange.LAST_30_DAYS))

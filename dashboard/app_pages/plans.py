"""Plans: the company's test plans. Selecting one opens its executions."""

import streamlit as st

from api_client import ApiError
from dashboard import cache, chrome, routes, transforms, ui, url_state, views
from dashboard.formatting import describe_slice
from dashboard.messages import describe_skipped

ROUTE = routes.PLANS

connection = chrome.current_connection()
parsed = ui.read_view(ROUTE)
state, problems = parsed.state, list(parsed.problems)

st.title("Test plans")

try:
    data = cache.plans(connection, active_only=state.active_only)
except ApiError as error:
    ui.write_url(state, ROUTE)
    ui.show_notes(problems)
    ui.show_error(error)
    st.stop()

projects = transforms.project_names(data.plans)
checked = url_state.reconcile(state, known_projects=projects, plan_projects={})
state, problems = checked.state, problems + checked.problems

# -- filters ----------------------------------------------------------------------------------
filters = ui.UrlFilters(ROUTE, state)
left, right = st.columns([3, 2], vertical_alignment="bottom")
with left:
    filters.selectbox("Project", "project", {None: "All projects", **projects})
with right:
    filters.toggle("Active plans only", "active_only", help="Leave out disabled plans.")
ui.write_url(state, ROUTE)
ui.show_notes(problems)
ui.show_notes([describe_skipped((s.reason for s in data.skipped), "plan") or ""])

plans = transforms.filter_plans(data.plans, project_id=state.project)
if plans.empty:
    st.info(
        "No plans match these filters."
        + (" Turn off *Active plans only* to include disabled ones." if state.active_only else "")
    )
    st.stop()

# -- KPIs -------------------------------------------------------------------------------------
kpis = transforms.plan_kpis(plans)
columns = st.columns(4)
columns[0].metric("Plans", f"{kpis.plans:,}", border=True)
columns[1].metric("Enabled", f"{kpis.enabled:,}", border=True)
columns[2].metric("Scenarios", f"{kpis.scenarios:,}", border=True)
columns[3].metric("With alerts", f"{kpis.with_alerts:,}", border=True)

# -- table ------------------------------------------------------------------------------------
scope = f"in project {projects[state.project]}" if state.project else "in every project"
kind = "active " if state.active_only else ""
ui.caption(
    describe_slice(kpis.plans, f"{kind}plan", None, None, today=chrome.now(connection).date())
    + f" {scope}. Select a plan to open its executions."
)
selected = ui.table(
    transforms.plans_display(plans),
    key="plans.table",
    file_name="plans.csv",
    selectable=True,
    column_config={
        "Id": st.column_config.NumberColumn(format="%d", width="small"),
        "Plan": st.column_config.TextColumn(width="medium"),
        "Scenarios": st.column_config.NumberColumn(help="Scenarios linked to the plan"),
        "Parallel limit": st.column_config.NumberColumn(help="Maximum parallel tests"),
        "Retries": st.column_config.NumberColumn(help="Retries of a failed test"),
        "Alerts": st.column_config.NumberColumn(help="Enabled alerts (e.g. e-mail)"),
        "Created": st.column_config.DatetimeColumn(format="D MMM YYYY, HH:mm"),
        "Updated": st.column_config.DatetimeColumn(format="D MMM YYYY, HH:mm"),
    },
)
target = views.opened_by_plan(plans, selected)
if target is not None:
    st.switch_page(routes.EXECUTIONS.script, query_params=ui.link_params(target, routes.EXECUTIONS))

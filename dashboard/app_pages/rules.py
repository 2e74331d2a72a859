"""Group rules: the team's rules for failure groups (a category, or a merge), each with who wrote
it and when; a form that writes one, previewed on the failures of each plan's last executions
before it is saved; and removing one (it is kept)."""

import streamlit as st

from dashboard.present import rules_view
from dashboard.state import routes
from dashboard.ui import notices, rules_form, table_views
from dashboard.ui.page import open_page
from dashboard.ui.zones import viewer_zone

ROUTE = routes.RULES

page = open_page(ROUTE, "Group rules", plans="wanted")
connection, state, now, plan_names = page.connection, page.state, page.now, page.plan_names

widgets = page.widgets()
top = st.columns([6, 2], vertical_alignment="bottom")
with top[1]:
    tz = viewer_zone(widgets, state)
page.settle()

read = rules_form.read_rules(connection)
view = rules_view.rules_view(read.rules, plan_names=plan_names, tz=tz)

st.header("Write a rule", divider="gray")
rules_form.flash()
rules_form.rule_form(
    connection,
    read=read,
    preview_of=rules_form.previewer(connection, now=now, plan_names=plan_names, tz=tz),
    plan_names=plan_names,
    now=now,
)

st.header("Rules", divider="gray")
notices.caption(view.caption)
if view.table is not None:
    table_views.show(view.table)
rules_form.remove_form(connection, read=read, removable=view.removable, now=now)

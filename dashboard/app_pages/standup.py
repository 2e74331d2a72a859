"""Standup: what changed since the last standup, on one screen (and in presenter mode on a TV)."""

from datetime import timedelta

import streamlit as st

from dashboard.data import cache, cache_history, cache_names
from dashboard.present.captions import scope_text
from dashboard.present.standup_view import StandupView
from dashboard.state import routes
from dashboard.state.params import DateRange
from dashboard.state.query import standup_query, standup_window
from dashboard.ui import notices, presenter, shared_views
from dashboard.ui import standup_layout as layout
from dashboard.ui.page import open_page

ROUTE = routes.STANDUP
REFRESH_EVERY = timedelta(minutes=3)

page = open_page(
    ROUTE,
    lambda view: "Standup" if view.date_range is DateRange.CUSTOM else "Since the last standup",
    plans="wanted",
)
connection, state, now = page.connection, page.state, page.now
presenter.one_screen()
if state.present:
    presenter.enter()

# On this page the default range means "since the last standup" (a working day back, at the
# standup's time); Custom takes the from/to days in the chosen zone.
tz = layout.controls(page) if not state.present else state.tz or "UTC"
page.settle()
# Up to this minute: viewers within the same minute share one view (`ui.shared_views`).
window = standup_window(state, shared_views.minute(now), tz=tz)


@st.fragment(run_every=REFRESH_EVERY if state.present else None)
def standup_body() -> None:
    """Everything below the controls; in presenter mode it refreshes itself."""
    query = standup_query(state, window)
    data = notices.loaded_or_stop(
        lambda: cache.executions(connection, query), part="the executions of the standup window"
    )
    ledger = cache_history.ledger(connection)
    # Made once per input and shared by every viewer of the same data (`ui.shared_views`).
    view: StandupView = shared_views.standup(
        connection,
        query,
        data,
        ledger,
        window=window,
        now=now,
        include_outages=state.include_outages,
        plans=page.plans,
        plan_names=page.plan_names,
        scope=scope_text(project=page.project_name),
        names=cache_names.names(connection),
    )
    notices.caption(view.window_caption)
    kpi = st.columns([1, 1, 1, 0.6] if not state.present else 3, vertical_alignment="center")
    layout.metrics(view, kpi)
    layout.sections(view, present=state.present)
    notices.caption(view.running_caption)
    layout.known_block(view, present=state.present, ledger=ledger, connection=connection, now=now)
    if not state.present:
        layout.copy_for_chat(view, kpi[3])


standup_body()

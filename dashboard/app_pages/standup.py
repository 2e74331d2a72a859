"""Standup: what changed since the last standup, on one screen (and in presenter mode on a TV)."""

from datetime import timedelta

import pandas as pd
import streamlit as st

from api_client import ApiError, ExecutionQuery
from dashboard.analytics import plans as plan_analytics
from dashboard.analytics import standup as standup_analytics
from dashboard.analytics import windows
from dashboard.data import cache
from dashboard.present import digest as digest_text
from dashboard.present import standup as sections_view
from dashboard.present.captions import describe_basis, describe_results
from dashboard.present.formatting import percent
from dashboard.state import choices, links, routes
from dashboard.state.url import DEFAULT_STANDUP_AT, DateRange
from dashboard.ui import notices, presenter, sidebar, url_filters
from dashboard.ui.tables import table
from dashboard.ui.zones import viewer_zone

ROUTE = routes.STANDUP
REFRESH_EVERY = timedelta(minutes=3)
LINK_COLUMNS = {
    "Evidence": st.column_config.LinkColumn(display_text="open"),
    "History": st.column_config.LinkColumn(display_text="history"),
}
# Presenter mode: the free-text columns get a fixed width (a long plan name or message is cut
# with an ellipsis), so they never push the columns after them off the table's right edge.
PRESENTER_COLUMNS = {
    **LINK_COLUMNS,
    "Plan": st.column_config.TextColumn(width="medium"),
    "Message": st.column_config.TextColumn(width="medium"),
}

connection = sidebar.current_connection()
parsed = url_filters.read_view(ROUTE)
state, problems = parsed.state, list(parsed.problems)
now = sidebar.now(connection)
presenter.one_screen()
if state.present:
    presenter.enter()

try:
    plans = cache.plans(connection, active_only=False).plans
except ApiError as error:
    plans = None
    notices.show_error(error, part="the plan list (the project filter shows ids only)")
projects = plan_analytics.project_names(plans) if plans is not None else {}
if plans is not None:
    checked = choices.reconcile(state, known_projects=projects, plan_projects={})
    state, problems = checked.state, problems + checked.problems

st.title("Since the last standup" if state.date_range is not DateRange.CUSTOM else "Standup")

# -- the window ----------------------------------------------------------------------------
# On this page the default range means "since the last standup" (a working day back, at the
# standup's time); Custom takes the from/to days in the chosen zone.
widgets = url_filters.UrlFilters(ROUTE, state)
if not state.present:
    # One row of controls: the custom range's days take the place of the standup's time.
    top = st.columns([2, 2, 2, 1.2, 1.2, 1], vertical_alignment="bottom")
    with top[0]:
        widgets.selectbox("Project", "project", {None: "All projects", **projects})
    with top[1]:
        tz = viewer_zone(widgets, state)
    with top[2]:
        widgets.segmented(
            "Window",
            "date_range",
            {DateRange.LAST_7_DAYS: "Since the last standup", DateRange.CUSTOM: "Custom"},
            resets={"date_from": (now - timedelta(days=1)).date(), "date_to": now.date()},
        )
    if state.date_range is DateRange.CUSTOM:
        with top[3]:
            widgets.date("From", "date_from")
        with top[4]:
            widgets.date("To", "date_to")
    else:
        with top[3]:
            widgets.time("Standup at", "standup_at", DEFAULT_STANDUP_AT, step=timedelta(minutes=15))
    with top[5]:
        st.link_button(
            "Present",
            links.standup_link(state.with_changes(present=True)),
            icon=":material/tv:",
            help="Large type, no sidebar, refreshes itself every few minutes.",
        )
else:
    tz = state.tz or "UTC"
url_filters.write_url(state, ROUTE)
notices.show_notes(problems)

at = state.standup_at or DEFAULT_STANDUP_AT
if state.date_range is DateRange.CUSTOM and (state.date_from or state.date_to):
    first = state.date_from or state.date_to
    last = state.date_to or state.date_from
    window = windows.custom_window(first, last, tz=tz)
else:
    window = windows.standup_window(pd.Timestamp(now), tz=tz, at=at)


@st.fragment(run_every=REFRESH_EVERY if state.present else None)
def standup_body() -> None:
    """Everything below the controls; in presenter mode it refreshes itself."""
    since = standup_analytics.history_start(window).to_pydatetime()
    custom_end = window.end.to_pydatetime() if state.date_range is DateRange.CUSTOM else None
    query = ExecutionQuery(project_id=state.project, date_from=since, date_to=custom_end)
    try:
        data = cache.executions(connection, query)
    except ApiError as error:
        notices.show_error(error, part="the executions of the standup window")
        return
    digest = standup_analytics.standup_digest(data.executions, window)
    needed = digest.results_needed
    fetched = None  # the fan-out's counts: whose results the newly failing section had
    if needed:
        try:
            results = cache.history_results(connection, needed, data.executions)
            digest = standup_analytics.with_newly_failing(digest, results.results)
            fetched = results.counts
        except ApiError as error:
            notices.show_error(error, part="the results behind newly failing scenarios")

    scope = f"of project {projects.get(state.project, state.project)}" if state.project else ""
    notices.caption(
        f"{windows_text(window)}. "
        + describe_basis(digest.basis, today=now.date(), scope=scope)
        + ". A plan is judged on its latest finished execution; a running one is not a verdict."
    )
    kpi = st.columns([1, 1, 1, 0.6] if not state.present else 3, vertical_alignment="center")
    kpi[0].metric("Executions", f"{digest.current.executions:,}")
    delta = digest.pass_rate_delta
    kpi[1].metric(
        "Pass rate",
        percent(digest.current.pass_rate),
        delta=None if delta is None else f"{delta * 100:+.1f} pts",
        help="Passed results of finished executions over their results with a verdict, against "
        "the previous window of equal length.",
    )
    kpi[2].metric("Previous window", f"{digest.previous.executions:,} executions")

    def link_for(kind: str, ident: int) -> str | None:
        if kind == "plan":
            return links.executions_link(ident)
        return links.results_link(ident, plan_id=None, started=None)

    every = sections_view.sections(digest, link_for, scenario_link=links.scenario_link)
    # Everything in view at once on a 1920x1080 screen: the three plan verdicts side by side,
    # then the scenarios and the slower plans (tests/browser/test_standup.py measures it).
    rows = [st.columns(3), st.columns([3, 2])]
    places = [rows[0][0], rows[0][1], rows[0][2], rows[1][0], rows[1][1]]
    for position, (section, place) in enumerate(zip(every, places, strict=True)):
        with place:
            st.subheader(section.title)
            if fetched is not None and section.title == "Newly failing scenarios":
                notices.caption("Built on the " + describe_results(fetched) + ".")
            if not section.computed:
                notices.show_notes(["The results could not be loaded."], severity="warning")
            elif section.rows.empty:
                notices.show_notes([section.empty_text], severity="info")
            else:
                st.dataframe(
                    section.shown,
                    hide_index=True,
                    column_order=sections_view.column_order(section, present=state.present),
                    column_config=PRESENTER_COLUMNS if state.present else LINK_COLUMNS,
                    key=f"standup.{position}",
                )
                if section.more:
                    with st.expander(f"and {section.more} more"):
                        st.dataframe(
                            section.rows.iloc[sections_view.SHOWN_PER_SECTION :],
                            hide_index=True,
                            column_config=LINK_COLUMNS,
                        )
    if len(digest.running):
        notices.caption(
            "Running now, judged on their latest finished execution: "
            + ", ".join(str(name) for name in digest.running["plan"])
        )
    if not state.present:
        with kpi[3].popover("Copy for chat", icon=":material/chat:", width="stretch"):
            page_url = st.context.url
            st.code(
                digest_text.digest_markdown(
                    digest,
                    link_for=lambda kind, ident: (
                        links.absolute(link_for(kind, ident) or "", page_url) or None
                    ),
                ),
                language="markdown",
            )
            table(
                sections_view.items_csv_frame(every),
                key="standup.items",
                file_name="standup.csv",
            )


def windows_text(shown: windows.Window) -> str:
    start, end = shown.local_start(), shown.local_end()
    return f"From {start:%a %d %b %H:%M} to {end:%a %d %b %H:%M} ({shown.tz})"


standup_body()

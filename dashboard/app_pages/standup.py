"""Standup: what changed since the last standup, on one screen (and in presenter mode on a TV)."""

from datetime import timedelta

import pandas as pd
import streamlit as st

from api_client import ApiError
from dashboard.analytics import standup as standup_analytics
from dashboard.analytics.standup_triage import StandupTriage, standup_triage
from dashboard.data import cache
from dashboard.present import digest as digest_text
from dashboard.present import help_texts
from dashboard.present import known as known_words
from dashboard.present import standup as sections_view
from dashboard.present.captions import scope_text
from dashboard.present.formatting import percent
from dashboard.present.key_columns import section_key, table_anchor
from dashboard.state import links, routes
from dashboard.state.params import (
    DEFAULT_STANDUP_AT,
    FROM,
    PROJECT,
    RANGE,
    STANDUP_AT,
    TO,
    DateRange,
)
from dashboard.state.query import standup_query, standup_window
from dashboard.ui import marking, notices, presenter, url_filters
from dashboard.ui import triage as triage_view
from dashboard.ui.page import open_page
from dashboard.ui.tables import link_column, table
from dashboard.ui.zones import viewer_zone

ROUTE = routes.STANDUP
REFRESH_EVERY = timedelta(minutes=3)
LINK_COLUMNS = {"Evidence": link_column("open"), "History": link_column("history")}
# The normal view: a message is cut with an ellipsis at a fixed width, so that the history link
# after it stays in view (the whole message is in the results the evidence opens).
# A long plan name is cut too: three sections side by side on a 1920 px screen hold four
# columns each only so.
NORMAL_COLUMNS = {
    **LINK_COLUMNS,
    "Plan": st.column_config.TextColumn(width=170),
    "Message": st.column_config.TextColumn(width="medium"),
}
# Presenter mode: the free-text columns get a fixed width (a long plan name or message is cut
# with an ellipsis), so they never push the columns after them off the table's right edge.
PRESENTER_COLUMNS = {
    **LINK_COLUMNS,
    "Plan": st.column_config.TextColumn(width="medium"),
    "Message": st.column_config.TextColumn(width="medium"),
}

page = open_page(
    ROUTE,
    lambda view: "Standup" if view.date_range is DateRange.CUSTOM else "Since the last standup",
    plans="wanted",
)
connection, state, now = page.connection, page.state, page.now
presenter.one_screen()
if state.present:
    presenter.enter()

# -- the window ----------------------------------------------------------------------------
# On this page the default range means "since the last standup" (a working day back, at the
# standup's time); Custom takes the from/to days in the chosen zone.
widgets = page.widgets()
if not state.present:
    # One row of controls: the custom range's days take the place of the standup's time.
    top = st.columns([1.6, 1.6, 2.4, 1.2, 1.1, 1.9, 1.2], vertical_alignment="bottom")
    with top[0]:
        widgets.selectbox("Project", PROJECT, {None: "All projects", **page.projects})
    with top[1]:
        tz = viewer_zone(widgets, state)
    with top[2]:
        widgets.segmented(
            "Window",
            RANGE,
            {DateRange.LAST_7_DAYS: "Since the last standup", DateRange.CUSTOM: "Custom"},
            resets={FROM: (now - timedelta(days=1)).date(), TO: now.date()},
        )
    if state.date_range is DateRange.CUSTOM:
        with top[3]:
            widgets.date("From", FROM)
        with top[4]:
            widgets.date("To", TO)
    else:
        with top[3]:
            widgets.time("Standup at", STANDUP_AT, DEFAULT_STANDUP_AT, step=timedelta(minutes=15))
    with top[5]:
        triage_view.outages_toggle(widgets)
    with top[6]:
        st.link_button(
            "Present",
            links.standup_link(state.with_changes(present=True)),
            icon=":material/tv:",
            help=help_texts.PRESENT,
        )
else:
    tz = state.tz or "UTC"
page.settle()
window = standup_window(state, now, tz=tz)


def link_for(kind: str, ident: int) -> str | None:
    """The evidence of an item: a plan's executions, an execution's results."""
    if kind == sections_view.PLAN_EVIDENCE:
        return links.executions_link(ident)
    return links.results_link(ident, plan_id=None, started=None)


@st.fragment(run_every=REFRESH_EVERY if state.present else None)
def standup_body() -> None:
    """Everything below the controls; in presenter mode it refreshes itself."""
    try:
        data = cache.executions(connection, standup_query(state, window))
    except ApiError as error:
        notices.show_error(error, part="the executions of the standup window")
        return
    # Outages are one line each, left out of the sections and the pass rate unless included.
    triage = triage_view.triage_of(connection, data.executions, now=now, state=state)
    digest = standup_analytics.standup_digest(triage.without_outages(data.executions), window)
    needed = digest.results_needed
    fetched = None  # the fan-out's counts: whose results the newly failing section had
    changes = None  # what changed for each plan that turned red
    read = None  # those results, to fold what marks cover
    if needed:
        try:
            results = cache.history_results(connection, needed, data.executions)
            digest = standup_analytics.with_newly_failing(digest, results.results)
            fetched, read = results.counts, results.results
            changes = standup_analytics.turned_red_changes(
                digest, data.executions, results.results, page.plans
            )
        except ApiError as error:
            notices.show_error(error, part="the results behind newly failing scenarios")
    in_window = triage.outages[window.contains(triage.outages["start"]).fillna(False).to_numpy()]
    digest, folded = standup_triage(
        digest,
        read,
        triage.ledger.marks,
        now,
        outages=in_window,
        outages_left_out=not triage.include,
    )

    notices.caption(
        sections_view.window_caption(
            window, digest.basis, today=now.date(), scope=scope_text(project=page.project_name)
        )
    )
    kpi = st.columns([1, 1, 1, 0.6] if not state.present else 3, vertical_alignment="center")
    kpi[0].metric("Executions", f"{digest.current.executions:,}")
    change = sections_view.rate_change(digest.pass_rate_delta)
    kpi[1].metric(
        "Pass rate",
        percent(digest.current.pass_rate),
        delta=change.text,
        delta_color=change.delta_color,
        delta_arrow=change.delta_arrow,
        help=help_texts.RATE_SINCE_STANDUP,
    )
    kpi[2].metric("Previous window", f"{digest.previous.executions:,} executions")

    every = sections_view.sections(
        digest, link_for, scenario_link=links.scenario_link, changes=changes
    )
    # Everything in view at once on a 1920x1080 screen: the three plan verdicts side by side,
    # then the scenarios and the slower plans (tests/browser/test_standup.py measures it).
    # Below 1700 px the sections stack instead (`presenter.SECTIONS_KEY`): a laptop's third of
    # the page holds two columns of a section, not its four.
    with st.container(key=presenter.SECTIONS_KEY):
        rows = [st.columns(3), st.columns([3, 2])]
    places = [rows[0][0], rows[0][1], rows[0][2], rows[1][0], rows[1][1]]
    for position, (section, place) in enumerate(zip(every, places, strict=True)):
        with place:
            st.header(section.title)
            if fetched is not None and section.title == sections_view.NEWLY_FAILING:
                notices.caption(sections_view.fetched_caption(fetched))
            if not section.computed:
                notices.show_notes(["The results could not be loaded."], severity="warning")
            elif section.rows.empty:
                notices.show_notes([section.empty_text], severity="info")
            elif state.present:
                with st.container(key=table_anchor(section_key(section.title))):
                    st.dataframe(
                        section.shown,
                        hide_index=True,
                        column_order=sections_view.column_order(section, present=True),
                        column_config=PRESENTER_COLUMNS,
                        key=f"standup.{position}",
                    )
            else:
                # Selecting a row (a click, or Shift+Space in the table) opens its evidence:
                # the links drawn in the table cannot be followed with the keyboard.
                with st.container(key=table_anchor(section_key(section.title))):
                    event = st.dataframe(
                        section.shown,
                        hide_index=True,
                        column_order=sections_view.column_order(section),
                        column_config=NORMAL_COLUMNS,
                        key=f"standup.{position}",
                        on_select="rerun",
                        selection_mode="single-row",
                    )
                chosen = event.selection.rows
                evidence = section.shown["Evidence"].iloc[chosen[0]] if chosen else None
                if evidence:
                    url_filters.follow(evidence)
                if section.more:
                    with st.expander(f"and {section.more} more"):
                        st.dataframe(
                            section.rows.iloc[sections_view.SHOWN_PER_SECTION :],
                            hide_index=True,
                            column_config=LINK_COLUMNS,
                        )
    notices.caption(sections_view.running_caption(digest))
    known_block(folded, digest, read, triage)
    if not state.present:
        with kpi[3].popover("Copy for chat", icon=":material/chat:", width="stretch"):
            page_url = st.context.url
            st.code(
                digest_text.digest_markdown(
                    digest,
                    link_for=lambda kind, ident: (
                        links.absolute(link_for(kind, ident) or "", page_url) or None
                    ),
                    triage=folded,
                    plan_names=page.plan_names,
                ),
                # Plain text, wrapped: the markdown highlighting's link colour reads at under
                # 3:1 in the dark theme, and a block that scrolls sideways cannot be reached by
                # the keyboard.
                language=None,
                wrap_lines=True,
            )
            table(
                sections_view.items_csv_frame(
                    every, folded=folded, plan_names=page.plan_names, tz=window.tz
                ),
                key="standup.items",
                file_name="standup.csv",
            )


def known_block(
    folded: StandupTriage,
    digest: standup_analytics.StandupDigest,
    read: pd.DataFrame | None,
    triage: triage_view.Triage,
) -> None:
    """What marks and outages folded away, collapsed under one line (one line per mark, per
    outage, per mark expiring soon inside); marking and confirming (not on a shared screen)."""
    names = page.plan_names
    if state.present:
        # A shared screen has no room for a block: the one line, when there is something.
        if not folded.empty:
            notices.caption(sections_view.folded_title(folded))
        return
    with st.expander(sections_view.folded_title(folded), icon=":material/bookmark:"):
        for line in sections_view.folded_lines(folded, names, window.tz):
            notices.plain(line)
        notices.caption(sections_view.folded_caption(folded))
        marking.notice(triage.ledger)
        left, right = st.columns(2)
        with left:
            marking.mark_form(
                "standup",
                sections_view.standup_choices(digest, read, names),
                ledger=triage.ledger,
                connection=connection,
                now=now,
            )
        with right:
            pending = known_words.pending_outages(folded.outages)
            marking.mark_form(
                "standup.outages",
                known_words.execution_choices(pending, names, window.tz),
                ledger=triage.ledger,
                connection=connection,
                now=now,
                kinds=known_words.OUTAGE_KINDS,
                label="Confirm or dismiss an outage…",
            )


standup_body()

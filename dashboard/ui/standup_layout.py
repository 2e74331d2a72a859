"""The standup's screen, drawn from its view (`present.standup_view`): the figures, the five
sections, what marks and outages folded away (in view; only its forms fold), and "Copy for
chat". Only layout lives here."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import pandas as pd
import streamlit as st
from cachetools import LRUCache
from streamlit.delta_generator import DeltaGenerator

from api_client import ApiError
from dashboard.data import cache
from dashboard.data.cache_history import Ledger
from dashboard.data.connection import Connection
from dashboard.data.fanout_answer import FanOut
from dashboard.present import help_texts
from dashboard.present import known as known_words
from dashboard.present.formatting import visible_text
from dashboard.present.standup_view import (
    LINK_COLUMNS,
    NORMAL_COLUMNS,
    PLAN_EVIDENCE,
    PRESENTER_COLUMNS,
    ColumnLook,
    StandupNeeds,
    StandupView,
)
from dashboard.state import links
from dashboard.state.params import (
    DEFAULT_STANDUP_AT,
    FROM,
    PROJECT,
    RANGE,
    STANDUP_AT,
    TO,
    DateRange,
)
from dashboard.ui import marking, notices, presenter, url_filters
from dashboard.ui import triage as triage_view
from dashboard.ui.page import Page
from dashboard.ui.tables import link_column, table
from dashboard.ui.zones import viewer_zone


def controls(page: Page) -> str:
    """One row of controls (the custom range's days take the place of the standup's time);
    the viewer's time zone."""
    state, now, widgets = page.state, page.now, page.widgets()
    top = st.columns([1.4, 2.0, 2.7, 1.0, 1.0, 1.8, 1.1], vertical_alignment="bottom")
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
    return tz


def link_for(kind: str, ident: int) -> str | None:
    """The evidence of an item on the page: a plan's executions, an execution's results."""
    if kind == PLAN_EVIDENCE:
        return links.executions_link(ident)
    return links.results_link(ident, plan_id=None, started=None)


def results_of(connection: Connection, needs: StandupNeeds) -> FanOut | None:
    """The results the newly failing section needs (None when it needs none, or they could not
    be read: said here, and the rest of the page is drawn)."""
    if not needs.results_needed:
        return None
    try:
        return cache.history_results(connection, needs.results_needed, needs.executions)
    except ApiError as error:
        notices.show_error(error, part="the results behind newly failing scenarios")
        return None


def verdicts_of(
    connection: Connection, needs: StandupNeeds, results: FanOut | None, ledger: Ledger
) -> pd.DataFrame | None:
    """The one verdict per failed result of `needs.judged` over the results read (the cached
    `ui.triage.verdicts_of` every page reads; None when no results were read)."""
    if results is None:
        return None
    return triage_view.verdicts_of(
        connection, results.results, needs.executions, ledger, now=needs.now, judged=needs.judged
    )


def column_settings(looks: Mapping[str, ColumnLook]) -> dict[str, Any]:
    """The looks of `present.standup_view` as Streamlit's column settings."""
    return {
        name: link_column(look.text)
        if look.kind == "link"
        else st.column_config.TextColumn(width=look.width)
        for name, look in looks.items()
    }


def metrics(view: StandupView, places: Sequence[DeltaGenerator]) -> None:
    for place, metric in zip(places, view.metrics, strict=False):
        place.metric(
            metric.label,
            metric.value,
            delta=metric.delta,
            delta_color=metric.delta_color,
            delta_arrow=metric.delta_arrow,
            help=metric.help,
        )


def sections(view: StandupView, *, present: bool) -> None:
    """The five sections. Everything is in view at once on a 1920x1080 screen: the three plan
    verdicts side by side, then the scenarios and the slower plans (tests/browser/test_standup.py
    measures it). Below 1700 px they stack (`presenter.SECTIONS_KEY`): a laptop's third of the
    page holds two columns of a section, not its four."""
    with st.container(key=presenter.SECTIONS_KEY):
        rows = [st.columns(3), st.columns([3, 2])]
    places = [rows[0][0], rows[0][1], rows[0][2], rows[1][0], rows[1][1]]
    for position, (section, place) in enumerate(zip(view.sections, places, strict=True)):
        with place:
            st.header(section.title)
            notices.caption(section.caption)
            if section.note is not None:
                text, severity = section.note
                notices.show_notes([text], severity=severity)
            elif present:
                with st.container(key=section.key):
                    st.dataframe(
                        section.section.shown,
                        hide_index=True,
                        column_order=section.presenter_columns,
                        column_config=column_settings(PRESENTER_COLUMNS),
                        key=f"standup.{position}",
                    )
            else:
                # Selecting a row (a click, or Shift+Space in the table) opens its evidence:
                # the links drawn in the table cannot be followed with the keyboard.
                with st.container(key=section.key):
                    event = st.dataframe(
                        section.section.shown,
                        hide_index=True,
                        column_order=section.columns,
                        column_config=column_settings(NORMAL_COLUMNS),
                        key=f"standup.{position}",
                        on_select="rerun",
                        selection_mode="single-row",
                    )
                chosen = event.selection.rows
                evidence = section.section.shown["Evidence"].iloc[chosen[0]] if chosen else None
                if evidence:
                    url_filters.follow(evidence)
                if section.section.more:
                    with st.expander(f"and {section.section.more} more"):
                        st.dataframe(
                            section.more,
                            hide_index=True,
                            column_config=column_settings(LINK_COLUMNS),
                        )


def known_block(
    view: StandupView, *, present: bool, ledger: Ledger, connection: Connection, now: datetime
) -> None:
    """What marks and outages folded away, in view: its one line, then one line per mark, per
    outage, per mark expiring soon, and why they are not in the sections. Only the forms that
    mark and confirm fold away (popovers; none on a shared screen)."""
    if present:
        # A shared screen has no room for a block: the one line, when there is something.
        if not view.folded.empty:
            notices.caption(view.folded_title)
        return
    # The forms beside the words, not under them, and the words close together as one block:
    # a row less keeps the page on one screen.
    words, known_form, outage_form = st.columns([3, 1, 1])
    with words, st.container(gap="xsmall"):
        notices.plain(view.folded_title)
        if view.folded_lines:
            # One text for every line (a name from the service, never markdown): the lines sit
            # close together, as a list does.
            notices.plain(
                "\n".join(visible_text(line, one_line=True) for line in view.folded_lines)
            )
        notices.caption(view.folded_caption)
        marking.notice(ledger)
    with known_form:
        marking.mark_form(
            "standup", view.mark_choices, ledger=ledger, connection=connection, now=now
        )
    with outage_form:
        marking.mark_form(
            "standup.outages",
            view.outage_choices,
            ledger=ledger,
            connection=connection,
            now=now,
            kinds=known_words.OUTAGE_KINDS,
            label="Confirm or dismiss an outage…",
        )


_CHATS: LRUCache[tuple[int, str], tuple[StandupView, str]] = LRUCache(maxsize=32)
"""The chat text of each shared view (`ui.shared_views.standup`) per page address, beside the
view it was made of: the view is one object for all its viewers, so its text is made once for
them too (a digest's Markdown is about 70 ms at 100,000 executions, paid by every viewer's run
before). Keeping the view makes its id a safe key while it is kept."""
_CHATS_LOCK = threading.Lock()


def chat_text(view: StandupView, page_url: str | None) -> str:
    """The digest as chat Markdown, its links absolute to `page_url`: made once per view and
    address."""
    key = (id(view), page_url or "")
    with _CHATS_LOCK:
        kept = _CHATS.get(key)
    if kept is not None and kept[0] is view:
        return kept[1]
    text = view.chat(
        lambda kind, ident: links.absolute(link_for(kind, ident) or "", page_url) or None
    )
    with _CHATS_LOCK:
        _CHATS[key] = (view, text)
    return text


def copy_for_chat(view: StandupView, place: DeltaGenerator) -> None:
    """The digest as chat Markdown, its links absolute to this page's address, and every item
    in one table with its CSV."""
    with place.popover("Copy for chat", icon=":material/chat:", width="stretch"):
        st.code(
            chat_text(view, st.context.url),
            # Plain text, wrapped: the markdown highlighting's link colour reads at under 3:1 in
            # the dark theme, and a block that scrolls sideways cannot be reached by the keyboard.
            language=None,
            wrap_lines=True,
        )
        table(view.items, key="standup.items", file_name="standup.csv")

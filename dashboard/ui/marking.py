"""Marking from where a failure is seen: one small form ("Mark as known…"), the read-only notice,
closing a mark, and who marks.

The form holds a target picker (the failures the page shows: a failure group in its plan, on
one of its environments or in every plan; a scenario, a scenario on an environment, an
execution), then kind, ticket, note, owner and the last day it
applies. A mark is the gate's only input besides the service, so who may mark, change and close
is one rule (`viewer.mark_rights`), asked when a control is drawn and again when it is used: on
a dashboard that serves a team, only a signed-in viewer (one of `markers`, when listed), and the
mark says the address they signed in with, never a typed name; anyone else reads the marks and
one sentence saying why they cannot change them. On one person's own dashboard (nobody else can
reach it) the viewer types a name once in this browser session. A refusal is said in sentences
beside the form, which keeps what was typed (nothing else on the page moves); a mark the store
could not take is said too, never dropped in silence. A saved mark reloads the page, whose
figures then count it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime

import pandas as pd
import streamlit as st

from dashboard.analytics.marks import applying as applying_marks
from dashboard.columns import marks as columns
from dashboard.data import cache_history
from dashboard.data.cache_history import Ledger, Written
from dashboard.data.connection import Connection
from dashboard.data.signin import MarkRights
from dashboard.data.store.marks import (
    MAX_NAME,
    MAX_NOTE,
    MAX_TICKET,
    MarkChange,
    MarkDraft,
    author_problem,
    draft_problems,
)
from dashboard.present import known as words
from dashboard.present.known import Choice
from dashboard.ui import notices, viewer

NAME_KEY = "marking.name"
"""session_state: the name this browser session marks under (without sign-in)."""
_FLASH_KEY = "marking.flash"
"""session_state: what the last save said, shown once after the page reloads with it."""


def who_marks(rights: MarkRights) -> str | None:
    """Who a change is made by: the signed-in address, else (one person's dashboard) the name
    typed in this session, else None."""
    if not rights.allowed:
        return None
    return rights.author or st.session_state.get(NAME_KEY) or None


def read_only_notice() -> None:
    """The one calm sentence of a viewer who may not change marks here (none when they may)."""
    rights = viewer.mark_rights()
    if not rights.allowed:
        notices.show_notes([words.read_only(rights)], severity="info")


def _author_now(typed: str | None) -> tuple[MarkRights, str] | None:
    """The rights and author of a change about to be written, asked again at the moment of
    writing (the configuration, or the viewer's sign-in, may have changed since the form was
    drawn): the signed-in address; a typed name only where the rule leaves it to the viewer.
    None, said in a sentence, when the viewer may not change marks."""
    rights = viewer.mark_rights()
    if not rights.allowed:
        notices.show_notes([words.read_only(rights)], severity="warning")
        return None
    return rights, rights.author or (typed or "").strip()


def notice(ledger: Ledger) -> None:
    """The one calm sentence of a ledger that cannot be changed now (none when it can), and the
    marks left out as malformed (none when every mark was read)."""
    said = [sentence for sentence in (ledger.notice, ledger.malformed) if sentence]
    if said:
        notices.show_notes(said, severity="info")


def flash(place: str) -> None:
    """What the last save of this form said, once (after the page reloaded with the mark)."""
    said = st.session_state.pop(f"{_FLASH_KEY}.{place}", None)
    if said:
        notices.show_notes([said], severity="info")


def mark_form(
    place: str,
    choices: Sequence[Choice],
    *,
    ledger: Ledger,
    connection: Connection,
    now: datetime,
    kinds: Sequence[str] = (columns.KNOWN_ISSUE, columns.ACCEPTED),
    label: str = "Mark as known…",
) -> None:
    """The "Mark as known…" button and its form, for the `choices` a page shows at `place` (a
    short key, unique on the page). Nothing is drawn without a choice."""
    flash(place)
    if not choices:
        return
    key = f"mark.{place}"
    rights = viewer.mark_rights()
    if not rights.allowed:
        # No form at all: a control that is drawn can be sent, disabled or not.
        st.button(
            label,
            icon=":material/bookmark_add:",
            disabled=True,
            help=words.read_only(rights),
            key=f"{key}.open",
        )
        return
    # What a mark does is said inside the form, not as the button's tooltip: a tooltip stays
    # over the open form's lower fields while the pointer rests on the button. The tooltip
    # only says why the button is disabled (no form opens then).
    with st.popover(
        label,
        icon=":material/bookmark_add:",
        disabled=not ledger.writable,
        help=ledger.notice,
        key=f"{key}.open",
    ):
        st.caption(words.NOTHING_CHANGES)
        with st.form(key, border=False, enter_to_submit=False):
            picked = st.selectbox(
                "What",
                range(len(choices)),
                format_func=lambda i: choices[i].label,
                help=words.SCOPE_HELP if _offers_a_group(choices) else None,
                key=f"{key}.what",
            )
            kind = st.segmented_control(
                "Kind",
                kinds,
                format_func=words.kind_label,
                default=kinds[0],
                key=f"{key}.kind",
            )
            ticket = st.text_input(
                "Ticket link", placeholder="https://…", max_chars=MAX_TICKET, key=f"{key}.ticket"
            )
            note = st.text_area("Note", max_chars=MAX_NOTE, height=80, key=f"{key}.note")
            owner = st.text_input("Owner", max_chars=MAX_NAME, key=f"{key}.owner")
            expires = st.date_input(
                "Last day it applies (optional)",
                value=None,
                min_value=words.today_utc(now),
                key=f"{key}.expires",
            )
            if rights.author:
                st.caption(f"Marked as {rights.author}.")
                name = rights.author
            else:
                name = st.text_input(
                    "Your name",
                    value=st.session_state.get(NAME_KEY, ""),
                    max_chars=MAX_NAME,
                    help="Kept for this browser session: the mark says who made it.",
                    key=f"{key}.name",
                )
            saved = st.form_submit_button("Save mark")
        if saved:
            draft = MarkDraft(
                target=choices[int(picked)].target,
                kind=str(kind or kinds[0]),
                ticket=ticket,
                note=note,
                owner=owner,
                expires_on=expires if isinstance(expires, date) else None,
            )
            _save(place, key, draft, name, connection, now, choices[int(picked)].label)


def _offers_a_group(choices: Sequence[Choice]) -> bool:
    return any(choice.target.target == columns.FAILURE_GROUP for choice in choices)


def mark_failures(
    place: str,
    failed: pd.DataFrame,
    plan_names: Mapping[int, str],
    *,
    ledger: Ledger,
    connection: Connection,
    now: datetime,
    signatures: Iterable[object] = (),
    plan_id: int | None = None,
) -> None:
    """The ledger's notice and "Mark as known…" for a page's failed cells and failure groups
    (`words.failure_choices`)."""
    notice(ledger)
    mark_form(
        place,
        words.failure_choices(failed, plan_names, signatures=signatures, plan_id=plan_id),
        ledger=ledger,
        connection=connection,
        now=now,
    )


def _save(
    place: str,
    key: str,
    draft: MarkDraft,
    typed: str,
    connection: Connection,
    now: datetime,
    what: str,
) -> None:
    now_allowed = _author_now(typed)
    if now_allowed is None:
        return
    rights, by = now_allowed
    problems = draft_problems(draft, by=by, today=words.today_utc(now))
    if problems:
        notices.show_notes(problems, severity="warning")
        return
    if rights.author is None:
        st.session_state[NAME_KEY] = by
    written = cache_history.add_mark(connection, draft, by=by, now=now)
    if not _said(written):
        return
    ticket = words.ticket_label(draft.ticket)
    st.session_state[f"{_FLASH_KEY}.{place}"] = (
        f"Marked {what} as {words.kind_label(draft.kind).lower()}"
        + (f" ({ticket})" if ticket else "")
        + f": mark {written.mark_id}. It changes these figures only, nothing on the service."
    )
    for field in ("what", "kind", "ticket", "note", "owner", "expires"):
        st.session_state.pop(f"{key}.{field}", None)
    st.rerun()


def _said(written: Written) -> bool:
    """Say what kept a change from landing; True when it landed."""
    if written.refused:
        notices.show_notes(list(written.refused), severity="warning")
        return False
    if written.failed:
        notices.show_notes([written.failed], severity="warning")
        return False
    return written.done


def close_button(
    place: str,
    mark_id: str,
    *,
    ledger: Ledger,
    connection: Connection,
    now: datetime,
    label: str = "Close",
    reason: str | None = None,
    said_at: str | None = None,
) -> None:
    """A one-click close of `mark_id` (it is kept, and stops applying); on one person's
    dashboard, asks for a name first when none was typed this session; disabled, saying why,
    for a viewer who may not change marks (`viewer.mark_rights`). What it did is said by
    `flash(said_at)` (default: `place`; a page whose closed marks leave the list says it
    above the list)."""
    if said_at is None:
        said_at = place
        flash(place)
    rights = viewer.mark_rights()
    if not rights.allowed:
        st.button(label, key=f"close.{place}", disabled=True, help=words.read_only(rights))
        return
    by = who_marks(rights)
    if by is None:
        name = st.text_input(
            "Your name (to close it)", max_chars=MAX_NAME, key=f"close.{place}.name"
        )
        by = name.strip() or None
    clicked = st.button(
        label,
        key=f"close.{place}",
        disabled=not ledger.writable or by is None,
        help=ledger.notice or "Closing keeps the mark and its log; it stops applying.",
    )
    if not clicked or by is None:
        return
    now_allowed = _author_now(by)
    if now_allowed is None:
        return
    rights, by = now_allowed
    problem = author_problem(by)
    if problem:
        notices.show_notes([problem], severity="warning")
        return
    if rights.author is None:
        st.session_state[NAME_KEY] = by
    written = cache_history.close_mark(connection, mark_id, by=by, now=now, reason=reason)
    if _said(written):
        st.session_state[f"{_FLASH_KEY}.{said_at}"] = (
            f"Closed mark {mark_id}: it is kept, and no longer applies."
        )
        st.rerun()


def applying(ledger: Ledger, now: datetime) -> pd.DataFrame:
    """The ledger's marks that apply now (open, not expired)."""
    return applying_marks(ledger.marks, now)


def change_form(
    place: str,
    mark: dict[str, object],
    *,
    ledger: Ledger,
    connection: Connection,
    now: datetime,
) -> None:
    """ "Change…": an open mark's kind, ticket, note, owner and last day, with what it holds now;
    the change is logged (who, when, what changed)."""
    flash(place)
    key = f"change.{place}"
    rights = viewer.mark_rights()
    if not rights.allowed:
        st.button("Change…", disabled=True, help=words.read_only(rights), key=f"{key}.open")
        return
    target = str(mark["target"])
    kinds = columns.KINDS_FOR[target]
    was = mark.get("expires_on")
    last_day = None if was is None or pd.isna(was) else pd.Timestamp(was).date()
    with (
        st.popover("Change…", disabled=not ledger.writable, help=ledger.notice, key=f"{key}.open"),
        st.form(key, border=False, enter_to_submit=False),
    ):
        kind = st.segmented_control(
            "Kind", kinds, format_func=words.kind_label, default=mark["kind"], key=f"{key}.kind"
        )
        ticket = st.text_input(
            "Ticket link",
            value=_text(mark.get("ticket")),
            max_chars=MAX_TICKET,
            key=f"{key}.ticket",
        )
        note = st.text_area(
            "Note", value=_text(mark.get("note")), max_chars=MAX_NOTE, height=80, key=f"{key}.note"
        )
        owner = st.text_input(
            "Owner", value=_text(mark.get("owner")), max_chars=MAX_NAME, key=f"{key}.owner"
        )
        expires = st.date_input(
            "Last day it applies (optional)",
            value=last_day,
            min_value=min(words.today_utc(now), last_day) if last_day else words.today_utc(now),
            key=f"{key}.expires",
        )
        by = who_marks(rights)
        if by is None:
            by = st.text_input("Your name", max_chars=MAX_NAME, key=f"{key}.name").strip()
        saved = st.form_submit_button("Save the change")
    if not saved:
        return
    change = MarkChange(
        kind=str(kind or mark["kind"]),
        ticket=ticket,
        note=note,
        owner=owner,
        expires_on=expires if isinstance(expires, date) else None,
    )
    now_allowed = _author_now(by)
    if now_allowed is None:
        return
    rights, by = now_allowed
    problem = author_problem(by)
    if problem:
        notices.show_notes([problem], severity="warning")
        return
    if rights.author is None:
        st.session_state[NAME_KEY] = by
    written = cache_history.change_mark(
        connection, str(mark["mark_id"]), change, by=str(by), now=now
    )
    if _said(written):
        st.session_state[f"{_FLASH_KEY}.{place}"] = (
            f"Changed mark {mark['mark_id']}; its log says what changed."
        )
        for field in ("kind", "ticket", "note", "owner", "expires"):
            st.session_state.pop(f"{key}.{field}", None)
        st.rerun()


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""

"""The stored history in words: how fresh it is ("History synced 3 min ago by the worker on
qa-1"), why the pages do not use it when they do not, and what the store kept although the
service answered otherwise.

A sync records when it ran and who ran it in the store (`last_sync`, `last_sync_by`); the
dashboard shows this line when a worker keeps the store current, so a viewer knows the finished
history they see is that old at most (running executions are always asked for afresh). The
store also records an empty plans answer it did not apply and finished executions that came
back changed (`HistoryStore.meta`): `history_notes` says so, in the words pages use for the
service's other contradictions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import pandas as pd

from dashboard.data.store.access import CHECK_INTERVAL, RETRY_AFTER
from dashboard.data.store.status import RETRY_AFTER as RETRY_AFTER_OPEN
from dashboard.data.store.status import HistoryStatus
from dashboard.data.store.types import CHANGED_EXECUTION_IDS, CHANGED_EXECUTIONS, EMPTY_PLANS_AT
from dashboard.present.formatting import plural, visible_text
from dashboard.present.notes import LISTED_IDS


def ago(then: datetime, now: datetime) -> str:
    """ "just now", "3 min ago", "2 h ago", "4 days ago" (a time ahead of `now`: "just now")."""
    seconds = (now - then).total_seconds()
    if seconds < 60:
        return "just now"
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes} min ago"
    hours = minutes // 60
    if hours < 48:
        return f"{hours} h ago"
    return f"{hours // 24} days ago"


def history_freshness(meta: Mapping[str, str], now: datetime) -> str | None:
    """The freshness line from a store's recorded facts; None when no worker has synced it."""
    who, then = meta.get("last_sync_by"), _moment(meta.get("last_sync"))
    if not who or then is None:
        return None
    name = visible_text(who, one_line=True)[:80]
    return f"History synced {ago(then, now)} by {name}."


def history_notes(meta: Mapping[str, str], now: datetime) -> list[str]:
    """What the store kept although the service answered otherwise, one sentence each: an
    empty plans answer it did not apply, finished executions that came back changed."""
    notes = []
    empty_plans = _moment(meta.get(EMPTY_PLANS_AT))
    if empty_plans is not None:
        notes.append(
            f"The service answered no plans {ago(empty_plans, now)}; the stored plans are kept."
        )
    count = meta.get(CHANGED_EXECUTIONS, "")
    if count.isdigit() and int(count):
        ids = [i for i in meta.get(CHANGED_EXECUTION_IDS, "").split(",") if i.isdigit()]
        listed = ", ".join(f"#{i}" for i in ids[:LISTED_IDS])
        more = int(count) - len(ids[:LISTED_IDS])
        notes.append(
            f"{plural(int(count), 'finished execution')} came back from the service "
            f"changed ({listed}{f' and {more:,} more' if more > 0 else ''}), shown as first "
            "stored: the service's data contradicts itself."
        )
    return notes


def _moment(text: str | None) -> datetime | None:
    """A recorded time (ISO text, UTC when it names no zone); None when missing or unreadable."""
    if not text:
        return None
    try:
        then = pd.Timestamp(text)
    except ValueError:
        return None
    if then.tzinfo is None:
        then = then.tz_localize("UTC")
    return then.to_pydatetime()


_WITHHELD = {
    "denied": "the service does not let this token see this company's executions",
}
_ALL_LIVE = "everything on this page is asked of the service"
PAGE_SAYS_IT = frozenset({"refused", "no credential"})
"""Reasons a configured connection's history is withheld that fail the page's own requests
too: the page's error says the cause (`messages`), and a second sentence about the history
would be a second message for one cause."""


def history_notice_text(status: HistoryStatus, *, form: bool = False) -> str | None:
    """One calm sentence when the pages do not use the stored history, and why; None when they
    do, or when the page's own error says why (`PAGE_SAYS_IT`). A connection made with the
    sidebar's form is told no reason (see `messages.form_connection_failed`: the form must not
    tell a closed port from a refused token). No token and no password: a store's own message
    names the server without it."""
    if status.state == "on":
        return None
    if status.state == "off":
        reason = status.reason.strip().rstrip(".") or "The history store could not be opened"
        return (
            f"Stored history is off for now: {reason}. It is tried again on the next page load "
            f"(at most every {round(RETRY_AFTER_OPEN)} s); meanwhile {_ALL_LIVE}."
        )
    if form:
        return (
            "Stored history is not used: the service did not confirm this connection's "
            f"credential, so {_ALL_LIVE}."
        )
    if status.reason in PAGE_SAYS_IT:
        return None
    if status.reason == "unchecked":
        return (
            "Stored history is not used for now: the service could not be asked whether this "
            f"token may see it, so {_ALL_LIVE}; it is asked again in {round(RETRY_AFTER)} s."
        )
    why = _WITHHELD.get(status.reason, "the service did not accept this connection's token")
    return (
        f"Stored history is not used: {why}, so {_ALL_LIVE}; it is asked again within "
        f"{CHECK_INTERVAL // 60} minutes, or at Refresh."
    )


@dataclass(frozen=True)
class Badge:
    """The sidebar's connection badge: its words, icon and colour."""

    text: str
    icon: str
    color: Literal["green", "red", "gray"]


def connection_badge(host: str, status: HistoryStatus | None, *, form: bool) -> Badge:
    """ "Live" only while the service accepts the connection's token (the history check's
    answer, asked at most once per 15-minute slot): a refused token is not live. A connection
    made with the sidebar's form is only ever "not confirmed", whatever the reason, as its
    failures are worded alike (`messages.form_connection_failed`). Before the check has
    answered (`status` None), "Connecting"."""
    if status is None:
        return Badge(f"Connecting: {host}", ":material/cloud_sync:", "gray")
    if status.state == "withheld" and form:
        return Badge(f"Not confirmed: {host}", ":material/cloud_off:", "gray")
    if status.state == "withheld" and status.reason in PAGE_SAYS_IT:
        return Badge(f"Token refused: {host}", ":material/cloud_off:", "red")
    return Badge(f"Live: {host}", ":material/cloud_done:", "green")

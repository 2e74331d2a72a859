"""A connection's history store as the pages use it: given only while the service accepts the
connection's credential for its company in this slot (`cache_connection.STORE_ACCESS`), opened
once and shared by every session of the process, a store that cannot be opened remembered a
few seconds (`store.status`), what it records about itself, and emptying it; and its
known-failure ledger as pages read it (`ledger`: read-only, with one notice, while the store is
busy or away) and write it (`add_mark`, `change_mark`, `close_mark`: a change the store cannot
take is said, never dropped in silence).

`OPEN_FAILURES` is read through this module at each use, so a test may put its own in its place.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pandas as pd
import streamlit as st
from cachetools import LRUCache
from streamlit.errors import StreamlitSecretNotFoundError

from dashboard.columns.marks import MARK_COLUMNS, MARK_LOG_COLUMNS
from dashboard.columns.shapes import empty
from dashboard.data import cache_connection, store
from dashboard.data.cache_connection import BY_FINGERPRINT, BY_GENERATION, DATA_TTL
from dashboard.data.connection import Connection
from dashboard.data.store import HistoryStore
from dashboard.data.store import status as store_status
from dashboard.data.store.errors import StoreBusyError, StoreError
from dashboard.data.store.marks import MarkChange, MarkDraft, MarkRefused
from dashboard.data.store.stored_marks import malformed_words
from dashboard.data.store.types import GROUP_RULE_COLUMNS

_LOG = logging.getLogger(__name__)


OPEN_FAILURES = store_status.OpenFailures()
"""Stores that could not be opened, remembered a few seconds (`store.status`)."""


def history_store(connection: Connection) -> HistoryStore | None:
    """The connection's history store when the service accepts its credential for its company
    in this 15-minute slot (`store.access`) and it can be opened; else None, and the page
    fetches from the service what it may see, as without a store (`history_status` says why)."""
    if not cache_connection.STORE_ACCESS.access(connection).allowed:
        return None
    if OPEN_FAILURES.recent(connection.fingerprint) is not None:
        return None
    try:
        return _history_store(connection)
    except (OSError, StoreError) as error:
        _LOG.warning("history store unavailable: %s", type(error).__name__)
        OPEN_FAILURES.note(connection.fingerprint, _open_failure(error))
        return None


def history_status(connection: Connection) -> store_status.HistoryStatus:
    """Whether `connection`'s pages use its history store, and if not, why (for a notice)."""
    access = cache_connection.STORE_ACCESS.access(connection)
    if not access.allowed:
        return store_status.HistoryStatus("withheld", access.reason)
    if history_store(connection) is not None:
        return store_status.ON
    return OPEN_FAILURES.recent(connection.fingerprint) or store_status.HistoryStatus(
        "off", "The history store could not be opened.", retry_in=0.0
    )


def _open_failure(error: OSError | StoreError) -> str:
    """Why a store could not be opened, in a sentence fit for a page: a store error's message
    (it names the file, or the server without its password), an OS error's reason only."""
    if isinstance(error, StoreError):
        return error.message
    return f"The history store folder cannot be used ({error.strerror or type(error).__name__})."


@st.cache_resource(
    hash_funcs=BY_FINGERPRINT,
    show_spinner=False,
    max_entries=16,
    on_release=lambda kept: kept.close(),
)
def _history_store(connection: Connection) -> HistoryStore:
    """The connection's history store, shared by every session of this process (it serialises
    its writers). An open that fails raises, and Streamlit keeps no exception: the next use
    tries again (`history_store` catches it), so a store that comes back is used again."""
    return store.open_for(connection, secrets=secrets(), env=os.environ, wait=2.0)


@st.cache_data(ttl=timedelta(seconds=30), hash_funcs=BY_GENERATION, show_spinner=False)
def store_meta(connection: Connection) -> dict[str, str]:
    """What the connection's history store records about itself (its last sync and by whom);
    {} when there is no store or it is busy. Read at most every 30 s: a worker may hold it."""
    history = history_store(connection)
    if history is None:
        return {}
    try:
        return history.meta()
    except StoreError:
        return {}


def clear_history(connection: Connection) -> int | None:
    """Empty `connection`'s history store (no other connection's); how many results it held,
    or None when it has no usable store. What the store said about itself (its last sync) is
    read again; results already loaded in this process stay loaded until they expire or
    Refresh is pressed (they are what the service serves), and are not written back."""
    kept = history_store(connection)
    if kept is None or kept.read_only:
        return None
    try:
        held = kept.clear()
    except StoreError as error:
        _LOG.warning("history store not cleared: %s", type(error).__name__)
        return None
    store_meta.clear()  # every connection's: a cheap read, and this one's "synced" line is gone
    return held


def forget_all() -> None:
    """Close every kept store, and forget what the stores said and which could not be opened."""
    _history_store.clear()
    store_meta.clear()
    OPEN_FAILURES.forget()
    _read_ledger.clear()
    failed_results.clear()
    with _LAST_LOCK:
        _LAST_READ.clear()


def secrets() -> dict[str, Any]:
    """`.streamlit/secrets.toml` as a dictionary ({} when there is none)."""
    try:
        return st.secrets.to_dict() if st.secrets.load_if_toml_exists() else {}
    except StreamlitSecretNotFoundError:
        return {}


# -- the known-failure ledger, as pages read and write it -----------------------------------------

MARKS_TTL = timedelta(seconds=15)
"""How long a page reuses the marks it read: another process's mark shows within this; a mark
saved here shows at once (saving forgets what was read)."""


@dataclass(frozen=True, eq=False)
class Ledger:
    """A company's marks as a page has them: `marks` (MARK_COLUMNS), their `log`, whether they
    can be changed now, and if not, one calm sentence saying why (`notice`)."""

    marks: pd.DataFrame
    log: pd.DataFrame
    writable: bool
    notice: str | None = None
    malformed: str | None = None
    """The marks read but left out as malformed, in one sentence (`store.stored_marks`): drawn
    beside `notice` by every page showing marks, never as the reason a button is disabled."""


@dataclass(frozen=True)
class Written:
    """What became of a change of the ledger: the mark's id and revision when it landed; the
    sentences of a refusal (the input was wrong); or why the store could not take it (`failed`:
    nothing was written, and the form keeps what was typed)."""

    mark_id: str | None = None
    revision: int | None = None
    refused: tuple[str, ...] = ()
    failed: str | None = None

    @property
    def done(self) -> bool:
        return self.mark_id is not None


_LAST_READ: LRUCache[str, tuple[pd.DataFrame, pd.DataFrame, str | None]] = LRUCache(maxsize=32)
"""The marks last read per connection fingerprint (of the 32 connections that read them last, as
many as keep a client): shown (read-only) while the store is busy or cannot be reached, so a
page never forgets what the team knows for a moment's contention."""
_LAST_LOCK = threading.Lock()

WITHHELD = (
    "Marks are not shown: the service has not accepted this connection's credential for its "
    "company, and marks belong to the company."
)
BUSY = (
    "The history store is busy (another process is writing to it): marks are shown as last "
    "read and can be changed again in a moment."
)
UNREACHABLE = (
    "The history store cannot be reached just now: marks are shown as last read and can be "
    "changed again once it is back."
)
READ_ONLY = "The history store is open read-only here: marks are shown but cannot be changed."
NOT_SAVED = "Nothing was saved: {reason} What you typed is kept: save again in a moment."


def ledger(connection: Connection) -> Ledger:
    """The company's marks when the service accepts the connection's credential for its company
    (the same check as stored history), from its history store; when the store is busy or cannot
    be reached, those read last in this process, read-only, with a notice."""
    if not cache_connection.STORE_ACCESS.access(connection).allowed:
        return Ledger(empty(MARK_COLUMNS), empty(MARK_LOG_COLUMNS), False, WITHHELD)
    kept = history_store(connection)
    if kept is None:
        return _as_last_read(connection, UNREACHABLE)
    try:
        marks, log, malformed = _read_ledger(connection)
    except StoreBusyError:
        return _as_last_read(connection, BUSY)
    except StoreError:
        return _as_last_read(connection, UNREACHABLE)
    with _LAST_LOCK:
        _LAST_READ[connection.fingerprint] = (marks, log, malformed)
    if kept.read_only:
        return Ledger(marks, log, False, READ_ONLY, malformed)
    return Ledger(marks, log, True, None, malformed)


def _as_last_read(connection: Connection, notice: str) -> Ledger:
    with _LAST_LOCK:
        marks, log, malformed = _LAST_READ.get(
            connection.fingerprint, (empty(MARK_COLUMNS), empty(MARK_LOG_COLUMNS), None)
        )
    return Ledger(marks, log, False, notice, malformed)


@st.cache_data(ttl=MARKS_TTL, hash_funcs=BY_GENERATION, show_spinner=False)
def _read_ledger(connection: Connection) -> tuple[pd.DataFrame, pd.DataFrame, str | None]:
    """The company's well-formed marks, their log, and the malformed ones in one sentence, from
    its store (raises `StoreError` when it cannot)."""
    kept = history_store(connection)
    if kept is None:
        raise StoreError("The history store is not available.", location="")
    read = kept.read_marks(connection.company_id)
    return read.marks, kept.mark_log(connection.company_id), malformed_words(read.malformed)


def _write(connection: Connection, change: Callable[[HistoryStore], tuple[str, int]]) -> Written:
    """Run one change of the ledger on the connection's store (after the access check);
    what became of it, in words when it did not land."""
    if not cache_connection.STORE_ACCESS.access(connection).allowed:
        return Written(failed=NOT_SAVED.format(reason=WITHHELD))
    kept = history_store(connection)
    if kept is None:
        return Written(failed=NOT_SAVED.format(reason=UNREACHABLE.split(":")[0] + "."))
    if kept.read_only:
        return Written(failed=NOT_SAVED.format(reason=READ_ONLY))
    try:
        mark_id, revision = change(kept)
    except MarkRefused as refused:
        return Written(refused=tuple(refused.problems))
    except StoreBusyError:
        return Written(failed=NOT_SAVED.format(reason="the history store is busy."))
    except StoreError as error:
        _LOG.warning("mark not saved: %s", type(error).__name__)
        return Written(failed=NOT_SAVED.format(reason=error.message))
    _read_ledger.clear()
    return Written(mark_id=mark_id, revision=revision)


def add_mark(connection: Connection, draft: MarkDraft, *, by: str, now: datetime) -> Written:
    """Save a new mark of the connection's company (`HistoryStore.add_mark`)."""
    return _write(
        connection,
        lambda kept: (kept.add_mark(connection.company_id, draft, by=by, now=now), 1),
    )


def change_mark(
    connection: Connection, mark_id: str, change: MarkChange, *, by: str, now: datetime
) -> Written:
    """Give an open mark new values (`HistoryStore.change_mark`)."""
    return _write(
        connection,
        lambda kept: (
            mark_id,
            kept.change_mark(connection.company_id, mark_id, change, by=by, now=now),
        ),
    )


def close_mark(
    connection: Connection, mark_id: str, *, by: str, now: datetime, reason: str | None = None
) -> Written:
    """Close a mark (`HistoryStore.close_mark`): it is kept, and stops applying."""
    return _write(
        connection,
        lambda kept: (
            mark_id,
            kept.close_mark(connection.company_id, mark_id, by=by, reason=reason, now=now),
        ),
    )


@st.cache_data(ttl=DATA_TTL, hash_funcs=BY_GENERATION, show_spinner=False, max_entries=32)
def failed_results(
    connection: Connection,
    *,
    date_from: datetime | None,
    date_to: datetime | None = None,
    plan_id: int | None = None,
    project_id: int | None = None,
) -> pd.DataFrame | None:
    """The stored failed results of a window (`HistoryStore.failed_results`); None when the
    connection has no usable store (known failures then cannot be counted)."""
    kept = history_store(connection)
    if kept is None:
        return None
    try:
        return kept.failed_results(
            date_from=date_from, date_to=date_to, plan_id=plan_id, project_id=project_id
        )
    except StoreError:
        return None


# -- the team's rules for failure groups, as pages read them -------------------------------------

RULES_TTL = MARKS_TTL
"""How long a page reuses the rules it read, as the marks: another process's rule shows within
this; one saved here shows at once (`forget_group_rules`)."""


def group_rules(connection: Connection) -> pd.DataFrame:
    """The company's rules for failure groups in force, oldest first (`store.group_rules`,
    `GROUP_RULE_COLUMNS`), as stored: `ui.group_rules` compiles them. None in force when the
    service has not accepted the connection's credential for its company (the same check as
    the marks) or the store is away or busy: the groups are then the messages' own."""
    if not cache_connection.STORE_ACCESS.access(connection).allowed:
        return empty(GROUP_RULE_COLUMNS)
    if history_store(connection) is None:
        return empty(GROUP_RULE_COLUMNS)
    try:
        return _read_group_rules(connection)
    except StoreError:
        return empty(GROUP_RULE_COLUMNS)


@st.cache_data(ttl=RULES_TTL, hash_funcs=BY_GENERATION, show_spinner=False)
def _read_group_rules(connection: Connection) -> pd.DataFrame:
    """The company's rules in force (raises `StoreError` when it cannot read them)."""
    kept = history_store(connection)
    if kept is None:
        raise StoreError("The history store is not available.", location="")
    return kept.group_rules(connection.company_id)


def forget_group_rules() -> None:
    """Read the rules again on the next page (after a rule is saved or removed here)."""
    _read_group_rules.clear()

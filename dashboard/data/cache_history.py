"""A connection's history store as the pages use it: given only while the service accepts the
connection's credential for its company in this slot (`cache_connection.STORE_ACCESS`), opened
once and shared by every session of the process, a store that cannot be opened remembered a
few seconds (`store.status`), what it records about itself, and emptying it.

`OPEN_FAILURES` is read through this module at each use, so a test may put its own in its place.
"""

from __future__ import annotations

import logging
import os
from datetime import timedelta
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitSecretNotFoundError

from dashboard.data import cache_connection, store
from dashboard.data.cache_connection import BY_FINGERPRINT, BY_GENERATION
from dashboard.data.connection import Connection
from dashboard.data.store import HistoryStore
from dashboard.data.store import status as store_status
from dashboard.data.store.errors import StoreError

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


def secrets() -> dict[str, Any]:
    """`.streamlit/secrets.toml` as a dictionary ({} when there is none)."""
    try:
        return st.secrets.to_dict() if st.secrets.load_if_toml_exists() else {}
    except StreamlitSecretNotFoundError:
        return {}

"""Which service this browser session reads, and the clock its pages count back from.

Pages, notices and the sidebar all ask here; the sidebar's connection form is the one place
that changes the answer (`remember_form`, `forget_form`). The form's values live in this
session's `st.session_state` only: never in the URL, on disk or in a cache key.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import streamlit as st

from dashboard.data import cache, connection, demo
from dashboard.data.connection import Connection

_FORM_VALUES = "connection.session"  # session_state key of the form's submitted values
_SHOWN = "connection.shown"  # (fingerprint, place): the connection the page last showed, where


def current_connection() -> Connection:
    """The connection pages use: the first configured source, else the embedded demo."""
    resolution = resolve()
    if resolution.connection is not None:
        return resolution.connection
    return cache.demo_service().connection


@contextmanager
def page_area(conn: Connection) -> Iterator[None]:
    """Where the page is drawn: one of two places, the other left empty. When this session's
    connection changed since its last run, the page moves to the other place and an empty
    element takes the one it had: the previous page (all it held) leaves the browser at once,
    before anything is asked of the new service, so a service that is slow to answer never has
    the previous connection's data shown under its name. Otherwise the page stays where it is
    while the run redraws it.

    (Two places, not one: Streamlit sends only the last of two deltas to one place, so an empty
    element followed by the page's container there would never reach the browser.)"""
    shown, place = st.session_state.get(_SHOWN, (None, 0))
    if shown is not None and shown != conn.fingerprint:
        place = 1 - place
    st.session_state[_SHOWN] = (conn.fingerprint, place)
    places = [st.empty(), st.empty()]
    with places[place].container():
        yield


def now(conn: Connection) -> datetime:
    """The time presets count back from: the demo data's own clock, or the wall clock (the
    one rule, `demo.now_of`, which the CLI reads too)."""
    return demo.now_of(conn)


def resolve() -> connection.Resolution:
    """The configured sources in order (the form's, the secrets', the environment's), and
    what is wrong with them."""
    return connection.resolve(
        session=st.session_state.get(_FORM_VALUES),
        secrets=cache.secrets(),
        env=os.environ,
    )


def remember_form(values: dict[str, Any]) -> None:
    """Use the connection form's values (the token already a `SecretStr`) from now on."""
    st.session_state[_FORM_VALUES] = values


def forget_form() -> None:
    """Go back to the configured connection (or the demo)."""
    st.session_state.pop(_FORM_VALUES, None)

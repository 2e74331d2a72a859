"""The shared frame around every page: which service is shown, the connection form, Refresh.

The connection form is the only place a viewer types a credential. Its values live in this
browser session's `st.session_state` only: never in the URL, on disk or in a cache key.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import Any

import streamlit as st
from pydantic import SecretStr
from streamlit.errors import StreamlitSecretNotFoundError

from dashboard import cache, connection
from dashboard.connection import Connection
from dashboard.formatting import escape_markdown, format_day

_FORM_VALUES = "connection.session"  # session_state key of the form's submitted values
_PROBLEMS = "connection.problems"


def current_connection() -> Connection:
    """The connection pages use: the first configured source, else the embedded demo."""
    resolution = _resolve()
    if resolution.connection is not None:
        return resolution.connection
    return cache.demo_service().connection


def now(conn: Connection) -> datetime:
    """The time presets count back from: the demo data's own clock, or the wall clock."""
    return conn.clock or datetime.now(UTC)


def sidebar(conn: Connection) -> None:
    """Draw the connection badge, the connection form and the Refresh button."""
    with st.sidebar:
        _badge(conn)
        problems = _resolve().problems
        if problems:
            st.warning("\n".join(f"- {escape_markdown(p)}" for p in problems))
        st.button(
            "Refresh data",
            icon=":material/refresh:",
            on_click=cache.refresh,
            help=f"Data is reused for up to {int(cache.DATA_TTL.total_seconds() // 60)} minutes; "
            "this fetches it again now.",
            width="stretch",
        )
        _connection_form(conn)


def _badge(conn: Connection) -> None:
    if conn.is_demo:
        st.badge("Demo data", icon=":material/science:", color="orange")
        as_of = f" as of {format_day(conn.clock, with_year=True)}" if conn.clock else ""
        st.caption(
            f"Generated sample data{as_of}, served by the embedded sandbox. To see your own, "
            "set `QA_DASHBOARD_BASE_URL`, `QA_DASHBOARD_TOKEN` and `QA_DASHBOARD_COMPANY_ID` "
            "(or the `[service]` table of `.streamlit/secrets.toml`), or use *Connect to a "
            "service* below."
        )
    else:
        st.badge(f"Live: {conn.host}", icon=":material/cloud_done:", color="green")
        st.caption(
            f"Company {conn.company_id}, configured in "
            f"{escape_markdown(connection.SOURCE_LABELS[conn.source])}."
        )


def _connection_form(conn: Connection) -> None:
    with st.expander("Connect to a service", expanded=False, icon=":material/key:"):
        st.caption("Kept in this browser session only: never saved, never put in the page's link.")
        with st.form("connection.form", clear_on_submit=True, border=False):
            base_url = st.text_input("Base URL", placeholder="https://your-host/Api")
            token = st.text_input("Token", type="password")
            company_id = st.text_input("Company id", placeholder="7")
            email = st.text_input("Your e-mail (optional)", help="Enables *Only mine*.")
            if st.form_submit_button("Connect", width="stretch"):
                st.session_state[_FORM_VALUES] = {
                    "base_url": base_url,
                    # Wrapped at once, so the token is never a plain string past this line.
                    "token": SecretStr(token or ""),
                    "company_id": company_id,
                    "email": email,
                }
        if conn.source == "session" and st.button("Disconnect", width="stretch"):
            st.session_state.pop(_FORM_VALUES, None)
            st.rerun()


def _resolve() -> connection.Resolution:
    return connection.resolve(
        session=st.session_state.get(_FORM_VALUES),
        secrets=_secrets(),
        env=os.environ,
    )


def _secrets() -> dict[str, Any]:
    try:
        return st.secrets.to_dict() if st.secrets.load_if_toml_exists() else {}
    except StreamlitSecretNotFoundError:
        return {}

"""The shared frame around every page: which service is shown, the connection form, Refresh.

The connection form is the only place a viewer types a credential. Its values live in this
browser session's `st.session_state` only: never in the URL, on disk or in a cache key.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

import streamlit as st
from pydantic import SecretStr

from dashboard.data import cache, connection
from dashboard.data.connection import Connection
from dashboard.data.store.operators import may_clear_history
from dashboard.data.store.status import HistoryStatus
from dashboard.present import freshness
from dashboard.present.formatting import escape_markdown, format_day
from dashboard.present.messages import FORM_EMAIL_LABEL, FORM_TITLE
from dashboard.ui import notices, session, viewer

_REFRESH_REFUSED = "refresh.refused"  # seconds to wait, when Refresh came too soon
_HISTORY_CLEARED = "history.cleared"  # what "Clear stored history" did, shown once


def sidebar(conn: Connection) -> None:
    """Draw the connection badge, the connection form and the Refresh button."""
    with st.sidebar:
        st.markdown("## :material/fact_check: QA dashboard")
        viewer.sidebar_identity()
        # The badge names the service at once; whether its token is accepted is known only
        # once the history check answers, which a slow service may hold for a while.
        badge = st.empty()
        with badge.container():
            _badge(conn, None)
        status = cache.history_status(conn)
        with badge.container():
            _badge(conn, status)
        meta, moment = cache.store_meta(conn), datetime.now(UTC)
        fresh = freshness.history_freshness(meta, moment)
        if fresh:
            st.caption(escape_markdown(fresh))
        for note in freshness.history_notes(meta, moment):
            st.caption(escape_markdown(note))
        resolution = session.resolve()
        problems = [*resolution.problems, *viewer.settings().notes]
        if problems:
            st.warning("\n".join(f"- {escape_markdown(p)}" for p in problems))
        st.button(
            "Refresh data",
            icon=":material/refresh:",
            on_click=_refresh,
            args=(conn,),
            help=f"Data is reused for up to {int(cache.DATA_TTL.total_seconds() // 60)} minutes; "
            "this fetches it again now (for this connection; at most every "
            f"{int(cache.REFRESH_INTERVAL.total_seconds())} s).",
            width="stretch",
        )
        wait = st.session_state.pop(_REFRESH_REFUSED, None)
        if wait is not None:
            st.caption(
                "The data was fetched afresh a moment ago, so it was not fetched again. "
                f"Try again in {max(1, round(wait))} s."
            )
        if _may_clear_history():
            _clear_history(conn)
        if resolution.form.enabled:
            _connection_form(conn)
        else:
            st.caption(
                "The connection form is off: this dashboard's operator configured the service "
                "it reads."
            )
    # On the page, above it: whether its stored history is used, and if not, why.
    notices.history_notice(status, form=conn.source == "session")


def _badge(conn: Connection, status: HistoryStatus | None) -> None:
    if conn.is_demo:
        st.badge("Demo data", icon=":material/science:", color="orange")
        as_of = f" as of {format_day(conn.clock, with_year=True)}" if conn.clock else ""
        # Body text, not a caption: a caption's 60 % opacity would fade the code in it below
        # a readable contrast.
        st.markdown(
            f"Generated sample data{as_of}, served by the embedded sandbox. To see your own, "
            "set `QA_DASHBOARD_BASE_URL`, `QA_DASHBOARD_TOKEN` and `QA_DASHBOARD_COMPANY_ID` "
            f"(or the `[service]` table of `.streamlit/secrets.toml`), or use "
            f"*{FORM_TITLE}* below."
        )
    else:
        badge = freshness.connection_badge(conn.host, status, form=conn.source == "session")
        st.badge(badge.text, icon=badge.icon, color=badge.color)
        st.caption(
            f"Company {conn.company_id}, configured in "
            f"{escape_markdown(connection.SOURCE_LABELS[conn.source])}."
        )


def _connection_form(conn: Connection) -> None:
    with st.expander(FORM_TITLE, expanded=False, icon=":material/key:"):
        st.caption("Kept in this browser session only: never saved, never put in the page's link.")
        with st.form("connection.form", clear_on_submit=True, border=False):
            st.text_input("Base URL", placeholder="https://your-host/Api", key=_field("base_url"))
            st.text_input("Token", type="password", key=_field("token"))
            st.text_input("Company id", placeholder="7", key=_field("company_id"))
            st.text_input(FORM_EMAIL_LABEL, help="Enables *Only mine*.", key=_field("email"))
            # A callback runs before the next script run, so that very run uses the new
            # connection (the page above the form has already resolved it by the time the
            # button's value could be read below).
            st.form_submit_button("Connect", on_click=_remember_form, width="stretch")
        if conn.source == "session":
            st.button("Disconnect", on_click=session.forget_form, width="stretch")


def _field(name: str) -> str:
    return f"connection.form.{name}"


def _remember_form() -> None:
    names = ("base_url", "token", "company_id", "email")
    values = {name: st.session_state.get(_field(name)) or "" for name in names}
    # The token is wrapped at once and the fields are emptied, so the plain token is neither
    # kept in the widget's state nor sent back to the browser.
    values["token"] = SecretStr(values["token"])
    session.remember_form(values)
    for name in names:
        st.session_state[_field(name)] = ""


def _refresh(conn: Connection) -> None:
    if not cache.refresh(conn):
        st.session_state[_REFRESH_REFUSED] = cache.seconds_until_refresh(conn)


def _clear_history(conn: Connection) -> None:
    """ "Clear stored history", asked for twice (a popover with the confirming button): it
    empties this connection's history store only (its service and company)."""
    with st.popover("Clear stored history", icon=":material/delete_sweep:", width="stretch"):
        st.caption(
            "Finished executions' results are kept on this server so they are fetched once. "
            "This empties the store of this service and company (other connections' stores are "
            "kept); they are fetched again as pages need them."
        )
        st.button(
            "Yes, clear it",
            key="history.clear.confirm",
            # Not type="primary": its white text reads at 2.4:1 on the dark theme's accent.
            icon=":material/delete_forever:",
            on_click=_do_clear_history,
            args=(conn,),
            width="stretch",
        )
    done = st.session_state.pop(_HISTORY_CLEARED, None)
    if done is not None:
        st.caption(done)


def _may_clear_history() -> bool:
    """On one person's local dashboard, or for a signed-in operator (`store.operators`): a
    team's is otherwise cleared by its operator with `python -m dashboard store clear`."""
    return may_clear_history(
        secrets=cache.secrets(),
        env=os.environ,
        viewer=viewer.signed_in_email(),
        operators=viewer.operators(),
    )


def _do_clear_history(conn: Connection) -> None:
    if not _may_clear_history():  # the configuration changed since the button was drawn
        return
    held = cache.clear_history(conn)
    st.session_state[_HISTORY_CLEARED] = (
        "The history store could not be used (missing, read-only or busy): nothing was cleared."
        if held is None
        else f"Stored history cleared ({held:,} results)."
    )

"""Notices: service text shown as plain text, and worded errors (trusted markdown).

Streamlit's markdown turns a bare `https://...`, `www.host.tld` or `name@host.tld` into a link
even when every punctuation mark is escaped (the GFM autolink step runs on the parsed text).
So nothing that can hold text from the service or the URL goes through markdown: captions,
notes and the results header use `st.text`, which renders its body as text and nothing else.
A caption or a note is an `st.text` inside a container whose key (a CSS class, `st-key-...`)
gives it the look of a caption or an alert box; `styles()` holds that look, and the page's side
margins (2rem, not Streamlit's 5rem: a laptop's tables get the room).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

import streamlit as st

from api_client import ApiError
from dashboard.data.connection import Source
from dashboard.data.store.status import HistoryStatus
from dashboard.present import freshness
from dashboard.present.formatting import visible_text
from dashboard.present.messages import Severity, UserMessage, connection_cause, describe_error
from dashboard.present.tables import ResultMessage
from dashboard.ui import session

_NOTICES = {"error": st.error, "warning": st.warning, "info": st.info}

# Container keys start with these; the CSS below finds them by prefix (`st-key-<key>`).
CAPTION_KEY = "qa-plain-caption"
NOTE_KEY = "qa-plain-note"
HISTORY_KEY = "qa-history-notice"  # the line saying the stored history is not used

_STYLES = f"""
<style>
.stMainBlockContainer {{ padding-left: 2rem; padding-right: 2rem; }}
[class*="st-key-{CAPTION_KEY}-"] [data-testid="stText"] {{
  font-size: 0.875rem;
  opacity: 0.7;
}}
[class*="st-key-{NOTE_KEY}-"] {{
  border-radius: 0.5rem;
  padding: 1rem;
}}
[class*="st-key-{NOTE_KEY}-warning-"] {{ background-color: rgba(255, 193, 7, 0.16); }}
[class*="st-key-{NOTE_KEY}-info-"] {{ background-color: rgba(28, 131, 225, 0.12); }}
[class*="st-key-{NOTE_KEY}-error-"] {{ background-color: rgba(255, 43, 43, 0.12); }}
</style>
"""


FORM_FAILURE_SECONDS = 5.0
"""No failure of a connection made with the sidebar's form is shown sooner than this after the
run began. A wrong token is answered in some 50 ms, a closed port after the client's retries
(2-3 s): shown at once, the delay would tell them apart (and a port scan would read it). The
client's retries end well within it; a port that drops packets (a timeout) still takes longer:
see docs/security.md."""
_RUN_STARTED = "notices.run_started"  # session_state key: time.monotonic() at the run's start
_CAUSES_SAID = "notices.causes_said"  # session_state key: `connection_cause`s shown this run


def styles() -> None:
    """The look of plain captions and notes; called once per run by the app, before any page.

    Style-only HTML takes no room on the page (Streamlit puts it in its event container). It
    also notes when the run began (see `FORM_FAILURE_SECONDS`).
    """
    st.session_state[_RUN_STARTED] = time.monotonic()
    st.session_state[_CAUSES_SAID] = set()
    st.html(_STYLES)


def plain(text: object) -> None:
    """Text that may come from the service, as body text: shown literally, never a link."""
    st.text(visible_text(text))


def caption(text: str | None) -> None:
    """A caption that may contain names from the service: shown literally, never a link.
    Nothing is drawn for none (or an empty one)."""
    if not text:
        return
    with st.container(key=_key(CAPTION_KEY)):
        st.text(visible_text(text, one_line=True))


def show_notes(texts: Iterable[str], *, severity: Severity = "warning") -> None:
    """Plain-text notes (which may quote the URL or the service) as one box, shown literally."""
    lines = [visible_text(text, one_line=True) for text in texts if text]
    if not lines:
        return
    with st.container(key=_key(f"{NOTE_KEY}-{severity}")):
        st.text("\n".join(f"• {line}" for line in lines) if len(lines) > 1 else lines[0])


def show_messages(texts: Sequence[str], *, severity: Severity) -> None:
    """Show several messages from `dashboard.messages` (trusted markdown) as one box."""
    if texts:
        _NOTICES[severity]("\n".join(f"- {text}" for text in texts) if len(texts) > 1 else texts[0])


def show_message(message: UserMessage) -> None:
    """Show a message from `dashboard.messages` (trusted markdown without service data)."""
    _NOTICES[message.severity](message.text)


def show_error(
    error: ApiError,
    *,
    part: str | None = None,
    filters: Sequence[str] = (),
    source: Source | None = None,
) -> None:
    """Show `error` as `dashboard.messages` words it (see `describe_error` for the arguments).

    `source` defaults to the current connection's, so a failure through the sidebar's form is
    always worded as one (see `messages.form_connection_failed`).
    """
    if source is None:
        source = session.current_connection().source
    cause = connection_cause(error, source)
    if cause is not None:
        said = st.session_state.setdefault(_CAUSES_SAID, set())
        if cause in said:
            return  # said once already in this run: one cause, one message
        said.add(cause)
    if source == "session":
        _wait_out_form_failure()
    form_enabled = session.resolve().form.enabled
    show_message(
        describe_error(error, part=part, filters=filters, source=source, form_enabled=form_enabled)
    )


T = TypeVar("T")


def loaded_or_stop(
    load: Callable[[], T],
    *,
    part: str | None = None,
    filters: Sequence[str] = (),
    source: Source | None = None,
) -> T:
    """What `load` returns; when the service refuses or cannot answer, its error said as
    `show_error` words it and the page stopped there. The one path from a service error to a
    page's notice: a page writes `data = notices.loaded_or_stop(lambda: ..., part=...)`."""
    try:
        return load()
    except ApiError as error:
        show_error(error, part=part, filters=filters, source=source)
        st.stop()


def _wait_out_form_failure() -> None:
    """Hold a form connection's failure until `FORM_FAILURE_SECONDS` after the run began, so
    every failure takes the same time whatever answered (or did not)."""
    started = st.session_state.get(_RUN_STARTED)
    if started is None:
        return
    remaining = started + FORM_FAILURE_SECONDS - time.monotonic()
    if remaining > 0:
        time.sleep(remaining)


def history_notice(status: HistoryStatus, *, form: bool = False) -> None:
    """`freshness.history_notice_text` as a caption, when there is anything to say."""
    text = freshness.history_notice_text(status, form=form)
    if text:
        with st.container(key=_key(HISTORY_KEY)):
            caption(text)


def full_message(detail: ResultMessage | None, *, key: str) -> None:
    """The whole message of the result selected in the results table, shown literally in a code
    block (which has a copy button); a hint to select one when none is."""
    if detail is None:
        caption("Select a result in the table to read its whole message here, ready to copy.")
        return
    with st.container(border=True, key=key):
        caption(detail.heading)
        if detail.message:
            st.code(visible_text(detail.message), language=None, wrap_lines=True)
        else:
            caption("The service sent no message for this result.")
        if detail.logs:
            with st.container(horizontal=True):
                for what, address in detail.logs:
                    st.link_button(
                        f"Open the {what.lower()}", address, icon=":material/description:"
                    )


def _key(prefix: str) -> str:
    # A container key must be unique within a run and only names a style here, so each
    # caption or note gets a fresh one.
    return f"{prefix}-{uuid.uuid4().hex[:12]}"

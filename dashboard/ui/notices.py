"""Notices: plain-text notes (which may quote the URL or the service) and worded errors."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import streamlit as st

from api_client import ApiError
from dashboard.data.connection import Source
from dashboard.present.formatting import escape_markdown
from dashboard.present.messages import Severity, UserMessage, describe_error

_NOTICES = {"error": st.error, "warning": st.warning, "info": st.info}


def show_notes(texts: Iterable[str], *, severity: Severity = "warning") -> None:
    """Show plain-text notes (which may quote the URL or the service) literally, as one box."""
    lines = [f"- {escape_markdown(text)}" for text in texts if text]
    if lines:
        _NOTICES[severity]("\n".join(lines) if len(lines) > 1 else lines[0][2:])


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
    """Show `error` as `dashboard.messages` words it (see `describe_error` for the arguments)."""
    show_message(describe_error(error, part=part, filters=filters, source=source))


def caption(text: str) -> None:
    """A caption that may contain names from the service: shown literally."""
    st.caption(escape_markdown(text))

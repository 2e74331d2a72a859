"""Streamlit building blocks the pages share: URL-bound filters, tables with CSV, notices.

The URL is the single source of truth for what a page shows. Each filter widget is seeded from
the view state before it is drawn and, when the viewer changes it, a callback writes the new
state to `st.query_params` before the rerun. Every run therefore renders exactly what the
address bar says, whether it came from a click, a pasted link or the browser's back button.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date
from typing import Any, TypeVar

import pandas as pd
import streamlit as st

from api_client import ApiError
from dashboard import transforms, url_state
from dashboard.connection import Source
from dashboard.formatting import escape_markdown
from dashboard.messages import Severity, UserMessage, describe_error
from dashboard.routes import Route

T = TypeVar("T")

_NOTICES = {"error": st.error, "warning": st.warning, "info": st.info}


# -- view state <-> URL -----------------------------------------------------------------------


def read_view(route: Route) -> url_state.ParsedState:
    """The page's view state from the URL, and what was wrong with it (shown by the caller)."""
    return url_state.parse(st.query_params.to_dict(), route.params)


def write_url(state: url_state.ViewState, route: Route) -> None:
    """Make the URL hold exactly the page's state: bad and foreign parameters are dropped."""
    wanted = url_state.to_query_params(state, route.params)
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)


def link_params(state: url_state.ViewState, route: Route) -> dict[str, str]:
    """Query parameters for a link or switch to `route` showing `state`."""
    return url_state.to_query_params(state, route.params)


class UrlFilters:
    """Filter widgets whose values live in the URL.

    `field` is a `ViewState` attribute. `resets` names fields that go back to their default
    when this one changes (a new project clears the plan, for instance).
    """

    def __init__(self, route: Route, state: url_state.ViewState) -> None:
        self._route = route
        self._state = state

    def selectbox(
        self,
        label: str,
        field: str,
        options: Mapping[T, str],
        *,
        resets: Mapping[str, Any] | None = None,
        **widget_args: Any,
    ) -> T:
        """A selectbox; the option keyed None (e.g. "All projects") stands for "no filter"."""
        key = self._seed(field, to_widget=_none_to_all)
        labels = {_none_to_all(value): text for value, text in options.items()}
        value = st.selectbox(
            label,
            list(labels),
            format_func=lambda option: labels.get(option, str(option)),
            key=key,
            on_change=self._commit(field, key, resets, from_widget=_all_to_none),
            **widget_args,
        )
        return _all_to_none(value)

    def toggle(self, label: str, field: str, **widget_args: Any) -> bool:
        key = self._seed(field)
        return st.toggle(label, key=key, on_change=self._commit(field, key), **widget_args)

    def segmented(
        self,
        label: str,
        field: str,
        options: Mapping[T, str],
        *,
        resets: Mapping[str, Any] | None = None,
        **widget_args: Any,
    ) -> T:
        key = self._seed(field)
        labels = dict(options)
        value = st.segmented_control(
            label,
            list(labels),
            format_func=lambda option: labels[option],
            required=True,
            key=key,
            on_change=self._commit(field, key, resets),
            **widget_args,
        )
        return value if value is not None else getattr(self._state, field)

    def date(self, label: str, field: str, **widget_args: Any) -> date | None:
        key = self._seed(field)
        value = st.date_input(label, key=key, on_change=self._commit(field, key), **widget_args)
        return value if isinstance(value, date) else None

    def _seed(self, field: str, to_widget: Callable[[Any], Any] = lambda v: v) -> str:
        key = f"{self._route.url_path}.{field}"
        st.session_state[key] = to_widget(getattr(self._state, field))
        return key

    def _commit(
        self,
        field: str,
        key: str,
        resets: Mapping[str, Any] | None = None,
        from_widget: Callable[[Any], Any] = lambda v: v,
    ) -> Callable[[], None]:
        route = self._route

        def commit() -> None:
            current = url_state.parse(st.query_params.to_dict(), route.params).state
            changes = {field: from_widget(st.session_state[key]), **(resets or {})}
            write_url(current.with_changes(**changes), route)

        return commit


# A selectbox shows None as an empty box with a placeholder; "no filter" is a real option.
_ALL = "*all*"


def _none_to_all(value: Any) -> Any:
    return _ALL if value is None else value


def _all_to_none(value: Any) -> Any:
    return None if value == _ALL else value


# -- notices ----------------------------------------------------------------------------------


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


# -- tables -----------------------------------------------------------------------------------


def table(
    display: pd.DataFrame,
    *,
    key: str,
    file_name: str,
    column_config: Mapping[str, Any] | None = None,
    selectable: bool = False,
) -> int | None:
    """Show a display frame with a CSV download of exactly it; return the selected row, if any.

    The selected row is a position in `display` (Streamlit reports positions in the data it
    was given, whatever sorting the viewer applied in the browser).
    """
    config = dict(column_config or {})
    selected: int | None = None
    if selectable:
        event = st.dataframe(
            display,
            key=key,
            hide_index=True,
            column_config=config,
            on_select="rerun",
            selection_mode="single-row",
        )
        rows: Sequence[int] = event.selection.rows
        selected = rows[0] if rows else None
    else:
        st.dataframe(display, key=key, hide_index=True, column_config=config)
    st.download_button(
        "Download CSV",
        data=transforms.to_csv(display),
        file_name=file_name,
        mime="text/csv",
        key=f"{key}.csv",
        icon=":material/download:",
        on_click="ignore",
    )
    return selected

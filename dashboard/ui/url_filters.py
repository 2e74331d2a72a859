"""Filters bound to the URL: widgets seeded from the view state, writing back to the URL.

The URL is the single source of truth for what a page shows. Each filter widget is seeded from
the view state before it is drawn and, when the viewer changes it, a callback writes the new
state to `st.query_params` before the rerun. Every run therefore renders exactly what the
address bar says, whether it came from a click, a pasted link or the browser's back button.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import date
from typing import Any, TypeVar

import streamlit as st

from dashboard.present.formatting import visible_text
from dashboard.state import url as url_state
from dashboard.state.params import TZ
from dashboard.state.routes import Route

T = TypeVar("T")


# -- view state <-> URL -----------------------------------------------------------------------


CHOSEN_ZONE = "viewer.tz"
"""session_state key of the time zone this viewer chose (absent: the browser's)."""


def read_view(route: Route) -> url_state.ParsedState:
    """The page's view state from the URL, and what was wrong with it (shown by the caller).

    The time zone is chosen once: a page whose URL names none uses the zone this viewer chose
    on another page (and `write_url` then puts it in this page's URL too); a URL that names one
    makes it the viewer's choice.
    """
    parsed = url_state.parse(st.query_params.to_dict(), route.params)
    if TZ not in route.params:
        return parsed
    if parsed.state.tz is not None:
        st.session_state[CHOSEN_ZONE] = parsed.state.tz
        return parsed
    chosen = st.session_state.get(CHOSEN_ZONE)
    if chosen is None:
        return parsed
    return replace(parsed, state=parsed.state.with_changes(tz=chosen))


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
        # Option labels are often the service's names (projects, plans): shown as visible text.
        labels = {_none_to_all(value): visible_text(text) for value, text in options.items()}
        value = st.selectbox(
            label,
            list(labels),
            format_func=lambda option: labels.get(option, str(option)),
            key=key,
            on_change=self._commit(field, key, resets, from_widget=_all_to_none),
            **widget_args,
        )
        return _all_to_none(value)

    def multiselect(
        self, label: str, field: str, options: Mapping[T, str], **widget_args: Any
    ) -> tuple[T, ...]:
        """Several values of a tuple field; none chosen means "no filter"."""
        key = self._seed(field, to_widget=list)
        labels = dict(options)
        value = st.multiselect(
            label,
            list(labels),
            format_func=lambda option: labels.get(option, str(option)),
            key=key,
            on_change=self._commit(field, key, from_widget=tuple),
            **widget_args,
        )
        return tuple(value)

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
        labels = {value: visible_text(text) for value, text in options.items()}
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

    def tabs(self, field: str, labels: Mapping[T, str]) -> dict[T, Any]:
        """Tabs whose open one is the field's value (`labels`: value -> tab label), each
        container's `.open` saying whether it is the open one: a page builds only what the
        open tab shows. Opening another tab writes it to the URL, then reruns."""
        key = self._seed(field, to_widget=lambda value: labels[value])
        values = {text: value for value, text in labels.items()}
        default = next(iter(labels))
        containers = st.tabs(
            list(labels.values()),
            key=key,
            on_change=self._commit(
                field, key, from_widget=lambda label: values.get(label, default)
            ),
        )
        return dict(zip(labels, containers, strict=True))

    def number(self, label: str, field: str, **widget_args: Any) -> Any:
        """A number input (whole when the field is an int, e.g. the flaky window)."""
        key = self._seed(field)
        return st.number_input(label, key=key, on_change=self._commit(field, key), **widget_args)

    def date(self, label: str, field: str, **widget_args: Any) -> date | None:
        key = self._seed(field)
        value = st.date_input(label, key=key, on_change=self._commit(field, key), **widget_args)
        return value if isinstance(value, date) else None

    def time(self, label: str, field: str, default: Any, **widget_args: Any) -> Any:
        """A time of day; `default` stands in for a field that is None."""
        key = self._seed(field, to_widget=lambda value: default if value is None else value)
        return st.time_input(label, key=key, on_change=self._commit(field, key), **widget_args)

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
            if field == "tz":  # the viewer's choice holds on every page (None: the browser's)
                st.session_state[CHOSEN_ZONE] = changes[field]
            write_url(current.with_changes(**changes), route)

        return commit


# A selectbox shows None as an empty box with a placeholder; "no filter" is a real option.
_ALL = "*all*"


def _none_to_all(value: Any) -> Any:
    return _ALL if value is None else value


def _all_to_none(value: Any) -> Any:
    return None if value == _ALL else value

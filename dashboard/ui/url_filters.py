"""Filters bound to the URL: widgets seeded from the view state, writing back to the URL.

The URL is the single source of truth for what a page shows. Each filter widget is seeded from
the view state before it is drawn and, when the viewer changes it, a callback writes the new
state to `st.query_params` before the rerun. Every run therefore renders exactly what the
address bar says, whether it came from a click, a pasted link or the browser's back button.

Streamlit 1.67's own binding (`bind="query-params"`) keeps none of this, so no widget uses it
(checked against the installed source and an AppTest, 2026-11-28; each widget below says why):
the parameter a bound widget holds can no longer be written through `st.query_params` or
`st.switch_page(query_params=...)` on its page (StreamlitAPIException), which `write_url`,
`resets`, `apply`, `switch_to` and `follow` do; a page switch drops from the link every
parameter bound on the page left (`window` from Flaky to a scenario's history); Streamlit reads
the value itself and silently drops what it cannot read, where the parameter table reads more
("outages=1", "threshold=20%") and words the problem; and the browser, not the script, writes a
bound value into the URL, so no AppTest sees it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import date
from typing import Any, TypeVar
from urllib.parse import parse_qsl

import streamlit as st

from dashboard.present.formatting import visible_text
from dashboard.state import routes
from dashboard.state import url as url_state
from dashboard.state.kinds import Day, Share, WholeNumber
from dashboard.state.params import TZ, Param, ViewState
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


def write_url(state: ViewState, route: Route) -> None:
    """Make the URL hold exactly the page's state: bad and foreign parameters are dropped."""
    wanted = url_state.to_query_params(state, route.params)
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)


def link_params(state: ViewState, route: Route) -> dict[str, str]:
    """Query parameters for a link or switch to `route` showing `state`."""
    return url_state.to_query_params(state, route.params)


def switch_to(route: Route, state: ViewState) -> None:
    """Open `route` showing `state` (a selected row opens its page)."""
    st.switch_page(route.script, query_params=link_params(state, route))


def follow(link: str) -> None:
    """Open a link of `dashboard.state.links` ("results?execution=5") in this tab: a selected
    row opens the evidence its link column names."""
    path, _, query = link.partition("?")
    route = next(route for route in routes.ALL if route.url_path == path)
    st.switch_page(route.script, query_params=dict(parse_qsl(query)))


def page_link(route: Route, state: ViewState | None, *, label: str, icon: str) -> None:
    """A link to `route` showing `state` (None: the page as it opens by default)."""
    params = link_params(state, route) if state is not None else None
    st.page_link(route.script, label=label, icon=icon, query_params=params)


class UrlFilters:
    """Filter widgets whose values live in the URL.

    Each widget is bound to a parameter (a row of `dashboard.state.params`). `resets` gives
    parameters a new value when this one changes (a new project clears the plan, for instance).
    """

    def __init__(self, route: Route, state: ViewState) -> None:
        self._route = route
        self._state = state

    def selectbox(
        self,
        label: str,
        param: Param[Any],
        options: Mapping[T, str],
        *,
        resets: Mapping[Param[Any], Any] | None = None,
        **widget_args: Any,
    ) -> T:
        """A selectbox; the option keyed None (e.g. "All projects") stands for "no filter"."""
        # Not bind=: a bound selectbox's URL holds the option's label ("plan=Checkout"), not the id.
        key = self._seed(param, to_widget=_none_to_all)
        # Option labels are often the service's names (projects, plans): shown as visible text.
        labels = {_none_to_all(value): visible_text(text) for value, text in options.items()}
        value = st.selectbox(
            label,
            list(labels),
            format_func=lambda option: labels.get(option, str(option)),
            key=key,
            on_change=self._commit(param, key, resets, from_widget=_all_to_none),
            **widget_args,
        )
        return _all_to_none(value)

    def multiselect(
        self, label: str, param: Param[Any], options: Mapping[T, str], **widget_args: Any
    ) -> tuple[T, ...]:
        """Several values of a tuple parameter; none chosen means "no filter"."""
        # Not bind=: Streamlit repeats the key per value; links hold one "status=FAILURE,ERROR".
        key = self._seed(param, to_widget=list)
        labels = dict(options)
        value = st.multiselect(
            label,
            list(labels),
            format_func=lambda option: labels.get(option, str(option)),
            key=key,
            on_change=self._commit(param, key, from_widget=tuple),
            **widget_args,
        )
        return tuple(value)

    def toggle(self, label: str, param: Param[bool], **widget_args: Any) -> bool:
        # Not bind=: Streamlit reads only true/false and drops "outages=1", which links may hold.
        key = self._seed(param)
        return st.toggle(label, key=key, on_change=self._commit(param, key), **widget_args)

    def segmented(
        self,
        label: str,
        param: Param[Any],
        options: Mapping[T, str],
        *,
        resets: Mapping[Param[Any], Any] | None = None,
        **widget_args: Any,
    ) -> T:
        # Not bind=: a bound control's URL holds the label ("range=7 d"), links the value ("7d").
        key = self._seed(param)
        labels = {value: visible_text(text) for value, text in options.items()}
        value = st.segmented_control(
            label,
            list(labels),
            format_func=lambda option: labels[option],
            required=True,
            key=key,
            on_change=self._commit(param, key, resets),
            **widget_args,
        )
        return value if value is not None else getattr(self._state, param.field)

    def tabs(self, param: Param[Any], labels: Mapping[T, str]) -> dict[T, Any]:
        """Tabs whose open one is the parameter's value (`labels`: value -> tab label), each
        container's `.open` saying whether it is the open one: a page builds only what the
        open tab shows. Opening another tab writes it to the URL, then reruns."""
        # Not bind=: bound tabs write their label ("chart=Per day"), links hold "chart=day".
        key = self._seed(param, to_widget=lambda value: labels[value])
        values = {text: value for value, text in labels.items()}
        default = next(iter(labels))
        containers = st.tabs(
            list(labels.values()),
            key=key,
            on_change=self._commit(
                param, key, from_widget=lambda label: values.get(label, default)
            ),
        )
        return dict(zip(labels, containers, strict=True))

    def number(self, label: str, param: Param[Any], **widget_args: Any) -> Any:
        """A number input within the parameter's bounds (whole for a whole number, such as W):
        a value a link may hold is one the widget shows as it is."""
        # Not bind=: a page switch drops a bound key ("window" on the way to a scenario's history).
        kind = param.kind
        if isinstance(kind, WholeNumber | Share):
            widget_args = {"min_value": kind.bounds[0], "max_value": kind.bounds[1]} | widget_args
        key = self._seed(param)
        return st.number_input(label, key=key, on_change=self._commit(param, key), **widget_args)

    def draft_number(self, label: str, param: Param[Any], **widget_args: Any) -> Any:
        """A number input proposing a new value of `param` without applying it: seeded from
        the URL (again whenever the URL's value changes), written to it only by `apply`. A page
        previews what the proposed value would show before the viewer applies it."""
        kind = param.kind
        if isinstance(kind, WholeNumber | Share):
            widget_args = {"min_value": kind.bounds[0], "max_value": kind.bounds[1]} | widget_args
        key = f"{self._route.url_path}.draft.{param.field}"
        applied = getattr(self._state, param.field)
        if st.session_state.get(f"{key}.seed") != applied or key not in st.session_state:
            st.session_state[key] = applied
            st.session_state[f"{key}.seed"] = applied
        return st.number_input(label, key=key, **widget_args)

    def apply(self, label: str, changes: Mapping[Param[Any], Any], **widget_args: Any) -> bool:
        """A button that writes `changes` (proposed values, as `draft_number` gives them) to
        the URL, which then shows them."""
        route = self._route

        def commit() -> None:
            current = url_state.parse(st.query_params.to_dict(), route.params).state
            write_url(current.with_changes(**{p.field: v for p, v in changes.items()}), route)

        return st.button(label, on_click=commit, **widget_args)

    def date(
        self,
        label: str,
        param: Param[date | None],
        *,
        after: date | None = None,
        before: date | None = None,
        **widget_args: Any,
    ) -> date | None:
        """A day within the parameter's bounds, or from `after` to `before` when given (a custom
        range's other end). Bounds are always given: a picker's own (ten years around today)
        would reject a day the link may hold."""
        # Not bind=: the days are settled with `range` (reversed, or alone) and ride result links.
        kind = param.kind
        if isinstance(kind, Day):
            widget_args |= {"min_value": after or kind.first, "max_value": before or kind.last}
        key = self._seed(param)
        value = st.date_input(label, key=key, on_change=self._commit(param, key), **widget_args)
        return value if isinstance(value, date) else None

    def time(self, label: str, param: Param[Any], default: Any, **widget_args: Any) -> Any:
        """A time of day; `default` stands in for a parameter that is None."""
        # Not bind=: `write_url` sets `at` through st.query_params, which refuses a bound key.
        key = self._seed(param, to_widget=lambda value: default if value is None else value)
        return st.time_input(label, key=key, on_change=self._commit(param, key), **widget_args)

    def _seed(self, param: Param[Any], to_widget: Callable[[Any], Any] = lambda v: v) -> str:
        key = f"{self._route.url_path}.{param.field}"
        st.session_state[key] = to_widget(getattr(self._state, param.field))
        return key

    def _commit(
        self,
        param: Param[Any],
        key: str,
        resets: Mapping[Param[Any], Any] | None = None,
        from_widget: Callable[[Any], Any] = lambda v: v,
    ) -> Callable[[], None]:
        route = self._route

        def commit() -> None:
            current = url_state.parse(st.query_params.to_dict(), route.params).state
            value = from_widget(st.session_state[key])
            changes = {param.field: value} | {row.field: v for row, v in (resets or {}).items()}
            if param is TZ:  # the viewer's choice holds on every page (None: the browser's)
                st.session_state[CHOSEN_ZONE] = value
            write_url(current.with_changes(**changes), route)

        return commit


# A selectbox shows None as an empty box with a placeholder; "no filter" is a real option.
_ALL = "*all*"


def _none_to_all(value: Any) -> Any:
    return _ALL if value is None else value


def _all_to_none(value: Any) -> Any:
    return None if value == _ALL else value

"""The viewer's time zone: the browser's by default, or one chosen on the page and kept in the
URL (`tz`), so a shared link shows the times its sender saw."""

from __future__ import annotations

from functools import cache
from zoneinfo import available_timezones

import streamlit as st

from dashboard.state.params import TZ, ViewState
from dashboard.state.routes import Route
from dashboard.ui.url_filters import UrlFilters

FALLBACK_ZONE = "UTC"


@cache
def _zones() -> tuple[str, ...]:
    return tuple(sorted(z for z in available_timezones() if "/" in z or z == "UTC"))


def browser_zone() -> str:
    """The zone the viewer's browser reports, or UTC when it reports none (or one unknown)."""
    reported = st.context.timezone
    return reported if reported in _zones() else FALLBACK_ZONE


def viewer_zone(widgets: UrlFilters, state: ViewState, *, label: str = "Time zone") -> str:
    """Draw the time-zone picker and return the zone in use."""
    browser = browser_zone()
    options: dict[str | None, str] = {None: f"Your browser's ({browser})"}
    options.update((zone, zone) for zone in _zones())
    if state.tz is not None:
        options.setdefault(state.tz, state.tz)
    chosen = widgets.selectbox(label, TZ, options)
    return chosen or browser


def sidebar_zone(route: Route, state: ViewState) -> str:
    """The time-zone picker of a page whose filters leave no room for it, in the sidebar under
    the shared frame; returns the zone in use. Bound to the URL (`tz`) like any filter."""
    with st.sidebar:
        return viewer_zone(
            UrlFilters(route, state),
            state,
            label="Time zone",
        )

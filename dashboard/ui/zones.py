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


def zone_city(zone: str) -> str:
    """A zone as its place: "America/North_Dakota/New_Salem" -> "New Salem", "UTC" -> "UTC"."""
    return zone.rsplit("/", 1)[-1].replace("_", " ")


def zone_help(browser: str) -> str:
    return (
        f"Times are shown in your browser's zone, {browser} (the first choice), unless you "
        "choose another: the choice is kept in the page's link and on every page."
    )


def viewer_zone(widgets: UrlFilters, state: ViewState, *, label: str = "Time zone") -> str:
    """Draw the time-zone picker and return the zone in use. The browser's zone is shown by
    its place ("New Salem (browser)"), and said in full in the picker's help: a picker in a
    narrow column of a page's controls shows about 20 characters at 1440 px, which cut
    "Your browser's (America/North_Dakota/New_Salem)" to "Your browser's ("."""
    browser = browser_zone()
    # Its own label: a picker keeps its choice by label, so the browser's UTC is not "UTC".
    options: dict[str | None, str] = {None: f"{zone_city(browser)} (browser)"}
    options.update((zone, zone) for zone in _zones())
    if state.tz is not None:
        options.setdefault(state.tz, state.tz)
    chosen = widgets.selectbox(label, TZ, options, help=zone_help(browser))
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

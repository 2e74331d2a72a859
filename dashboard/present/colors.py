"""One fixed colour per known result status, so a status looks the same in every chart.

The service's set of statuses is open (spec section 2.1 names only some): an unknown status is
shown as itself, in a neutral grey, never dropped and never given a colour that suggests a verdict.
The colours are mid-tone so they stay readable on the light and the dark theme (a contrast of at
least 3:1 against both backgrounds), and were chosen so that every two of them stay apart (at
least 10 CIEDE2000) for normal vision and under simulated protanopia, deuteranopia and
tritanopia; tests/dashboard/test_color_vision.py checks both. Which status is a pass or a
failure is not decided here but in `dashboard.analytics.verdicts`.
"""

from __future__ import annotations

STATUS_COLORS: dict[str, str] = {  # in the order of verdicts.KNOWN_STATUSES
    "SUCCESS": "#167c04",  # green
    "FAILURE": "#db6965",  # red
    "ERROR": "#9a447d",  # plum: broke, rather than failed an assertion
    "WARNING": "#b78f00",  # amber
    "WAITING": "#8796ad",  # grey-blue: queued
    "PROCESSING": "#3b88ff",  # blue: running
    "REPORTING": "#7b75ac",  # lavender
    "TERMINATING": "#5f53c0",  # indigo
    "STOPPED": "#785e4b",  # brown: stopped by someone
    "UNEXECUTED": "#93918e",  # light grey: never ran
}

UNKNOWN_STATUS_COLOR = "#787070"
"""Neutral grey for a status this dashboard does not know."""

OUTCOME_COLORS: dict[str, str] = {
    "all passed": STATUS_COLORS["SUCCESS"],
    "some failed": STATUS_COLORS["WARNING"],
    "all failed": STATUS_COLORS["FAILURE"],
    "no verdict": UNKNOWN_STATUS_COLOR,
}
"""The colours of an environment's outcome (`dashboard.analytics.results.OUTCOME_ORDER`)."""

TREND_COLOR = "#4f86c6"
"""A single series that is not a status (a pass-rate line)."""


def status_color(status: str) -> str:
    """The colour of a status; statuses are compared case-insensitively."""
    return STATUS_COLORS.get(status.strip().upper(), UNKNOWN_STATUS_COLOR)


STATUS_SYMBOLS: dict[str, str] = {
    "SUCCESS": "\u2714",  # heavy check mark
    "FAILURE": "\u2716",  # heavy multiplication x
    "ERROR": "\u26a0",  # warning sign: broke rather than failed
    "WARNING": "\u25b2",  # triangle
    "WAITING": "\u23f3",  # hourglass
    "PROCESSING": "\u25b6",  # play: running
    "REPORTING": "\u25b6",
    "TERMINATING": "\u25b6",
    "STOPPED": "\u25a0",  # square: stopped
    "UNEXECUTED": "\u25cb",  # circle: never ran
}
"""A second cue beside the colour, so a status reads the same without colour vision."""

UNKNOWN_STATUS_SYMBOL = "?"


STATUS_PATTERNS: dict[str, str] = {
    "SUCCESS": "",  # solid
    "FAILURE": "x",
    "ERROR": "/",
    "WARNING": ".",
    "WAITING": "-",
    "PROCESSING": "|",
    "REPORTING": "|",
    "TERMINATING": "|",
    "STOPPED": "+",
    "UNEXECUTED": "\\",
}
"""The fill pattern of a status's bars (plotly's pattern shapes): the failing statuses hatched
and a pass solid, so a stacked bar's parts are told apart without colour vision too."""

UNKNOWN_STATUS_PATTERN = "\\"


def status_pattern(status: str) -> dict[str, object]:
    """A bar's `marker.pattern` for a status: its shape in white over the status colour."""
    return {
        "shape": STATUS_PATTERNS.get(status.strip().upper(), UNKNOWN_STATUS_PATTERN),
        "fillmode": "overlay",
        "fgcolor": "#ffffff",
        "fgopacity": 0.75,
        "size": 6,
        "solidity": 0.25,
    }


def status_label(status: str) -> str:
    """A status as "\u2716 FAILURE": its symbol, then its name as the service spells it."""
    symbol = STATUS_SYMBOLS.get(status.strip().upper(), UNKNOWN_STATUS_SYMBOL)
    return f"{symbol} {status}"


PLAN_PALETTE: tuple[str, ...] = (
    "#2f6fd6",
    "#7a5cc7",
    "#1d9aa8",
    "#c2731c",
    "#5b6b82",
    "#b04f9a",
    "#3f8f6b",
    "#8c6d3f",
    "#5e68bd",
    "#7d8797",
)
"""Colours for plans: none is a status colour (red and green mean failed and passed here).
The same in both themes, so each is a mid-tone of at least 3:1 against both backgrounds
(tests/dashboard/test_contrast.py); the light theme's chartCategoricalColors are these."""


PLAN_SYMBOLS: tuple[str, ...] = (
    "circle",
    "square",
    "diamond",
    "triangle-up",
    "x",
    "cross",
    "triangle-down",
    "star",
    "triangle-left",
    "triangle-right",
)
"""Marker shapes for plans, beside their colours: two plans' lines are told apart without
colour vision too (the legend shows each plan's shape)."""


def plan_symbol(plan_id: object) -> str:
    """A plan's marker shape, derived from its id like its colour."""
    try:
        index = int(plan_id)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return "circle-open"
    return PLAN_SYMBOLS[index % len(PLAN_SYMBOLS)]


def plan_color(plan_id: object) -> str:
    """A plan's colour, derived from its id: the same plan has the same colour in every chart
    and on every page, whatever else is shown beside it."""
    try:
        index = int(plan_id)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return UNKNOWN_STATUS_COLOR
    return PLAN_PALETTE[index % len(PLAN_PALETTE)]

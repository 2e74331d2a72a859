"""One fixed colour per known result status, so a status looks the same in every chart.

The service's set of statuses is open (spec section 2.1 names only some): an unknown status is
shown as itself, in a neutral grey, never dropped and never given a colour that suggests a verdict.
The colours are mid-tone so they stay readable on the light and the dark theme. Which status is
a pass or a failure is not decided here but in `dashboard.analytics.verdicts`.
"""

from __future__ import annotations

STATUS_COLORS: dict[str, str] = {  # in the order of verdicts.KNOWN_STATUSES
    "SUCCESS": "#2e9e5b",  # green
    "FAILURE": "#d64545",  # red
    "ERROR": "#b4451f",  # dark orange-red: broke, rather than failed an assertion
    "WARNING": "#e0a526",  # amber
    "WAITING": "#7a8ca8",  # grey-blue: queued
    "PROCESSING": "#4f86c6",  # blue: running
    "REPORTING": "#6f7fd1",  # indigo
    "TERMINATING": "#9a6fb0",  # violet
    "STOPPED": "#8c6d5a",  # brown: stopped by someone
    "UNEXECUTED": "#a3a3a3",  # light grey: never ran
}

UNKNOWN_STATUS_COLOR = "#8e8e8e"
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

"""One fixed colour per known result status, so a status looks the same in every chart.

The service's set of statuses is open (spec section 2.1 names only some): an unknown status is
shown as itself, in a neutral grey, never dropped and never given a colour that suggests a verdict.
The colours are mid-tone so they stay readable on the light and the dark theme.
"""

from __future__ import annotations

from collections.abc import Iterable

SUCCESS = "SUCCESS"

# Known statuses in the order a stacked chart should draw them: verdicts first, bad to good read
# bottom-up, then the states of a test that has not (yet) produced a verdict.
STATUS_COLORS: dict[str, str] = {
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

FAILING_STATUSES: frozenset[str] = frozenset({"FAILURE", "ERROR"})
"""Statuses that count as a failed test (used for "failing plans")."""


PENDING_STATUSES: frozenset[str] = frozenset({"WAITING", "PROCESSING", "REPORTING", "TERMINATING"})
"""Statuses of a test that has no verdict yet: left out of pass rates, which would otherwise
count a running execution as failing."""


def status_color(status: str) -> str:
    """The colour of a status; statuses are compared case-insensitively."""
    return STATUS_COLORS.get(status.strip().upper(), UNKNOWN_STATUS_COLOR)


def ordered_statuses(statuses: Iterable[str]) -> list[str]:
    """Known statuses in their fixed order, then unknown ones alphabetically."""
    known_order = {name: i for i, name in enumerate(STATUS_COLORS)}
    unique = set(statuses)
    return sorted(unique, key=lambda s: (known_order.get(s.upper(), len(known_order)), s))


def is_failing(status: str) -> bool:
    return status.strip().upper() in FAILING_STATUSES


def is_pending(status: str) -> bool:
    return status.strip().upper() in PENDING_STATUSES

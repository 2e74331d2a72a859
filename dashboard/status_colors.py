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

VERDICT_STATUSES: frozenset[str] = frozenset({"SUCCESS", "FAILURE", "ERROR", "WARNING"})
"""Statuses that are a test's verdict: the denominator of every pass rate. Everything else, known
(WAITING, PROCESSING, STOPPED, UNEXECUTED...) or not, says nothing about pass or fail yet, so it
is left out of pass rates rather than counted as a failure."""

PASSED_STATUSES: frozenset[str] = frozenset({SUCCESS})
"""Verdicts that count as passed. A WARNING is a verdict but not a pass: the test ran to the end
with something a QA lead should look at, so it lowers the pass rate without being a failure."""

FAILING_STATUSES: frozenset[str] = frozenset({"FAILURE", "ERROR"})
"""Statuses that count as a failed test (used for "failing plans")."""

FILTER_STATUSES: tuple[str, ...] = ("SUCCESS", "FAILURE", "ERROR", "WARNING", "WAITING")
"""The execution statuses the service's `status` filter accepts (README, decision 11); it
answers 400 to any other value, so the status picker offers these."""


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


def has_verdict(status: str) -> bool:
    return status.strip().upper() in VERDICT_STATUSES


def is_passed(status: str) -> bool:
    return status.strip().upper() in PASSED_STATUSES

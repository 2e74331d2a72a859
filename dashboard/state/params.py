"""The names of the URL's query parameters, and which page owns which: the one place that
names them. Values are always strings in the URL; `dashboard.state.url` reads and writes them."""

from __future__ import annotations

from datetime import date, time
from enum import StrEnum

from dashboard.analytics.flaky import DEFAULT_THRESHOLD as DEFAULT_THRESHOLD
from dashboard.analytics.flaky import DEFAULT_WINDOW as DEFAULT_WINDOW

# The query parameter names. Values are always strings in the URL.
PROJECT = "project"
PLAN = "plan"
ACTIVE = "active"
RANGE = "range"
FROM = "from"
TO = "to"
STATUS = "status"
MINE = "mine"
EXECUTION = "execution"
# When the selected execution started (UTC, to the second). The API cannot fetch one execution
# by id, so this lets a results link find it with a query of a few minutes when it is no longer
# among the executions its filters select (a "last 7 days" link opened a month later).
STARTED = "started"
TZ = "tz"  # an IANA time zone; absent: the viewer's browser's
STANDUP_AT = "at"  # the standup's local time of day, HH:MM
PRESENT = "present"  # presenter mode: large type, no sidebar, refreshes itself
# Scenario analytics (issue 12).
SCENARIO = "scenario"  # a scenario id of the plan
WINDOW = "window"  # W: each plan's last W finished executions
THRESHOLD = "threshold"  # the flaky score at or above which a scenario is listed
BEFORE = "before"  # the compared executions' ids
AFTER = "after"
CHANGES = "changes"  # the comparison lists only what changed (on by default)
# The executions page's open status chart tab (issue 10: a closed tab's chart is not built).
CHART = "chart"

# Which parameters each page owns. A page writes exactly these back to the URL, so a shared link
# holds what that page shows and nothing stale from another page. The results page keeps the
# executions filters so that "back to executions" restores them.
# Every page keeps the viewer's time zone, so a link shows the times its sender saw.
PLANS_PARAMS: tuple[str, ...] = (PROJECT, ACTIVE, TZ)
EXECUTIONS_PARAMS: tuple[str, ...] = (PROJECT, PLAN, RANGE, FROM, TO, STATUS, MINE, TZ, CHART)
RESULTS_PARAMS: tuple[str, ...] = (*EXECUTIONS_PARAMS, EXECUTION, STARTED)
STANDUP_PARAMS: tuple[str, ...] = (PROJECT, RANGE, FROM, TO, TZ, STANDUP_AT, PRESENT)
HEALTH_PARAMS: tuple[str, ...] = (PROJECT, TZ)
FLAKY_PARAMS: tuple[str, ...] = (PROJECT, PLAN, WINDOW, THRESHOLD, TZ)
ENVIRONMENTS_PARAMS: tuple[str, ...] = (PLAN, WINDOW, TZ)
COMPARE_PARAMS: tuple[str, ...] = (PLAN, BEFORE, AFTER, CHANGES, TZ)
SCENARIO_PARAMS: tuple[str, ...] = (PLAN, SCENARIO, WINDOW, TZ)


class DateRange(StrEnum):
    """Date-range presets of the executions page; CUSTOM uses the `from`/`to` dates."""

    LAST_24_HOURS = "24h"
    LAST_7_DAYS = "7d"
    LAST_30_DAYS = "30d"
    LAST_90_DAYS = "90d"
    CUSTOM = "custom"

    @property
    def label(self) -> str:
        return _RANGE_LABELS[self]


_RANGE_LABELS = {
    DateRange.LAST_24_HOURS: "24 h",
    DateRange.LAST_7_DAYS: "7 d",
    DateRange.LAST_30_DAYS: "30 d",
    DateRange.LAST_90_DAYS: "90 d",
    DateRange.CUSTOM: "Custom",
}
DEFAULT_RANGE = DateRange.LAST_7_DAYS


class StatusChart(StrEnum):
    """The executions page's "Results by status" tabs: each execution (each plan's window
    above the bar limit), or each day. Only the open one is built and sent."""

    EXECUTION = "execution"
    DAY = "day"


DEFAULT_STATUS_CHART = StatusChart.EXECUTION
DEFAULT_STANDUP_AT = time(9, 30)
WINDOW_BOUNDS = (5, 200)  # fewer than 5 runs is never flaky; more than 200 is not a window
# The thresholds a link and the flaky page's widget both take (inclusive): the same pair, so a
# link's threshold is never one the widget cannot show (and silently replaces). 0.01 lists
# scenarios with one flip in up to 101 runs; a lower one lists no more within a window of 200.
THRESHOLD_BOUNDS = (0.01, 1.0)
# The days a custom range may name. The date pickers need bounds, and a day outside these is a
# typo rather than a test run (and would overflow a window around it).
FIRST_DAY = date(1970, 1, 1)
LAST_DAY = date(9998, 12, 31)

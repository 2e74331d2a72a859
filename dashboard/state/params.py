"""The URL's query parameters, declared once: the one place that names them.

Everything a viewer sees is reproducible from the address bar, so every filter and selection is
a query parameter. Each row of the table below says a parameter's name in the URL, the
`ViewState` field it fills (whose annotation is its type and whose default is its default), and
its kind: how its text is read, within which bounds, and how it is written back
(`dashboard.state.kinds`). `dashboard.state.url` derives reading a link and writing one from
the rows; each route (`dashboard.state.routes`) lists the rows it takes; widgets
(`dashboard.ui.url_filters`) are bound to a row. A link never carries a credential: no row
holds a token or an e-mail address ("only mine" is a flag; the address comes from the viewer's
own connection).

The rows are in the order the filters appear on the pages: a link's problems are listed in it,
and written links hold their parameters in it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from datetime import date, datetime, time
from enum import StrEnum
from typing import Any, Generic, TypeVar

from dashboard.analytics import flaky
from dashboard.state import kinds

T = TypeVar("T")


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


class StatusChart(StrEnum):
    """The executions page's "Results by status" tabs: each execution (each plan's over the bar
    limit), or each day. Only the open one is built and sent."""

    EXECUTION = "execution"
    DAY = "day"


DEFAULT_STANDUP_AT = time(9, 30)
# Fewer than 5 runs is never flaky (analytics.flaky.MIN_RUNS); more than 200 are not a W anyone
# reads.
WINDOW_BOUNDS = (5, 200)
# The thresholds a link and the flaky page's widget both take (inclusive): the same pair, so a
# link's threshold is never one the widget cannot show (and silently replaces). 0.01 lists
# scenarios with one flip in up to 101 runs; a lower one lists no more within a W of 200.
THRESHOLD_BOUNDS = (0.01, 1.0)
# The days a custom range may name. The date pickers need bounds, and a day outside these is a
# typo rather than a test run (and would overflow the span of time around it).
FIRST_DAY = date(1970, 1, 1)
LAST_DAY = date(9998, 12, 31)


@dataclass(frozen=True)
class Param(Generic[T]):
    """One query parameter: its `name` in the URL, the `ViewState` `field` it fills, and its
    `kind` (how it is read and written)."""

    name: str
    field: str
    kind: kinds.Kind[T]

    @property
    def default(self) -> T:
        return _DEFAULTS[self.field]  # type: ignore[return-value]


# -- the table --------------------------------------------------------------------------------
PROJECT = Param("project", "project", kinds.Id("project"))
PLAN = Param("plan", "plan", kinds.Id("plan"))
ACTIVE = Param("active", "active_only", kinds.Flag('"active plans only"'))
STATUS = Param("status", "statuses", kinds.Statuses())  # executions of any of these; () any
RANGE = Param("range", "date_range", kinds.Choice(DateRange, "the last {default.label} are shown"))
FROM = Param("from", "date_from", kinds.Day(FIRST_DAY, LAST_DAY))  # a custom range's first day
TO = Param("to", "date_to", kinds.Day(FIRST_DAY, LAST_DAY))  # and its last (the viewer's days)
MINE = Param("mine", "mine", kinds.Flag('"only my executions"'))
EXECUTION = Param("execution", "execution", kinds.Id("execution"))
# When the selected execution started. The API cannot fetch one execution by id, so this lets a
# results link find it with a query of a few minutes when it is no longer among the executions
# its filters select (a "last 7 days" link opened a month later).
STARTED = Param("started", "execution_start", kinds.Instant())
TZ = Param("tz", "tz", kinds.Zone())  # absent: the viewer's browser's
STANDUP_AT = Param("at", "standup_at", kinds.TimeOfDay(DEFAULT_STANDUP_AT))
PRESENT = Param("present", "present", kinds.Flag("presenter mode", on="1"))
SCENARIO = Param("scenario", "scenario", kinds.Id("scenario"))  # a scenario of the plan
WINDOW = Param("window", "window", kinds.WholeNumber(WINDOW_BOUNDS, "executions"))
THRESHOLD = Param("threshold", "threshold", kinds.Share(THRESHOLD_BOUNDS))
BEFORE = Param("before", "before", kinds.Id("execution"))  # the compared executions
AFTER = Param("after", "after", kinds.Id("execution"))
CHANGES = Param("changes", "only_changes", kinds.Flag('"only changes"'))
CHART = Param(
    "chart",
    "status_chart",
    kinds.Choice(StatusChart, 'the status chart shown is "{default.value}"'),
)

TABLE: tuple[Param[Any], ...] = (
    PROJECT,
    PLAN,
    ACTIVE,
    STATUS,
    RANGE,
    FROM,
    TO,
    MINE,
    EXECUTION,
    STARTED,
    TZ,
    STANDUP_AT,
    PRESENT,
    SCENARIO,
    WINDOW,
    THRESHOLD,
    BEFORE,
    AFTER,
    CHANGES,
    CHART,
)


@dataclass(frozen=True)
class ViewState:
    """Every filter and selection of the dashboard, typed and validated: one field per row of
    the table, with the parameter's type and default."""

    project: int | None = None
    plan: int | None = None
    active_only: bool = True
    statuses: tuple[str, ...] = ()
    date_range: DateRange = DateRange.LAST_7_DAYS
    date_from: date | None = None  # only with DateRange.CUSTOM
    date_to: date | None = None  # only with DateRange.CUSTOM
    mine: bool = False
    execution: int | None = None
    execution_start: datetime | None = None  # a hint to find `execution` (UTC)
    tz: str | None = None  # None: the viewer's own zone (the browser's), else UTC
    standup_at: time | None = None  # None: DEFAULT_STANDUP_AT
    present: bool = False
    scenario: int | None = None  # the scenario page's scenario (of `plan`)
    window: int = flaky.WINDOW  # W: each plan's last W finished executions are analysed
    threshold: float = flaky.THRESHOLD  # flaky at or above this score
    before: int | None = None  # None: the plan's default pair
    after: int | None = None
    only_changes: bool = True
    status_chart: StatusChart = StatusChart.EXECUTION  # the executions page's open chart tab

    def with_changes(self, **changes: object) -> ViewState:
        return replace(self, **changes)  # type: ignore[arg-type]


_DEFAULTS: dict[str, object] = {item.name: item.default for item in fields(ViewState)}
# The table and the state describe the same fields in the same order: a row without a field (or
# a field without a row) is a mistake found at import, not in a link.
if [row.field for row in TABLE] != list(_DEFAULTS):
    raise TypeError("dashboard.state.params: TABLE and ViewState name different fields")

"""The URL's query parameters, declared once: the one place that names them.

Everything a viewer sees is reproducible from the address bar, so every filter and selection is
a query parameter. Each row of the table below says a parameter's name in the URL, the
`ViewState` field it fills, its kind (how its text is read, within which bounds, and how it is
written back: `dashboard.state.kinds`) and its default; `ViewState` mirrors the rows, one typed
field each. `dashboard.state.url` derives reading a link and writing one from the rows; each
route (`dashboard.state.routes`) lists the rows it takes; widgets (`dashboard.ui.url_filters`)
are bound to a row. A new filter is a row, its field, the route's list, its widget and its use.
A link never carries a credential: no row holds a token or an e-mail address ("only mine" is a
flag; the address comes from the viewer's own connection).

The rows are in the order the filters appear on the pages: a link's problems are listed in it,
and written links hold their parameters in it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from datetime import date, datetime, time
from enum import StrEnum
from typing import Any, Generic, TypeVar

from dashboard.analytics import flaky, states
from dashboard.analytics.failure_groups import Grouping
from dashboard.present.known import MarkFilter
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
# K: fewer runs than this is "not enough data" (and fewer clean runs "recovering"); two runs
# are the least a flip needs, and 50 is more than a W of 200 needs.
MIN_RUNS_BOUNDS = (2, 50)
# N: the last N runs a broken scenario failed in (almost) all of; within W's bounds.
BROKEN_RUNS_BOUNDS = (2, 200)
# The days a custom range may name. The date pickers need bounds, and a day outside these is a
# typo rather than a test run (and would overflow the span of time around it).
FIRST_DAY = date(1970, 1, 1)
LAST_DAY = date(9998, 12, 31)


@dataclass(frozen=True)
class Param(Generic[T]):
    """One query parameter: its `name` in the URL, the `ViewState` `field` it fills, its
    `kind` (how it is read, within which bounds, and written) and its `default` (what an absent
    or bad value means; a default is left out of a written link)."""

    name: str
    field: str
    kind: kinds.Kind[T]
    default: T

    def __hash__(self) -> int:
        # Names are unique in the table; hashing every field (the kind's too) made a route's
        # rows cost more to look up than to write (`dashboard.state.url.to_query_params`).
        return hash(self.name)


# -- the table --------------------------------------------------------------------------------
PROJECT = Param("project", "project", kinds.Id("project"), default=None)
PLAN = Param("plan", "plan", kinds.Id("plan"), default=None)
ACTIVE = Param("active", "active_only", kinds.Flag('"active plans only"'), default=True)
# Executions of any of these statuses; none: any status.
STATUS: Param[tuple[str, ...]] = Param("status", "statuses", kinds.Statuses(), default=())
RANGE = Param(
    "range",
    "date_range",
    kinds.Choice(DateRange, "the last {default.label} are shown"),
    default=DateRange.LAST_7_DAYS,
)
# A custom range's first and last days (the viewer's calendar days); only with CUSTOM.
FROM = Param("from", "date_from", kinds.Day(FIRST_DAY, LAST_DAY), default=None)
TO = Param("to", "date_to", kinds.Day(FIRST_DAY, LAST_DAY), default=None)
MINE = Param("mine", "mine", kinds.Flag('"only my executions"'), default=False)
EXECUTION = Param("execution", "execution", kinds.Id("execution"), default=None)
# When the selected execution started (UTC). The API cannot fetch one execution by id, so this
# lets a results link find it with a query of a few minutes when it is no longer among the
# executions its filters select (a "last 7 days" link opened a month later).
STARTED = Param("started", "execution_start", kinds.Instant(), default=None)
# An IANA zone; none: the viewer's own (the browser's).
TZ = Param("tz", "tz", kinds.Zone(), default=None)
# The standup's local time of day; none: DEFAULT_STANDUP_AT.
STANDUP_AT = Param("at", "standup_at", kinds.TimeOfDay(DEFAULT_STANDUP_AT), default=None)
PRESENT = Param("present", "present", kinds.Flag("presenter mode", on="1"), default=False)
SCENARIO = Param("scenario", "scenario", kinds.Id("scenario"), default=None)  # of the plan
# W: each plan's last W finished executions are analysed.
WINDOW = Param(
    "window", "window", kinds.WholeNumber(WINDOW_BOUNDS, "executions"), default=flaky.DEFAULT_WINDOW
)
# A scenario is flaky at or above this score.
THRESHOLD = Param(
    "threshold", "threshold", kinds.Share(THRESHOLD_BOUNDS), default=flaky.DEFAULT_THRESHOLD
)
# K and N of the scenario states (analytics.states).
MIN_RUNS = Param(
    "min_runs",
    "min_runs",
    kinds.WholeNumber(MIN_RUNS_BOUNDS, "runs"),
    default=states.DEFAULT_MIN_RUNS,
)
BROKEN_RUNS = Param(
    "broken_runs",
    "broken_runs",
    kinds.WholeNumber(BROKEN_RUNS_BOUNDS, "runs"),
    default=states.DEFAULT_BROKEN_RUNS,
)
# Scenarios of these states (states.STATES); none: every state.
STATE: Param[tuple[str, ...]] = Param(
    "states", "states", kinds.Names(states.STATES, "state"), default=()
)
# Only the scenarios the signed-in viewer owns (scenario names' owners, #38): a flag, the
# address is the viewer's own sign-in, never the link's.
OWNED = Param("owned", "only_owned", kinds.Flag('"only my scenarios"'), default=False)
# The compared executions; none: the plan's default pair.
BEFORE = Param("before", "before", kinds.Id("execution"), default=None)
AFTER = Param("after", "after", kinds.Id("execution"), default=None)
CHANGES = Param("changes", "only_changes", kinds.Flag('"only changes"'), default=True)
# The executions page's open status chart tab.
CHART = Param(
    "chart",
    "status_chart",
    kinds.Choice(StatusChart, 'the status chart shown is "{default.value}"'),
    default=StatusChart.EXECUTION,
)

# Likely outages are left out of pass rates, flaky scores and environment figures unless on.
OUTAGES = Param("outages", "include_outages", kinds.Flag('"include outages"'), default=False)
# Failure groups per scenario (the default) or across scenarios (#38).
GROUPS = Param(
    "groups",
    "grouping",
    kinds.Choice(Grouping, "failure groups are per {default.value}"),
    default=Grouping.SCENARIO,
)
# Which marks the Known failures page lists.
MARKS = Param(
    "marks",
    "mark_filter",
    kinds.Choice(MarkFilter, 'the marks listed are the "{default.value}" ones'),
    default=MarkFilter.OPEN,
)

TABLE: tuple[Param[Any], ...] = tuple(row for row in globals().values() if isinstance(row, Param))
"""Every row above, in order."""


@dataclass(frozen=True)
class ViewState:
    """Every filter and selection of the dashboard: one typed field per row of the table, in
    its order, holding the row's default until a link or a widget says otherwise."""

    project: int | None = PROJECT.default
    plan: int | None = PLAN.default
    active_only: bool = ACTIVE.default
    statuses: tuple[str, ...] = STATUS.default
    date_range: DateRange = RANGE.default
    date_from: date | None = FROM.default
    date_to: date | None = TO.default
    mine: bool = MINE.default
    execution: int | None = EXECUTION.default
    execution_start: datetime | None = STARTED.default
    tz: str | None = TZ.default
    standup_at: time | None = STANDUP_AT.default
    present: bool = PRESENT.default
    scenario: int | None = SCENARIO.default
    window: int = WINDOW.default
    threshold: float = THRESHOLD.default
    min_runs: int = MIN_RUNS.default
    broken_runs: int = BROKEN_RUNS.default
    states: tuple[str, ...] = STATE.default
    only_owned: bool = OWNED.default
    before: int | None = BEFORE.default
    after: int | None = AFTER.default
    only_changes: bool = CHANGES.default
    status_chart: StatusChart = CHART.default
    include_outages: bool = OUTAGES.default
    grouping: Grouping = GROUPS.default
    mark_filter: MarkFilter = MARKS.default

    def with_changes(self, **changes: object) -> ViewState:
        return replace(self, **changes)  # type: ignore[arg-type]


# The state mirrors the table: a row without its field (or a field without its row, or with
# another default) is a mistake found at import, not in a link.
if [(row.field, row.default) for row in TABLE] != [(f.name, f.default) for f in fields(ViewState)]:
    raise TypeError("dashboard.state.params: ViewState does not mirror the rows of TABLE")

"""The view state held in the URL: the one place that names the query parameters.

Everything a viewer sees is reproducible from the address bar, so every filter and selection is
a query parameter. URLs are user input (pasted into chat, edited by hand), so parsing never
raises: a bad value is dropped, the default is used, and a readable problem says what was wrong.
A link never carries a credential: no parameter here holds a token or an e-mail address ("only
mine" is a flag; the address comes from the viewer's own connection).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time

from dashboard.state.params import (
    ACTIVE,
    AFTER,
    BEFORE,
    CHANGES,
    CHART,
    COMPARE_PARAMS,
    DEFAULT_RANGE,
    DEFAULT_STANDUP_AT,
    DEFAULT_STATUS_CHART,
    DEFAULT_THRESHOLD,
    DEFAULT_WINDOW,
    ENVIRONMENTS_PARAMS,
    EXECUTION,
    EXECUTIONS_PARAMS,
    FIRST_DAY,
    FLAKY_PARAMS,
    FROM,
    HEALTH_PARAMS,
    LAST_DAY,
    MINE,
    PLAN,
    PLANS_PARAMS,
    PRESENT,
    PROJECT,
    RANGE,
    RESULTS_PARAMS,
    SCENARIO,
    SCENARIO_PARAMS,
    STANDUP_AT,
    STANDUP_PARAMS,
    STARTED,
    STATUS,
    THRESHOLD,
    THRESHOLD_BOUNDS,
    TO,
    TZ,
    WINDOW,
    WINDOW_BOUNDS,
    DateRange,
    StatusChart,
)
from dashboard.state.reader import ParamReader

# The names are defined in `params`; callers may take them from here with the state itself.
__all__ = [
    "ACTIVE",
    "AFTER",
    "BEFORE",
    "CHANGES",
    "CHART",
    "COMPARE_PARAMS",
    "DEFAULT_RANGE",
    "DEFAULT_STANDUP_AT",
    "DEFAULT_THRESHOLD",
    "DEFAULT_WINDOW",
    "ENVIRONMENTS_PARAMS",
    "EXECUTION",
    "EXECUTIONS_PARAMS",
    "FIRST_DAY",
    "FLAKY_PARAMS",
    "FROM",
    "HEALTH_PARAMS",
    "LAST_DAY",
    "MINE",
    "PLAN",
    "PLANS_PARAMS",
    "PRESENT",
    "PROJECT",
    "RANGE",
    "RESULTS_PARAMS",
    "SCENARIO",
    "SCENARIO_PARAMS",
    "STANDUP_AT",
    "STANDUP_PARAMS",
    "STARTED",
    "STATUS",
    "THRESHOLD",
    "TO",
    "TZ",
    "WINDOW",
    "DateRange",
    "ParsedState",
    "StatusChart",
    "ViewState",
    "parse",
    "to_query_params",
]


@dataclass(frozen=True)
class ViewState:
    """Every filter and selection of the dashboard, typed and validated."""

    project: int | None = None
    plan: int | None = None
    active_only: bool = True
    date_range: DateRange = DEFAULT_RANGE
    date_from: date | None = None  # only with DateRange.CUSTOM
    date_to: date | None = None  # only with DateRange.CUSTOM
    statuses: tuple[str, ...] = ()  # executions of any of these statuses; () means any
    mine: bool = False
    execution: int | None = None
    execution_start: datetime | None = None  # a hint to find `execution` (UTC)
    tz: str | None = None  # None: the viewer's own zone (the browser's), else UTC
    standup_at: time | None = None  # None: DEFAULT_STANDUP_AT
    present: bool = False
    scenario: int | None = None  # the scenario page's scenario (of `plan`)
    window: int = DEFAULT_WINDOW  # W: each plan's last W finished executions
    threshold: float = DEFAULT_THRESHOLD  # flaky at or above this score
    before: int | None = None  # the compared executions; None: the plan's defaults
    after: int | None = None
    only_changes: bool = True
    status_chart: StatusChart = DEFAULT_STATUS_CHART  # the executions page's open chart tab

    def with_changes(self, **changes: object) -> ViewState:
        return replace(self, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True)
class ParsedState:
    """A view state and the problems found while reading it from the URL."""

    state: ViewState
    problems: list[str] = field(default_factory=list)


def parse(params: Mapping[str, str | list[str]], names: Iterable[str] | None = None) -> ParsedState:
    """Read the view state from query parameters; bad values become problems, never exceptions.

    With `names`, only those parameters are read (a page's own); the others keep defaults.
    """
    if names is not None:
        wanted = set(names)
        params = {name: value for name, value in params.items() if name in wanted}
    reader = ParamReader(params)
    # Read in the order the filters appear on the pages, so problems are listed that way too.
    project = reader.id(PROJECT, "project")
    plan = reader.id(PLAN, "plan")
    active_only = reader.flag(ACTIVE, default=True, meaning='"active plans only"')
    statuses = reader.statuses()
    date_range, date_from, date_to = reader.date_range()
    state = ViewState(
        project=project,
        plan=plan,
        active_only=active_only,
        date_range=date_range,
        date_from=date_from,
        date_to=date_to,
        statuses=statuses,
        mine=reader.flag(MINE, default=False, meaning='"only my executions"'),
        execution=reader.id(EXECUTION, "execution"),
        execution_start=reader.instant(STARTED),
        tz=reader.zone(TZ),
        standup_at=reader.time_of_day(STANDUP_AT),
        present=reader.flag(PRESENT, default=False, meaning="presenter mode"),
        scenario=reader.id(SCENARIO, "scenario"),
        window=reader.whole_number(WINDOW, DEFAULT_WINDOW, WINDOW_BOUNDS, "executions"),
        threshold=reader.share(THRESHOLD, DEFAULT_THRESHOLD, THRESHOLD_BOUNDS),
        before=reader.id(BEFORE, "execution"),
        after=reader.id(AFTER, "execution"),
        only_changes=reader.flag(CHANGES, default=True, meaning='"only changes"'),
        status_chart=reader.choice(
            CHART, StatusChart, DEFAULT_STATUS_CHART, "the status chart shown"
        ),
    )
    return ParsedState(state, reader.problems)


def to_query_params(state: ViewState, names: Iterable[str]) -> dict[str, str]:
    """The query parameters for `state`, limited to `names`; defaults are left out of the URL."""
    values: dict[str, str | None] = {
        PROJECT: _str_or_none(state.project),
        PLAN: _str_or_none(state.plan),
        ACTIVE: None if state.active_only else "false",
        RANGE: None if state.date_range is DEFAULT_RANGE else state.date_range.value,
        FROM: _iso_or_none(state.date_from) if state.date_range is DateRange.CUSTOM else None,
        TO: _iso_or_none(state.date_to) if state.date_range is DateRange.CUSTOM else None,
        STATUS: ",".join(state.statuses) or None,
        MINE: "true" if state.mine else None,
        EXECUTION: _str_or_none(state.execution),
        STARTED: _instant_or_none(state.execution_start),
        TZ: state.tz,
        STANDUP_AT: state.standup_at.strftime("%H:%M") if state.standup_at else None,
        PRESENT: "1" if state.present else None,
        SCENARIO: _str_or_none(state.scenario),
        WINDOW: None if state.window == DEFAULT_WINDOW else str(state.window),
        THRESHOLD: None if state.threshold == DEFAULT_THRESHOLD else f"{state.threshold:g}",
        BEFORE: _str_or_none(state.before),
        AFTER: _str_or_none(state.after),
        CHANGES: None if state.only_changes else "false",
        CHART: None if state.status_chart is DEFAULT_STATUS_CHART else state.status_chart.value,
    }
    wanted = set(names)
    unknown = wanted - set(values)
    if unknown:
        raise ValueError(f"unknown query parameters: {sorted(unknown)}")
    return {name: value for name, value in values.items() if name in wanted and value is not None}


def _str_or_none(value: int | None) -> str | None:
    return None if value is None else str(value)


def _iso_or_none(value: date | None) -> str | None:
    return None if value is None else value.isoformat()


def _instant_or_none(value: datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

"""From the view state to the request: the period of a date range, and the one
`ExecutionQuery` a page asks the service with.

The executions page and the results page (looking for the execution a link names) build their
query here, from the same state, so the second finds the first's answer in the cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import pandas as pd

from api_client import ExecutionQuery
from dashboard.analytics import standup, windows
from dashboard.state.params import DEFAULT_STANDUP_AT, DateRange, ViewState

_PRESET_SPANS = {
    DateRange.LAST_24_HOURS: timedelta(hours=24),
    DateRange.LAST_7_DAYS: timedelta(days=7),
    DateRange.LAST_30_DAYS: timedelta(days=30),
    DateRange.LAST_90_DAYS: timedelta(days=90),
}
# Preset periods start on a whole multiple of this, so that reruns within it ask the cache for
# the same period (and hit it) instead of one that moved by a few seconds.
PERIOD_GRANULARITY = timedelta(minutes=5)


@dataclass(frozen=True)
class Period:
    """The span of time to ask the service for. `end` None means "up to now"."""

    start: datetime | None
    end: datetime | None


def period(state: ViewState, now: datetime, *, tz: str | None = None) -> Period:
    """The period of the state's date range. Custom days are whole calendar days, inclusive, in
    the viewer's zone (`tz`, else the state's, else UTC): "1 Nov" in Istanbul starts at 21:00 UTC
    the day before."""
    if state.date_range is DateRange.CUSTOM:
        zone = _zone(tz or state.tz)
        start = (
            datetime.combine(state.date_from, time.min, zone).astimezone(UTC)
            if state.date_from
            else None
        )
        end = (
            datetime.combine(state.date_to + timedelta(days=1), time.min, zone).astimezone(UTC)
            - timedelta(milliseconds=1)
            if state.date_to
            else None
        )
        return Period(start, end)
    span = _PRESET_SPANS[state.date_range]
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    floored = now - (now - epoch) % PERIOD_GRANULARITY
    return Period(floored - span, None)


def execution_query(
    state: ViewState, *, now: datetime, email: str | None, tz: str | None = None
) -> ExecutionQuery:
    """What the executions page asks the service for `state`; "only mine" needs the viewer's
    e-mail. The status filter is applied to the loaded executions instead (several statuses
    at once, and changing it asks the service for nothing)."""
    span = period(state, now, tz=tz)
    return ExecutionQuery(
        project_id=state.project,
        plan_id=state.plan,
        date_from=span.start,
        date_to=span.end,
        email=email if state.mine and email else None,
    )


def preset_query(
    preset: DateRange, *, now: datetime, project: int | None = None, plan: int | None = None
) -> ExecutionQuery:
    """The executions page's own query of a preset for one project or plan (or all), any status
    and anyone's: the pages that ask it share one cache entry with that page."""
    state = ViewState(project=project, plan=plan, date_range=preset)
    return execution_query(state, now=now, email=None)


def standup_window(state: ViewState, now: datetime, *, tz: str) -> windows.Window:
    """The standup page's window: since the last standup (a working day back, at the state's
    time of the standup), or a custom range's whole days in the zone `tz`."""
    if state.date_range is DateRange.CUSTOM and (state.date_from or state.date_to):
        first = state.date_from or state.date_to
        last = state.date_to or state.date_from
        return windows.custom_window(first, last, tz=tz)
    return windows.standup_window(
        pd.Timestamp(now), tz=tz, at=state.standup_at or DEFAULT_STANDUP_AT
    )


def standup_query(state: ViewState, window: windows.Window) -> ExecutionQuery:
    """What the standup asks the service: from far enough back to judge each plan's state
    before the window (`standup.history_start`), to the end of a custom range."""
    custom_end = window.end.to_pydatetime() if state.date_range is DateRange.CUSTOM else None
    return ExecutionQuery(
        project_id=state.project,
        date_from=standup.history_start(window).to_pydatetime(),
        date_to=custom_end,
    )


def local_date(moment: datetime, tz: str | None) -> date:
    """The calendar day of `moment` in the zone `tz` (UTC for none)."""
    return moment.astimezone(_zone(tz)).date()


def _zone(name: str | None) -> ZoneInfo:
    """The named zone; UTC for none or a name this machine does not know (links are checked
    when read, so this is only a guard)."""
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")

"""From the view state to the request: the time window of a date range, and the one
`ExecutionQuery` a page asks the service with.

The executions page and the results page (looking for the execution a link names) build their
query here, from the same state, so the second finds the first's answer in the cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from api_client import ExecutionQuery
from dashboard.state.url import DateRange, ViewState

_PRESET_SPANS = {
    DateRange.LAST_24_HOURS: timedelta(hours=24),
    DateRange.LAST_7_DAYS: timedelta(days=7),
    DateRange.LAST_30_DAYS: timedelta(days=30),
    DateRange.LAST_90_DAYS: timedelta(days=90),
}
# Preset windows start on a whole multiple of this, so that reruns within it ask the cache for
# the same window (and hit it) instead of a window that moved by a few seconds.
WINDOW_GRANULARITY = timedelta(minutes=5)


@dataclass(frozen=True)
class TimeWindow:
    """The time window to ask the service for. `end` None means "up to now"."""

    start: datetime | None
    end: datetime | None


def time_window(state: ViewState, now: datetime, *, tz: str | None = None) -> TimeWindow:
    """The window of the state's date range. Custom days are whole calendar days, inclusive, in
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
        return TimeWindow(start, end)
    span = _PRESET_SPANS[state.date_range]
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    floored = now - (now - epoch) % WINDOW_GRANULARITY
    return TimeWindow(floored - span, None)


def execution_query(
    state: ViewState, *, now: datetime, email: str | None, tz: str | None = None
) -> ExecutionQuery:
    """What the executions page asks the service for `state`; "only mine" needs the viewer's
    e-mail. The status filter is applied to the loaded executions instead (several statuses
    at once, and changing it asks the service for nothing)."""
    window = time_window(state, now, tz=tz)
    return ExecutionQuery(
        project_id=state.project,
        plan_id=state.plan,
        date_from=window.start,
        date_to=window.end,
        email=email if state.mine and email else None,
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

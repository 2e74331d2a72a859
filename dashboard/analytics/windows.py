"""Standup window arithmetic: "since the last standup", a custom range, and the window before.

A standup happens on working days at a local wall-clock time (09:30 by default). Viewed at any
moment, "since the last standup" starts at that time on the previous working day: Tuesday's
standup looks back to Monday 09:30, Monday's (and a weekend visit's) to Friday 09:30. The day
is always the working day before the local calendar date of `now`, whether `now` is before or
after today's standup, because the screen is read at the standup itself.

Times are computed in the viewer's IANA zone (zoneinfo) as wall time, so a window across a
daylight-saving change still starts at 09:30 local and simply holds 23 or 25 hours more or
less. A wall time that does not exist (skipped by a spring change) or exists twice (an autumn
change) resolves as Python's `fold=0` does: the offset in force before the change.

Every window is half-open, `start <= t < end`, with both ends as UTC Timestamps.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import pandas as pd

from dashboard.columns.shapes import as_utc

DEFAULT_STANDUP_TIME = time(9, 30)
WORKING_DAYS: frozenset[int] = frozenset({0, 1, 2, 3, 4})  # Monday..Friday (date.weekday())


@dataclass(frozen=True)
class Window:
    """A span of time `[start, end)` in UTC, and the zone its edges are meant to be read in."""

    start: pd.Timestamp
    end: pd.Timestamp
    tz: str = "UTC"
    kind: str = "custom"  # "standup" or "custom": how the window was chosen

    def __post_init__(self) -> None:
        start, end = as_utc(self.start, "window start"), as_utc(self.end, "window end")
        if not start < end:
            raise ValueError(f"a window must end after it starts (got {start} to {end})")
        zone(self.tz)
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "end", end)

    @property
    def length(self) -> pd.Timedelta:
        return self.end - self.start

    def previous(self) -> Window:
        """The window of equal length that ends where this one starts."""
        return Window(self.start - self.length, self.start, self.tz, self.kind)

    def contains(self, times: pd.Series) -> pd.Series:
        """Boolean mask of the instants in `[start, end)`; missing times are outside."""
        return (times >= self.start) & (times < self.end)

    def local_start(self) -> datetime:
        return self.start.tz_convert(self.tz).to_pydatetime()

    def local_end(self) -> datetime:
        return self.end.tz_convert(self.tz).to_pydatetime()


def zone(name: str) -> ZoneInfo:
    """The IANA zone called `name`, or a ValueError that says which name is unknown."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"a time zone name is required, got {name!r}")
    try:
        return ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise ValueError(f"unknown time zone {name!r}") from error


_TIME_OF_DAY = re.compile(r"^\s*([01]?\d|2[0-3]):([0-5]\d)\s*$")


def parse_time_of_day(text: str) -> time:
    """ "09:30" or "9:30" as a time; anything else is a ValueError (the URL carries this)."""
    match = _TIME_OF_DAY.match(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"a time of day looks like 09:30, got {text!r}")
    return time(int(match[1]), int(match[2]))


def previous_working_day(
    day: date,
    *,
    working_days: Iterable[int] = WORKING_DAYS,
    holidays: Iterable[date] = (),
) -> date:
    """The last working day strictly before `day` (Monday -> Friday with the default week)."""
    workdays = frozenset(working_days)
    if not workdays or not workdays <= set(range(7)):
        raise ValueError(f"working days are weekday numbers 0-6, at least one: {sorted(workdays)}")
    off = frozenset(holidays)
    candidate = day - timedelta(days=1)
    for _ in range(366 + 7):
        if candidate.weekday() in workdays and candidate not in off:
            return candidate
        candidate -= timedelta(days=1)
    raise ValueError("no working day in the year before; check the holidays")


def standup_window(
    now: datetime | pd.Timestamp,
    *,
    tz: str = "UTC",
    at: time = DEFAULT_STANDUP_TIME,
    working_days: Iterable[int] = WORKING_DAYS,
    holidays: Iterable[date] = (),
) -> Window:
    """Since the last standup: from `at` local time on the previous working day up to `now`."""
    current = as_utc(now, "now")
    local_zone = zone(tz)
    today = current.tz_convert(local_zone).date()
    day = previous_working_day(today, working_days=working_days, holidays=holidays)
    start = datetime.combine(day, at.replace(tzinfo=None), tzinfo=local_zone)
    return Window(pd.Timestamp(start), current, tz, "standup")


def custom_window(
    start: datetime | pd.Timestamp | date,
    end: datetime | pd.Timestamp | date,
    *,
    tz: str = "UTC",
) -> Window:
    """A chosen range. Dates mean whole local days (`end` inclusive: 1 Nov - 2 Nov is two days);
    naive datetimes are read as local wall time in `tz`; aware ones are taken as they are."""
    local_zone = zone(tz)

    def instant(value: object, name: str, *, is_end: bool) -> pd.Timestamp:
        if isinstance(value, date) and not isinstance(value, datetime):
            day = value + timedelta(days=1) if is_end else value
            return pd.Timestamp(datetime.combine(day, time(0), tzinfo=local_zone))
        if isinstance(value, datetime) and value.tzinfo is None:
            return pd.Timestamp(value.replace(tzinfo=local_zone))
        return as_utc(value, name)

    return Window(
        instant(start, "window start", is_end=False),
        instant(end, "window end", is_end=True),
        tz,
        "custom",
    )

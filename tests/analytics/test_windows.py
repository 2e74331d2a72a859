"""Standup window arithmetic: working days, weekends, time zones, the DST change, custom ranges."""

from __future__ import annotations

from datetime import date, datetime, time

import pandas as pd
import pytest

from dashboard.analytics.windows import (
    Window,
    custom_window,
    parse_time_of_day,
    previous_working_day,
    standup_window,
)
from dashboard.columns.schemas import UTC_TIME


def utc(text: str) -> pd.Timestamp:
    return pd.Timestamp(text, tz="UTC")


@pytest.mark.parametrize(
    ("now", "start"),
    [
        ("2025-04-08 09:45", "2025-04-07 09:30"),  # Tuesday, during standup -> Monday
        ("2025-04-08 07:00", "2025-04-07 09:30"),  # Tuesday, before standup -> Monday
        ("2025-04-07 10:00", "2025-04-04 09:30"),  # Monday -> Friday
        ("2025-04-05 12:00", "2025-04-04 09:30"),  # Saturday -> Friday
        ("2025-04-06 12:00", "2025-04-04 09:30"),  # Sunday -> Friday
        ("2025-04-04 23:59", "2025-04-03 09:30"),  # Friday -> Thursday
    ],
)
def test_the_window_starts_on_the_previous_working_day_in_utc(now: str, start: str) -> None:
    window = standup_window(utc(now))
    assert window.start == utc(start)
    assert window.end == utc(now)
    assert window.kind == "standup"


def test_the_previous_window_has_equal_length_and_ends_where_this_one_starts() -> None:
    window = standup_window(utc("2025-04-07 10:00"))  # Monday: from Friday 09:30, 72.5 h
    previous = window.previous()
    assert window.length == pd.Timedelta(hours=72, minutes=30)
    assert previous.end == window.start
    assert previous.start == utc("2025-04-01 09:00")
    assert previous.length == window.length


def test_the_window_is_in_the_viewers_local_time() -> None:
    # Tuesday 01:00 in Istanbul (UTC+3) is still Monday 22:00 in UTC.
    now = utc("2025-04-07 22:00")
    istanbul = standup_window(now, tz="Europe/Istanbul")
    assert istanbul.start == utc("2025-04-07 06:30")  # Monday 09:30 in Istanbul
    in_utc = standup_window(now)
    assert in_utc.start == utc("2025-04-04 09:30")  # Monday in UTC -> Friday
    # Monday 08:00 in New York is Monday 12:00 UTC: the window starts Friday 09:30 New York.
    new_york = standup_window(utc("2025-04-07 12:00"), tz="America/New_York")
    assert new_york.start == utc("2025-04-04 13:30")
    assert new_york.local_start() == datetime(
        2025, 4, 4, 9, 30, tzinfo=new_york.local_start().tzinfo
    )


def test_a_window_across_the_dst_change_keeps_the_local_wall_time() -> None:
    # Europe/Berlin springs forward on Sunday 30 March 2025 (CET +1 -> CEST +2).
    monday = standup_window(utc("2025-03-31 08:00"), tz="Europe/Berlin")  # 10:00 CEST
    assert monday.start == utc("2025-03-28 08:30")  # Friday 09:30 CET
    assert monday.local_start().hour == 9
    assert monday.local_start().minute == 30
    assert monday.length == pd.Timedelta(hours=71, minutes=30)  # one hour lost over the weekend
    # ...and falls back on Sunday 26 October 2025: the weekend is an hour longer.
    autumn = standup_window(utc("2025-10-27 09:00"), tz="Europe/Berlin")  # 10:00 CET
    assert autumn.start == utc("2025-10-24 07:30")  # Friday 09:30 CEST
    assert autumn.length == pd.Timedelta(hours=73, minutes=30)
    # A US change on a working day: Monday 10 March 2025 after the Sunday change.
    us = standup_window(utc("2025-03-11 14:00"), tz="America/New_York")  # Tue 10:00 EDT
    assert us.start == utc("2025-03-10 13:30")  # Monday 09:30 EDT


def test_the_standup_time_and_week_are_configurable() -> None:
    window = standup_window(utc("2025-04-08 12:00"), at=time(14, 0))
    assert window.start == utc("2025-04-07 14:00")
    # A Sunday-to-Thursday week: Sunday's standup looks back to Thursday.
    sunday = standup_window(utc("2025-04-06 12:00"), working_days={6, 0, 1, 2, 3})
    assert sunday.start == utc("2025-04-03 09:30")
    # A holiday on Friday pushes Monday's window back to Thursday.
    holiday = standup_window(utc("2025-04-07 10:00"), holidays={date(2025, 4, 4)})
    assert holiday.start == utc("2025-04-03 09:30")


def test_a_standup_time_skipped_by_the_dst_change_resolves_before_the_change() -> None:
    # 02:30 on 30 March 2025 does not exist in Berlin; fold=0 reads it with the CET offset.
    window = standup_window(
        utc("2025-03-31 10:00"), tz="Europe/Berlin", at=time(2, 30), working_days=range(7)
    )
    assert window.start == utc("2025-03-30 01:30")


def test_custom_ranges() -> None:
    days = custom_window(date(2025, 4, 1), date(2025, 4, 2), tz="Europe/Istanbul")
    assert days.start == utc("2025-03-31 21:00")
    assert days.end == utc("2025-04-02 21:00")  # the end day is included
    assert days.kind == "custom"
    naive = custom_window(datetime(2025, 4, 1, 8), datetime(2025, 4, 1, 18), tz="Europe/Berlin")
    assert naive.start == utc("2025-04-01 06:00")
    aware = custom_window(utc("2025-04-01 08:00"), utc("2025-04-01 09:00"), tz="Asia/Tokyo")
    assert (aware.start, aware.end) == (utc("2025-04-01 08:00"), utc("2025-04-01 09:00"))
    assert aware.previous().start == utc("2025-04-01 07:00")


def test_window_membership_is_half_open_and_ignores_missing_times() -> None:
    window = custom_window(utc("2025-04-01 08:00"), utc("2025-04-01 09:00"))
    times = pd.Series(
        [utc("2025-04-01 07:59:59"), utc("2025-04-01 08:00"), utc("2025-04-01 09:00"), pd.NaT],
        dtype=UTC_TIME,
    )
    assert window.contains(times).tolist() == [False, True, False, False]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: standup_window(utc("2025-04-08 10:00"), tz="Mars/Olympus"), "unknown time zone"),
        (lambda: standup_window(datetime(2025, 4, 8, 10)), "needs a time zone"),
        (lambda: custom_window(date(2025, 4, 2), date(2025, 4, 1)), "must end after"),
        (lambda: Window(utc("2025-04-02"), utc("2025-04-02")), "must end after"),
        (lambda: standup_window(utc("2025-04-08"), working_days=set()), "working days"),
        (lambda: standup_window(utc("2025-04-08"), working_days={7}), "working days"),
        (lambda: parse_time_of_day("25:00"), "looks like 09:30"),
        (lambda: standup_window(pd.NaT), "required"),
        (lambda: custom_window("yesterday", utc("2025-04-02")), "not a point in time"),
    ],
)
def test_bad_input_gets_a_clear_error(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        call()


def test_parse_time_of_day() -> None:
    assert parse_time_of_day("09:30") == time(9, 30)
    assert parse_time_of_day(" 7:05 ") == time(7, 5)


def test_previous_working_day() -> None:
    assert previous_working_day(date(2025, 4, 7)) == date(2025, 4, 4)
    assert previous_working_day(date(2025, 4, 9)) == date(2025, 4, 8)

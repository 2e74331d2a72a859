"""Red stretches, time to green and its trend, the week's turns, and failure groups' ages, on
hand-built histories whose answers are worked out by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from dashboard.analytics.red_stretches import (
    TREND_MIN_STRETCHES,
    failure_group_ages,
    red_stretches,
    time_to_green,
)
from tests.analytics.frames import execution, executions, ts

NOW = ts("2025-06-30 12:00")
H = pd.Timedelta(hours=1)
D = pd.Timedelta(days=1)


def plan_history(
    plan_id: int, first_id: int, pattern: str, start: str, every: pd.Timedelta
) -> list[dict]:
    """One execution per character: P passed, F failed, R running, N finished with no verdict."""
    kinds = {"P": "pass", "F": "fail", "R": "running", "N": "none"}
    begin = ts(start)
    return [
        execution(first_id + i, plan_id, str(begin + i * every), kinds[ch])
        for i, ch in enumerate(pattern)
    ]


def test_stretches_start_and_end_where_the_verdicts_change() -> None:
    # Plan 1, every 6 hours from 1 June: PPFFFPPFPN F R: three stretches; the last still red
    # (the running execution and the one without a verdict are skipped).
    frame = executions(plan_history(1, 100, "PPFFFPPFPNFR", "2025-06-01 00:00", 6 * H))
    found = red_stretches(frame, now=NOW)

    assert list(found["first_red_execution_id"]) == [110, 107, 102]  # newest first
    newest, middle, oldest = (found.iloc[i] for i in range(3))
    assert (oldest["executions"], oldest["last_red_execution_id"]) == (3, 104)
    assert oldest["green_execution_id"] == 105
    assert oldest["red_from"] == ts("2025-06-01 12:00")
    assert oldest["red_to"] == ts("2025-06-02 06:00")
    assert oldest["duration"] == 18 * H
    assert oldest["last_green_execution_id"] == 101
    assert not oldest["open"]
    assert not oldest["from_is_bound"]
    assert (middle["executions"], middle["green_execution_id"], middle["duration"]) == (
        1,
        108,
        6 * H,
    )
    # The open stretch runs to now, and its last green is the one before the skipped one.
    assert newest["open"]
    assert pd.isna(newest["green_execution_id"])
    assert pd.isna(newest["red_to"])
    assert newest["duration"] == NOW - ts("2025-06-03 12:00")
    assert newest["last_green_execution_id"] == 108


def test_a_plan_red_from_its_first_execution_is_red_at_least_since_then() -> None:
    frame = executions(
        plan_history(1, 1, "FFP", "2025-06-01 00:00", D)
        + plan_history(2, 10, "FFF", "2025-06-01 00:00", D)
    )
    found = red_stretches(frame, now=NOW).set_index("plan_id")

    assert found.loc[1, "from_is_bound"]
    assert not found.loc[1, "open"]
    assert pd.isna(found.loc[1, "last_green_execution_id"])
    assert found.loc[2, "from_is_bound"]
    assert found.loc[2, "open"]
    assert found.loc[2, "executions"] == 3


def test_stretches_never_run_from_one_plan_into_the_next() -> None:
    frame = executions(
        plan_history(1, 1, "PF", "2025-06-01 00:00", D)
        + plan_history(2, 10, "FP", "2025-06-01 00:00", D)
    )
    found = red_stretches(frame, now=NOW).set_index("plan_id")

    assert found.loc[1, "open"]  # plan 2's pass does not end plan 1's stretch
    assert found.loc[2, "from_is_bound"]  # plan 1's pass is not plan 2's last green
    assert found.loc[2, "green_execution_id"] == 11


def test_time_to_green_medians_over_30_and_90_days_and_the_trend() -> None:
    rows = []
    # Plan 1: in the 60 days before the last 30, two stretches of 4 h and 8 h (median 6 h);
    # in the last 30 days, stretches of 1 h, 2 h and 3 h (median 2 h): 3x faster, -67 %.
    for n, (start, hours) in enumerate(
        [
            ("2025-04-10", 4),
            ("2025-05-10", 8),
            ("2025-06-05", 1),
            ("2025-06-10", 2),
            ("2025-06-20", 3),
        ]
    ):
        base = ts(f"{start} 00:00")
        rows += [
            execution(1000 + 10 * n, 1, str(base - H), "pass"),
            execution(1001 + 10 * n, 1, str(base), "fail"),
            execution(1002 + 10 * n, 1, str(base + hours * H), "pass"),
        ]
    # Plan 2: green all along. Plan 3: never green (red at least since its first execution).
    rows += plan_history(2, 2000, "PPPP", "2025-06-01 00:00", D)
    rows += plan_history(3, 3000, "FFFF", "2025-06-25 00:00", D)
    found = time_to_green(executions(rows), now=NOW)
    plans = found.plans.set_index("plan_id")

    one = plans.loc[1]
    assert (one["stretches_short"], one["median_short"]) == (3, 2 * H)
    assert (one["stretches_long"], one["median_long"]) == (5, 3 * H)
    # The trend: the newer half of the 5 stretches (1 h, 2 h, 3 h) against the older (4 h, 8 h).
    assert (one["median_newer"], one["median_older"]) == (2 * H, 6 * H)
    assert one["trend"] == pytest.approx(2 / 6 - 1)
    assert not one["red_now"]
    assert one["ever_green"]

    green = plans.loc[2]
    assert green["stretches"] == 0
    assert pd.isna(green["median_short"])
    assert pd.isna(green["trend"])

    never = plans.loc[3]
    assert never["red_now"]
    assert not never["ever_green"]
    assert never["red_for_is_bound"]
    assert never["red_for"] == NOW - ts("2025-06-25 00:00")
    assert never["red_executions"] == 4
    # Its length is a bound, not a time to green: no median, no trend.
    assert pd.isna(never["median_short"])
    assert pd.isna(never["median_long"])
    # Red plans first.
    assert list(found.plans["plan_id"]) == [3, 1, 2]


def _stretches(plan_id: int, first_id: int, ends: list[tuple[str, int]]) -> list[dict]:
    """One closed red stretch per (day it turned green, its length in hours), each between
    passes."""
    rows: list[dict] = []
    for n, (day, hours) in enumerate(ends):
        green = ts(f"{day} 12:00")
        rows += [
            execution(first_id + 3 * n, plan_id, str(green - (hours + 1) * H), "pass"),
            execution(first_id + 3 * n + 1, plan_id, str(green - hours * H), "fail"),
            execution(first_id + 3 * n + 2, plan_id, str(green), "pass"),
        ]
    return rows


def test_the_trend_needs_enough_stretches_not_history_older_than_30_days() -> None:
    """Four stretches that all turned green in the last 30 days are enough: the newer two
    (1 h, 3 h: median 2 h) against the older two (6 h, 10 h: median 8 h), -75 %. Three are not;
    the plan says how many it has."""
    four = [("2025-06-10", 6), ("2025-06-14", 10), ("2025-06-20", 1), ("2025-06-25", 3)]
    rows = _stretches(1, 100, four) + _stretches(2, 200, four[:3])
    found = time_to_green(executions(rows), now=NOW)
    plans = found.plans.set_index("plan_id")

    assert found.trend_min_stretches == TREND_MIN_STRETCHES == 4
    assert plans.loc[1, "trend"] == pytest.approx(2 / 8 - 1)
    assert (plans.loc[1, "median_newer"], plans.loc[1, "median_older"]) == (2 * H, 8 * H)
    assert pd.isna(plans.loc[2, "trend"])
    assert plans.loc[2, "stretches_long"] == 3


def test_the_trend_leaves_out_stretches_older_than_the_long_period_and_open_ones() -> None:
    # Two stretches ended 100 and 95 days ago: outside 90 days. Two inside, and one still red.
    ends = [("2025-03-22", 50), ("2025-03-27", 50), ("2025-06-10", 2), ("2025-06-20", 4)]
    rows = [*_stretches(1, 100, ends), execution(200, 1, "2025-06-29 00:00", "fail")]
    plans = time_to_green(executions(rows), now=NOW).plans.set_index("plan_id")

    assert plans.loc[1, "stretches_long"] == 2
    assert pd.isna(plans.loc[1, "trend"])


def test_the_week_counts_turns_red_and_back() -> None:
    rows = (
        plan_history(1, 1, "PFP", "2025-06-26 00:00", D)  # red 27 Jun, green 28 Jun
        + plan_history(2, 10, "PPF", "2025-06-26 00:00", D)  # red 28 Jun, still
        + plan_history(3, 20, "PFP", "2025-06-01 00:00", D)  # both long before the week
        + plan_history(4, 30, "FFP", "2025-06-27 00:00", D)  # green this week; red before it
    )
    turns = time_to_green(executions(rows), now=NOW).turns

    assert (turns.turned_red, turns.back_to_green, turns.days) == (2, 2, 7)


def test_a_stretch_without_a_judged_execution_is_no_stretch() -> None:
    found = time_to_green(executions(plan_history(1, 1, "NRR", "2025-06-29 00:00", H)), now=NOW)
    assert found.stretches.empty
    assert found.plans.empty
    assert (found.turns.turned_red, found.turns.back_to_green) == (0, 0)


def test_failure_group_ages_and_their_bounds() -> None:
    runs = executions(
        plan_history(1, 1, "PFF", "2025-06-20 00:00", D)
        + plan_history(2, 10, "FP", "2025-06-25 00:00", D)
    )
    groups = pd.DataFrame(
        {
            "signature": ["late", "from the start"],
            "first_seen": [ts("2025-06-21 00:05"), ts("2025-06-25 00:05")],
            "last_seen": [ts("2025-06-22 00:05"), ts("2025-06-25 00:05")],
            "execution_ids": [(2, 3), (10,)],
        }
    )
    ages = failure_group_ages(groups, runs, now=NOW)

    assert list(ages["signature"]) == ["late", "from the start"]
    assert ages["age"].iloc[0] == NOW - ts("2025-06-21 00:05")
    assert ages["since_last"].iloc[0] == NOW - ts("2025-06-22 00:05")
    # Plan 1 passed before the group's first failure; plan 2's first execution already had it.
    assert list(ages["first_seen_is_bound"]) == [False, True]

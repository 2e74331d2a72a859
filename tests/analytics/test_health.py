"""Plan health on a hand-built history. "Now" is Monday 7 April 2025 10:00 UTC."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from dashboard.analytics.health import HEALTH_COLUMNS, plan_health
from tests.analytics.frames import execution, executions, ts

NOW = ts("2025-04-07 10:00")


def history() -> pd.DataFrame:
    return executions(
        [
            execution(1, 1, "2025-03-01 10:00", "pass", plan="Alpha"),  # before the 30 days
            execution(2, 1, "2025-03-20 10:00", "fail", plan="Alpha"),
            execution(3, 1, "2025-03-25 10:00", "pass", plan="Alpha", runtime_ms=60_000),
            execution(4, 1, "2025-03-28 10:00", "pass", plan="Alpha", runtime_ms=60_000),
            execution(5, 1, "2025-04-01 10:00", "pass", plan="Alpha", runtime_ms=90_000),
            execution(6, 1, "2025-04-03 10:00", "fail", plan="Alpha", runtime_ms=90_000),
            execution(7, 1, "2025-04-06 10:00", "fail", plan="Alpha", runtime_ms=90_000),
            execution(8, 1, "2025-04-07 09:00", "running", plan="Alpha"),
            execution(20, 2, "2025-02-01 10:00", "pass", plan="Beta"),  # only an old one
            execution(30, 3, "2025-04-06 10:00", "warn", plan="Gamma"),
            execution(31, 3, "2025-04-07 11:00", "pass", plan="Gamma"),  # after now: ignored
        ]
    )


def test_one_row_per_plan_with_known_figures() -> None:
    health = plan_health(history(), now=NOW)
    plans = health.plans.set_index("plan_id")
    assert list(health.plans.columns) == list(HEALTH_COLUMNS)
    assert health.plans["plan"].tolist() == ["Alpha", "Beta", "Gamma"]
    alpha = plans.loc[1]
    assert alpha["pass_rate_short"] == pytest.approx(26 / 30)
    assert alpha["pass_rate_long"] == pytest.approx(54 / 60)
    assert (alpha["executions_short"], alpha["executions_long"]) == (4, 7)
    assert (alpha["finished_long"], alpha["running"]) == (6, 1)
    assert alpha["latest_execution_id"] == 7
    assert alpha["latest_outcome"] == "fail"
    assert alpha["running_execution_id"] == 8
    assert alpha["streak"] == 2
    assert alpha["streak_since"] == ts("2025-04-03 10:00")
    assert alpha["last_fully_green_start"] == ts("2025-04-01 10:00")
    assert alpha["since_fully_green"] == pd.Timedelta(days=6)
    # One finished execution in the last 3 days: too few for a median, so no trend.
    assert math.isnan(alpha["median_runtime_ms_recent"])
    assert alpha["median_runtime_ms_baseline"] == 75_000
    assert math.isnan(alpha["runtime_trend"])


def daily(plan_id: int, minutes_before: int, minutes_since: int, since: str) -> list:
    """A plan run every day at 08:00 from 1 March to 7 April, `minutes_before` long until
    `since` and `minutes_since` long from then on."""
    days = pd.date_range("2025-03-01 08:00", "2025-04-07 08:00", freq="D", tz="UTC")
    return [
        execution(
            plan_id * 1000 + i,
            plan_id,
            day.strftime("%Y-%m-%d %H:%M"),
            runtime_ms=(minutes_since if day >= ts(since) else minutes_before) * 60_000,
        )
        for i, day in enumerate(days)
    ]


def test_a_plan_that_doubled_three_days_ago_reads_about_plus_100_percent() -> None:
    doubled = daily(1, 10, 20, since="2025-04-05 00:00")  # 5, 6 and 7 April took 20 minutes
    steady = daily(2, 10, 10, since="2025-04-05 00:00")
    plans = plan_health(executions(doubled + steady), now=NOW).plans.set_index("plan_id")
    assert plans.loc[1, "median_runtime_ms_recent"] == 20 * 60_000
    assert plans.loc[1, "median_runtime_ms_baseline"] == 10 * 60_000
    assert plans.loc[1, "runtime_trend"] == pytest.approx(1.0)
    assert plans.loc[2, "runtime_trend"] == pytest.approx(0.0)


def test_the_runtime_trend_needs_three_finished_executions_on_each_side() -> None:
    rare = [
        execution(1, 1, "2025-04-06 08:00", runtime_ms=1_200_000),
        execution(2, 1, "2025-04-05 08:00", runtime_ms=1_200_000),
        execution(3, 1, "2025-04-05 09:00", runtime_ms=1_200_000),
        execution(4, 1, "2025-03-30 08:00", runtime_ms=600_000),
        execution(5, 1, "2025-03-29 08:00", runtime_ms=600_000),
    ]
    alpha = plan_health(executions(rare), now=NOW).plans.iloc[0]
    assert alpha["median_runtime_ms_recent"] == 1_200_000
    assert math.isnan(alpha["median_runtime_ms_baseline"])
    assert math.isnan(alpha["runtime_trend"])


def test_the_daily_series_covers_the_last_30_local_days() -> None:
    health = plan_health(history(), now=NOW)
    assert len(health.days) == 30
    assert (health.days[0], health.days[-1]) == ("2025-03-09", "2025-04-07")
    daily = health.plans.set_index("plan_id").loc[1, "daily_pass_rate"]
    assert len(daily) == 30
    assert daily[health.days.index("2025-03-20")] == pytest.approx(0.8)
    assert daily[health.days.index("2025-03-25")] == 1.0
    assert daily[health.days.index("2025-04-06")] == pytest.approx(0.8)
    assert math.isnan(daily[-1])  # only a running execution today
    assert sum(not math.isnan(v) for v in daily) == 6


def test_a_plan_without_recent_executions_keeps_its_latest_verdict() -> None:
    beta = plan_health(history(), now=NOW).plans.set_index("plan_id").loc[2]
    assert beta["executions_long"] == 0
    assert math.isnan(beta["pass_rate_long"])
    assert beta["latest_outcome"] == "pass"
    assert all(math.isnan(v) for v in beta["daily_pass_rate"])


def test_warnings_pass_but_are_not_fully_green_and_the_future_is_ignored() -> None:
    gamma = plan_health(history(), now=NOW).plans.set_index("plan_id").loc[3]
    assert gamma["latest_outcome"] == "pass"
    assert gamma["latest_execution_id"] == 30
    assert pd.isna(gamma["last_fully_green_start"])
    assert pd.isna(gamma["since_fully_green"])
    assert gamma["pass_rate_short"] == 0.0


def test_days_are_local_to_the_viewer() -> None:
    late = executions([execution(1, 1, "2025-04-06 22:30", "pass")])  # 01:30 on 7 April in Istanbul
    utc_days = plan_health(late, now=NOW).plans.loc[0, "daily_pass_rate"]
    istanbul = plan_health(late, now=NOW, tz="Europe/Istanbul").plans.loc[0, "daily_pass_rate"]
    assert utc_days[-2] == 1.0
    assert math.isnan(utc_days[-1])
    assert istanbul[-1] == 1.0


def test_the_basis_counts_the_long_period() -> None:
    basis = plan_health(history(), now=NOW).basis
    assert (basis.executions, basis.finished, basis.running) == (8, 7, 1)
    assert basis.start == ts("2025-03-08 10:00")
    assert basis.end == NOW
    assert basis.first == ts("2025-03-20 10:00")


def test_empty_and_bad_input() -> None:
    empty = plan_health(executions([]), now=NOW)
    assert empty.plans.empty
    assert list(empty.plans.columns) == list(HEALTH_COLUMNS)
    with pytest.raises(ValueError, match="short_days"):
        plan_health(history(), now=NOW, short_days=40)
    with pytest.raises(ValueError, match="passed"):
        plan_health(history().drop(columns="passed"), now=NOW)

"""The executions page's charts in the viewer's zone (issue 15): days are local calendar days,
start times on the axes and in hovers are local wall-clock times, and each axis says its zone."""

from __future__ import annotations

import pandas as pd
import pytest

from dashboard.analytics.executions import pass_rate_per_day, status_counts_per_day
from dashboard.present import charts, runtime_chart
from tests.analytics.frames import execution, executions

TOKYO = "Asia/Tokyo"


def runs() -> pd.DataFrame:
    """Three finished runs of one plan on 20 Nov UTC; in Tokyo (UTC+9) the last two are on the
    21st."""
    return executions(
        [
            execution(1, 7, "2026-11-20 14:00", "pass", runtime_ms=60_000),  # 23:00 on the 20th
            execution(2, 7, "2026-11-20 16:00", "fail", runtime_ms=120_000),  # 01:00 on the 21st
            execution(3, 7, "2026-11-20 20:00", "pass", runtime_ms=240_000),  # 05:00 on the 21st
        ]
    )


def status_counts(frame: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "execution_id": frame["execution_id"],
            "start": frame["start"],
            "status": frame["status"],
            "count": frame["results"],
        }
    )


def test_runtime_points_are_at_tokyo_wall_clock_times() -> None:
    fig = runtime_chart.runtime_trend(runs(), tz=TOKYO)

    (trace,) = fig.data
    assert [pd.Timestamp(x) for x in trace.x] == [
        pd.Timestamp("2026-11-20 23:00"),
        pd.Timestamp("2026-11-21 01:00"),
        pd.Timestamp("2026-11-21 05:00"),
    ]
    assert fig.layout.xaxis.title.text == f"Start ({TOKYO})"
    utc = runtime_chart.runtime_trend(runs())
    assert pd.Timestamp(utc.data[0].x[0]) == pd.Timestamp("2026-11-20 14:00")
    assert utc.layout.xaxis.title.text == "Start (UTC)"


def test_runtime_medians_are_per_tokyo_day(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime_chart, "RUNTIME_POINT_LIMIT", 2)  # three runs: daily medians

    in_tokyo = runtime_chart.runtime_trend(runs(), tz=TOKYO)
    in_utc = runtime_chart.runtime_trend(runs())

    assert runtime_chart.runtime_is_aggregated(runs())
    (tokyo,) = in_tokyo.data
    assert [pd.Timestamp(x) for x in tokyo.x] == [
        pd.Timestamp("2026-11-20"),
        pd.Timestamp("2026-11-21"),
    ]
    assert list(tokyo.y) == [1.0, 3.0]  # 1 min alone; median of 2 and 4 min
    assert [row[3] for row in tokyo.customdata] == [1, 2]  # executions per day
    (utc,) = in_utc.data
    assert [pd.Timestamp(x) for x in utc.x] == [pd.Timestamp("2026-11-20")]
    assert list(utc.y) == [2.0]
    assert [row[3] for row in utc.customdata] == [3]


def test_the_per_execution_hover_says_the_local_start() -> None:
    frame = runs()

    fig = charts.status_per_execution(status_counts(frame), frame, tz=TOKYO)

    hovers = {text for trace in fig.data for text in trace.customdata}
    assert "Plan 7<br>21 Nov 2026 01:00 Asia/Tokyo" in hovers
    assert "Plan 7<br>20 Nov 2026 23:00 Asia/Tokyo" in hovers
    utc = charts.status_per_execution(status_counts(frame), frame)
    assert "Plan 7<br>20 Nov 2026 16:00 UTC" in {t for tr in utc.data for t in tr.customdata}


def test_day_charts_draw_local_days_and_name_their_zone() -> None:
    frame = runs()

    per_day = charts.status_per_day(status_counts_per_day(status_counts(frame), tz=TOKYO))
    rate = charts.pass_rate_trend(pass_rate_per_day(frame, tz=TOKYO))

    bars = {trace.name: trace for trace in per_day.data}
    assert [pd.Timestamp(x) for x in bars["SUCCESS"].x] == [
        pd.Timestamp("2026-11-20"),
        pd.Timestamp("2026-11-21"),
    ]
    assert list(bars["SUCCESS"].y) == [10, 10]
    assert [pd.Timestamp(x) for x in bars["FAILURE"].x] == [pd.Timestamp("2026-11-21")]
    assert per_day.layout.xaxis.title.text == f"Day ({TOKYO})"
    (line,) = rate.data
    assert [pd.Timestamp(x) for x in line.x] == [
        pd.Timestamp("2026-11-20"),
        pd.Timestamp("2026-11-21"),
    ]
    assert list(line.y) == [100.0, 90.0]  # 18 of 20 on the 21st
    assert rate.layout.xaxis.title.text == f"Day ({TOKYO})"
    assert charts.pass_rate_trend(pass_rate_per_day(frame)).layout.xaxis.title.text == "Day (UTC)"

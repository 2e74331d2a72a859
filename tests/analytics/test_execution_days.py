"""Per-day summaries of executions count each execution on its start's calendar day in the
viewer's zone (issue 15): a run at 22:30 UTC is on the next day in Istanbul."""

from __future__ import annotations

import math

import pandas as pd
import pandas.testing as pdt
import pytest

from dashboard.analytics.executions import local_days, pass_rate_per_day, status_counts_per_day
from dashboard.columns.schemas import UTC_TIME
from tests.analytics.frames import execution, executions

ISTANBUL = "Europe/Istanbul"
BERLIN = "Europe/Berlin"


def counts(rows: list[tuple[int, str | None, str, int]]) -> pd.DataFrame:
    """A status-counts frame (as `frames.status_counts_frame` makes) from (id, start, status,
    count) rows; a start of None is unknown."""
    return pd.DataFrame(
        {
            "execution_id": [r[0] for r in rows],
            "start": pd.to_datetime([r[1] for r in rows], utc=True).as_unit("us"),
            "status": [r[2] for r in rows],
            "count": [r[3] for r in rows],
        }
    ).astype({"execution_id": "int64", "start": UTC_TIME, "status": "str", "count": "int64"})


def days(texts: list[str], tz: str) -> pd.Series:
    """Local midnights of `tz`, as the `day` column holds them."""
    return pd.Series(pd.to_datetime(texts).tz_localize(tz).as_unit("us"), name="day")


def test_an_evening_run_in_utc_is_on_the_next_day_in_istanbul() -> None:
    frame = counts([(1, "2026-11-20 22:30", "SUCCESS", 3), (2, "2026-11-20 20:30", "FAILURE", 1)])

    in_istanbul = status_counts_per_day(frame, tz=ISTANBUL)
    in_utc = status_counts_per_day(frame, tz="UTC")

    # 20:30 UTC is 23:30 in Istanbul (still the 20th); 22:30 UTC is 01:30 on the 21st.
    pdt.assert_series_equal(in_istanbul["day"], days(["2026-11-20", "2026-11-21"], ISTANBUL))
    assert in_istanbul["status"].tolist() == ["FAILURE", "SUCCESS"]
    assert in_istanbul["count"].tolist() == [1, 3]
    assert str(in_istanbul["day"].dtype) == f"datetime64[us, {ISTANBUL}]"
    # In UTC both are on the 20th, and the frame is what it always was.
    assert in_utc["day"].tolist() == [pd.Timestamp("2026-11-20", tz="UTC")] * 2
    assert str(in_utc["day"].dtype) == UTC_TIME
    pdt.assert_frame_equal(in_utc, status_counts_per_day(frame))


def test_the_pass_rate_of_a_day_counts_the_runs_of_that_local_day() -> None:
    frame = executions(
        [
            execution(1, 1, "2026-11-20 22:30", "fail", results=10, failed=5),  # 21st in Istanbul
            execution(2, 1, "2026-11-20 12:00", "pass", results=10),
            execution(3, 1, "2026-11-21 09:00", "pass", results=10),
        ]
    )

    in_istanbul = pass_rate_per_day(frame, tz=ISTANBUL)
    in_utc = pass_rate_per_day(frame)

    pdt.assert_series_equal(in_istanbul["day"], days(["2026-11-20", "2026-11-21"], ISTANBUL))
    assert in_istanbul["executions"].tolist() == [1, 2]
    assert in_istanbul["pass_rate"].tolist() == [1.0, 0.75]  # 15 of 20 on the 21st
    assert in_utc["day"].tolist() == [
        pd.Timestamp("2026-11-20", tz="UTC"),
        pd.Timestamp("2026-11-21", tz="UTC"),
    ]
    assert in_utc["executions"].tolist() == [2, 1]
    assert in_utc["pass_rate"].tolist() == [0.75, 1.0]


def test_the_day_the_clocks_go_back_in_berlin_is_one_day_of_25_hours() -> None:
    # Berlin leaves summer time at 03:00 on 25 Oct 2026: that day runs from 22:00 UTC on the
    # 24th (00:00 CEST) to 23:00 UTC on the 25th (00:00 CET).
    frame = counts(
        [
            (1, "2026-10-24 21:59", "SUCCESS", 1),  # 23:59 CEST on the 24th
            (2, "2026-10-24 22:00", "SUCCESS", 2),  # 00:00 CEST on the 25th
            (3, "2026-10-25 22:59", "SUCCESS", 4),  # 23:59 CET on the 25th
            (4, "2026-10-25 23:00", "SUCCESS", 8),  # 00:00 CET on the 26th
        ]
    )

    per_day = status_counts_per_day(frame, tz=BERLIN)

    pdt.assert_series_equal(
        per_day["day"], days(["2026-10-24", "2026-10-25", "2026-10-26"], BERLIN)
    )
    assert per_day["count"].tolist() == [1, 6, 8]
    # Each day begins at its own local midnight: +02:00 before the change, +01:00 after.
    assert [d.utcoffset() for d in per_day["day"]] == [
        pd.Timedelta(hours=2),
        pd.Timedelta(hours=2),
        pd.Timedelta(hours=1),
    ]
    assert status_counts_per_day(frame)["count"].tolist() == [3, 12]  # UTC days: 24th, 25th


def test_a_day_that_begins_in_a_skipped_hour_begins_at_its_first_real_instant() -> None:
    # Chile's summer time begins on 6 Sep 2026 at midnight: the clocks go from 00:00 to 01:00.
    starts = pd.Series(pd.to_datetime(["2026-09-06 04:30"], utc=True).as_unit("us"))

    (day,) = local_days(starts, "America/Santiago")

    assert day == pd.Timestamp("2026-09-06 01:00", tz="America/Santiago")
    assert day.tz_convert("UTC") == pd.Timestamp("2026-09-06 04:00", tz="UTC")


def test_an_unknown_start_is_left_out_in_any_zone() -> None:
    frame = counts([(1, None, "SUCCESS", 5), (2, "2026-11-20 22:30", "FAILURE", 1)])
    runs = executions(
        [execution(1, 1, "2026-11-20 22:30", "pass"), execution(2, 1, "2026-11-19 10:00", "pass")]
    )
    runs.loc[runs["execution_id"] == 2, "start"] = pd.NaT
    assert str(runs["start"].dtype) == UTC_TIME

    per_day = status_counts_per_day(frame, tz=ISTANBUL)
    rates = pass_rate_per_day(runs, tz=ISTANBUL)

    assert per_day["count"].tolist() == [1]
    assert rates["executions"].tolist() == [1]
    empty = status_counts_per_day(counts([(1, None, "SUCCESS", 5)]), tz=ISTANBUL)
    assert empty.empty
    assert str(empty["day"].dtype) == f"datetime64[us, {ISTANBUL}]"
    assert pass_rate_per_day(runs[runs["execution_id"] == 2], tz=ISTANBUL).empty


def test_an_unknown_zone_is_a_clear_error() -> None:
    frame = counts([(1, "2026-11-20 22:30", "SUCCESS", 1)])

    with pytest.raises(ValueError, match="unknown time zone 'Mars/Olympus'"):
        status_counts_per_day(frame, tz="Mars/Olympus")
    with pytest.raises(ValueError, match="unknown time zone"):
        pass_rate_per_day(executions([execution(1, 1, "2026-11-20 22:30")]), tz="Nowhere")


def test_a_day_without_a_verdict_has_no_rate_in_any_zone() -> None:
    frame = executions([execution(1, 1, "2026-11-20 22:30", "none")])

    (rate,) = pass_rate_per_day(frame, tz=ISTANBUL)["pass_rate"]

    assert math.isnan(rate)

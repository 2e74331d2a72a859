"""Which red stretches are made only of outages (`time_to_green_view.outage_only`), on a
hand-built history of three plans whose stretches overlap in time and whose outages fall inside
and outside them: the same stretches as the rule's first definition (a mask over every outage
per stretch), by searches per plan."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics import red_stretches
from dashboard.analytics.outages import OUTAGE_COLUMNS
from dashboard.columns.shapes import typed_rows
from dashboard.present.time_to_green_view import outage_only
from tests.analytics.frames import execution, executions, ts

NOW = ts("2026-11-20 09:00")

# (id, plan, start, failed?): plan 1 red at 01-02 (outages), 04-05 (one not) and 07 (open);
# plan 2 red at 01:30 (an outage) and 03:30-04:30 (outages); plan 3 red from its first run
# (an outage, "at least"), then 05:15-06:15 (one not).
RUNS = [
    (1, 1, "00:00", False),
    (2, 1, "01:00", True),
    (3, 1, "02:00", True),
    (4, 1, "03:00", False),
    (5, 1, "04:00", True),
    (6, 1, "05:00", True),
    (7, 1, "06:00", False),
    (8, 1, "07:00", True),
    (11, 2, "00:30", False),
    (12, 2, "01:30", True),
    (13, 2, "02:30", False),
    (14, 2, "03:30", True),
    (15, 2, "04:30", True),
    (16, 2, "05:30", False),
    (21, 3, "01:15", True),
    (22, 3, "03:15", False),
    (23, 3, "05:15", True),
    (24, 3, "06:15", True),
]
# Outages: 4 passed (no failure: never counted), 99 is another plan's, with no stretch.
OUTAGES = (2, 3, 4, 5, 12, 14, 15, 21, 23)


def history() -> pd.DataFrame:
    return executions(
        [
            execution(i, plan_id, f"2026-11-20 {at}", "fail" if red else "pass", plan=f"P{plan_id}")
            for i, plan_id, at, red in RUNS
        ]
    )


def outages(frame: pd.DataFrame) -> pd.DataFrame:
    rows = [
        {
            "execution_id": int(row.execution_id),
            "plan_id": int(row.plan_id),
            "plan": row.plan,
            "start": row.start,
            "verdicts": int(row.verdicts),
            "failed": int(row.failed),
            "failed_share": row.failed / row.verdicts,
            "state": "LIKELY",
        }
        for row in frame[frame["execution_id"].isin(OUTAGES)].itertuples()
    ]
    rows.append({**rows[0], "execution_id": 99, "plan_id": 9, "plan": "P9"})
    return typed_rows(rows, OUTAGE_COLUMNS)


def masked(stretches: pd.DataFrame, found: pd.DataFrame) -> pd.DataFrame:
    """The rule's first definition: every failing outage compared with every stretch."""
    failing = found[found["failed"] > 0]
    counted = [
        int(
            (
                (failing["plan_id"] == plan)
                & (failing["start"] >= red_from)
                & (failing["start"] <= last_red)
            ).sum()
        )
        for plan, red_from, last_red in zip(
            stretches["plan_id"], stretches["red_from"], stretches["last_red_start"], strict=True
        )
    ]
    return stretches[pd.Series(counted, index=stretches.index) >= stretches["executions"]]


def test_the_stretches_made_only_of_outages_are_found_per_plan() -> None:
    frame = history()
    stretches = red_stretches.red_stretches(frame, now=NOW)
    found = outages(frame)

    only = outage_only(stretches, found)

    assert sorted(only["first_red_execution_id"]) == [2, 12, 14, 21]
    assert len(stretches) == 7
    pd.testing.assert_frame_equal(only, masked(stretches, found))


def test_no_stretch_or_no_outage_is_no_stretch_made_of_outages() -> None:
    frame = history()
    stretches = red_stretches.red_stretches(frame, now=NOW)
    found = outages(frame)

    assert outage_only(stretches, found.iloc[0:0]).empty
    assert outage_only(stretches.iloc[0:0], found).empty
    # Outages of other plans only: none of these stretches.
    assert outage_only(stretches, found[found["plan_id"] == 9]).empty

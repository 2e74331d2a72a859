"""Outages on hand-built executions with known answers: 80 % of verdicts failed (and at least
5 of them) makes a likely outage with its dominant failure group; a mark confirms or dismisses
one; and an outage night left out of the flaky analysis removes a flaky score it would create."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from dashboard.analytics import flaky
from dashboard.analytics.outages import CONFIRMED, LIKELY, outages, without_outages
from dashboard.columns import marks as columns
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import empty, typed_rows
from tests.analytics.frames import CHROME, execution, executions, result, results, ts

NO_MARKS = empty(MARK_COLUMNS)


def outage_mark(mark_id: str, execution_id: int, kind: str) -> dict[str, Any]:
    return {
        "mark_id": mark_id,
        "company_id": 1,
        "target": columns.EXECUTION,
        "execution_id": execution_id,
        "kind": kind,
        "ticket": "https://status.example.com/incidents/42",
        "created_by": "ann",
        "created_at": ts("2026-11-24 09:00"),
        "updated_at": ts("2026-11-24 09:00"),
        "revision": 1,
    }


def runs() -> pd.DataFrame:
    return executions(
        [
            execution(1, 1, "2026-11-20 08:00", "fail", results=10, failed=8),  # 80 %: likely
            execution(2, 1, "2026-11-21 08:00", "fail", results=10, failed=7),  # 70 %: not
            execution(3, 2, "2026-11-21 09:00", "fail", results=4, failed=4),  # too few results
            execution(4, 2, "2026-11-22 09:00", "running-fail", results=10, failed=3),
            execution(5, 3, "2026-11-23 09:00", "fail", results=20, failed=20),  # 100 %
            execution(6, 3, "2026-11-23 10:00", "pass", results=20),
        ]
    )


def test_an_execution_with_most_verdicts_failed_is_a_likely_outage() -> None:
    found = outages(runs(), NO_MARKS)

    assert found["execution_id"].tolist() == [5, 1]  # newest first
    assert found["state"].tolist() == [LIKELY, LIKELY]
    assert found["failed_share"].tolist() == [1.0, 0.8]
    assert found["signature"].isna().all()  # results not read
    assert outages(runs(), NO_MARKS, share=0.7)["execution_id"].tolist() == [5, 2, 1]
    assert outages(runs(), NO_MARKS, min_results=4)["execution_id"].tolist() == [5, 3, 1]


def test_a_mark_confirms_an_outage_or_dismisses_one() -> None:
    marks = typed_rows(
        [
            outage_mark("confirm2", 2, columns.OUTAGE),
            outage_mark("dismiss5", 5, columns.NOT_AN_OUTAGE),
        ],
        MARK_COLUMNS,
    )

    found = outages(runs(), marks).set_index("execution_id")

    assert sorted(found.index) == [1, 2]
    assert found.loc[2, "state"] == CONFIRMED
    assert found.loc[2, "mark_id"] == "confirm2"
    assert found.loc[2, "ticket"] == "https://status.example.com/incidents/42"
    assert found.loc[1, "state"] == LIKELY
    assert pd.isna(found.loc[1, "mark_id"])


def test_the_dominant_failure_group_is_the_message_most_failures_share() -> None:
    rows = [
        result(5, s, "FAILURE", CHROME, plan_id=3, message=f"WebDriverException: grid {s} down")
        for s in range(1, 15)
    ] + [
        result(5, s, "ERROR", CHROME, plan_id=3, message="Session lost after 30 s")
        for s in range(15, 21)
    ]

    found = outages(runs(), NO_MARKS, results(rows)).set_index("execution_id")

    assert found.loc[5, "signature"] == "WebDriverException: grid {n} down"
    assert found.loc[5, "signature_failures"] == 14
    assert pd.isna(found.loc[1, "signature"])  # its results were not given


@pytest.mark.parametrize("share", [0.0, 1.5])
def test_a_share_outside_zero_to_one_is_refused(share: float) -> None:
    with pytest.raises(ValueError, match="outage share"):
        outages(runs(), NO_MARKS, share=share)


def outage_history() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Plan 7, 12 nightly executions of 6 scenarios; every scenario passes, except in the two
    nights the grid was down (index 4 and 8) when all six failed with one message."""
    rows, found = [], []
    for index in range(12):
        execution_id = 100 + index
        start = ts("2026-11-10 02:00") + pd.Timedelta(days=index)
        down = index in (4, 8)
        rows.append(
            execution(
                execution_id,
                7,
                str(start)[:16],
                "fail" if down else "pass",
                results=6,
                failed=6 if down else 0,
            )
        )
        for scenario in range(1, 7):
            found.append(
                result(
                    execution_id,
                    scenario,
                    "FAILURE" if down else "SUCCESS",
                    CHROME,
                    plan_id=7,
                    start=start,
                    message="UnreachableBrowserException: grid unreachable" if down else None,
                )
            )
    return executions(rows), results(found)


def test_an_outage_night_left_out_removes_the_flaky_score_it_would_create() -> None:
    history, results_frame = outage_history()

    counted = flaky.flaky_scenarios(history, results_frame, window=20)
    found = outages(history, NO_MARKS, results_frame)
    left_out = flaky.flaky_scenarios(without_outages(history, found), results_frame, window=20)

    # With the two nights: every scenario flips P->F->P->F->P, 4 flips in 12 runs.
    assert counted.flagged_scenarios()["scenario_id"].tolist() == [1, 2, 3, 4, 5, 6]
    assert found["execution_id"].tolist() == [108, 104]
    assert set(found["signature"]) == {"UnreachableBrowserException: grid unreachable"}
    # Without them: ten passes in a row, nothing flaky.
    assert left_out.flagged_scenarios().empty
    assert left_out.basis.executions == 10

"""The execution-level verdict rules on hand-built summaries."""

from __future__ import annotations

import pandas as pd
import pytest

from dashboard.analytics import verdicts
from dashboard.analytics.outcomes import execution_outcomes, level_outcomes


@pytest.mark.parametrize(
    ("summary", "status"),
    [
        ({"SUCCESS": 5}, "SUCCESS"),
        ({"SUCCESS": 5, "WARNING": 1}, "WARNING"),
        ({"SUCCESS": 5, "WARNING": 1, "FAILURE": 1}, "FAILURE"),
        ({"FAILURE": 3, "ERROR": 1}, "ERROR"),  # the issue-15 case: ERROR hides FAILURE
        ({"ERROR": 1, "WAITING": 2}, "WAITING"),  # running beats everything
        ({"SUCCESS": 1, "PROCESSING": 1}, "PROCESSING"),
        ({"REPORTING": 1, "WAITING": 1}, "WAITING"),  # first running status in known order
        ({"error": 2, "success": 1}, "ERROR"),  # case-insensitive
        ({"ERROR": 0, "SUCCESS": 4}, "SUCCESS"),  # zero counts are ignored
        ({"MYSTERY": 4}, "SUCCESS"),  # unknown statuses say nothing
        ({"STOPPED": 2, "UNEXECUTED": 1}, "SUCCESS"),
        ({}, "SUCCESS"),
    ],
)
def test_execution_status_follows_the_documented_precedence(
    summary: dict[str, int], status: str
) -> None:
    assert verdicts.execution_status(summary) == status


@pytest.mark.parametrize(
    ("end", "summary", "finished"),
    [
        (pd.Timestamp("2025-01-01", tz="UTC"), {"SUCCESS": 3}, True),
        (pd.Timestamp("2025-01-01", tz="UTC"), {"SUCCESS": 3, "WAITING": 1}, False),
        (pd.Timestamp("2025-01-01", tz="UTC"), {"SUCCESS": 3, "WAITING": 0}, True),
        (None, {"SUCCESS": 3}, False),
        (pd.NaT, {"SUCCESS": 3}, False),
        (pd.Timestamp("2025-01-01", tz="UTC"), {"STOPPED": 3}, True),
    ],
)
def test_finished_needs_an_end_and_no_running_result(
    end: object, summary: dict[str, int], finished: bool
) -> None:
    assert verdicts.execution_finished(end, summary) is finished


@pytest.mark.parametrize(
    ("finished", "verdicts_", "failed", "expected"),
    [
        (True, 10, 0, "pass"),
        (True, 10, 2, "fail"),
        (False, 3, 1, "fail"),  # a failure already seen stays a failure
        (False, 3, 0, None),  # running is never a pass
        (True, 0, 0, None),  # nothing with a verdict
    ],
)
def test_execution_outcome(
    finished: bool, verdicts_: int, failed: int, expected: str | None
) -> None:
    assert (
        verdicts.execution_outcome(finished=finished, verdicts=verdicts_, failed=failed) == expected
    )


def test_vectorised_outcomes_agree_with_the_scalar_rules() -> None:
    levels = pd.Series(["SUCCESS", "failure", "ERROR", "WARNING", "WAITING", "ODD", None])
    assert level_outcomes(levels).tolist()[:4] == ["pass", "fail", "fail", "warn"]
    assert level_outcomes(levels).iloc[4:].isna().all()

    frame = pd.DataFrame(
        {
            "finished": pd.array([True, True, False, False, True, None], dtype="boolean"),
            "verdicts": [10, 10, 3, 3, 0, 5],
            "failed": [0, 2, 1, 0, 0, 0],
        }
    )
    got = execution_outcomes(frame)
    expected = [
        verdicts.execution_outcome(finished=bool(f is True), verdicts=v, failed=x)
        for f, v, x in zip(
            frame["finished"].tolist(), frame["verdicts"], frame["failed"], strict=True
        )
    ]
    assert [None if pd.isna(v) else v for v in got] == expected

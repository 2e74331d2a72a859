"""Marks applied to hand-built results with known answers, on a fixed clock: their lifecycle
(open, expiring within 3 days, expired, closed), which failures each target covers and which
mark is named, pass rates without known failures, and "looks fixed" after K clean runs."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from dashboard.analytics import marks as analytics
from dashboard.columns import marks as columns
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import typed_rows
from tests.analytics.frames import (
    CHROME,
    DESKTOP,
    UPGRADE_AFTER,
    execution,
    executions,
    result,
    results,
    ts,
    upgrade_night,
)

NOW = ts("2026-11-24 10:00")
TIMEOUT = "TimeoutException: button #buy not clickable after {n} ms"


def mark(mark_id: str, target: str, **fields: Any) -> dict[str, Any]:
    return {
        "mark_id": mark_id,
        "company_id": 1,
        "target": target,
        "kind": columns.KNOWN_ISSUE,
        "ticket": f"https://jira.example.com/browse/{mark_id.upper()}",
        "created_by": "ann",
        "created_at": ts("2026-11-01 09:00"),
        "updated_at": ts("2026-11-01 09:00"),
        "revision": 1,
        **fields,
    }


def marks(*rows: dict[str, Any]) -> pd.DataFrame:
    return typed_rows(list(rows), MARK_COLUMNS)


# -- lifecycle ---------------------------------------------------------------------------------


def test_states_on_a_fixed_clock() -> None:
    frame = marks(
        mark("open", columns.SCENARIO, plan_id=1, scenario_id=1),
        mark("today", columns.SCENARIO, plan_id=1, scenario_id=2, expires_on=ts("2026-11-24")),
        mark("in3", columns.SCENARIO, plan_id=1, scenario_id=3, expires_on=ts("2026-11-27")),
        mark("in4", columns.SCENARIO, plan_id=1, scenario_id=4, expires_on=ts("2026-11-28")),
        mark("gone", columns.SCENARIO, plan_id=1, scenario_id=5, expires_on=ts("2026-11-23")),
        mark(
            "closed",
            columns.SCENARIO,
            plan_id=1,
            scenario_id=6,
            expires_on=ts("2026-11-20"),
            closed_at=ts("2026-11-22 10:00"),
            closed_by="bob",
        ),
    )

    states = analytics.mark_states(frame, NOW).set_index("mark_id")

    assert states["state"].to_dict() == {
        "open": "open",
        "today": "expiring",  # its last day is today: it still applies until midnight UTC
        "in3": "expiring",
        "in4": "open",
        "gone": "expired",
        "closed": "closed",
    }
    assert states["applies"].to_dict() == {
        "open": True,
        "today": True,
        "in3": True,
        "in4": True,
        "gone": False,
        "closed": False,
    }
    assert states.loc["in3", "days_left"] == 3
    assert states.loc["today", "days_left"] == 0
    assert pd.isna(states.loc["open", "days_left"])
    assert list(analytics.applying(frame, NOW)["mark_id"]) == ["open", "today", "in3", "in4"]
    # The next day the mark of today has expired.
    assert (
        analytics.mark_states(frame, ts("2026-11-25 00:00"))
        .set_index("mark_id")
        .loc["today", "state"]
        == "expired"
    )


# -- which failures are known ------------------------------------------------------------------


def window_results() -> pd.DataFrame:
    return results(
        [
            result(
                11,
                1,
                "FAILURE",
                CHROME,
                plan_id=1,
                message=TIMEOUT.replace("{n}", "300"),
                result_id=1,
            ),
            result(
                11, 1, "FAILURE", DESKTOP, plan_id=1, message="AssertionError: 3 rows", result_id=2
            ),
            result(
                11, 2, "ERROR", DESKTOP, plan_id=1, message="AssertionError: 4 rows", result_id=3
            ),
            result(11, 3, "SUCCESS", CHROME, plan_id=1, result_id=4),
            result(
                21,
                5,
                "FAILURE",
                CHROME,
                plan_id=2,
                message=TIMEOUT.replace("{n}", "900"),
                result_id=5,
            ),
            result(21, 6, "FAILURE", CHROME, plan_id=2, message="NoSuchElement: #pay", result_id=6),
            result(31, 7, "FAILURE", CHROME, plan_id=3, message="grid down", result_id=7),
            result(31, 8, "WARNING", CHROME, plan_id=3, message="grid down", result_id=8),
        ]
    )


def test_each_target_covers_its_failures_and_the_most_specific_mark_is_named() -> None:
    frame = marks(
        mark("group-any", columns.FAILURE_GROUP, signature=TIMEOUT),
        mark("group-p1", columns.FAILURE_GROUP, signature=TIMEOUT, plan_id=1),
        mark("assert-p2", columns.FAILURE_GROUP, signature="AssertionError: {n} rows", plan_id=2),
        mark("scen-1-2", columns.SCENARIO, plan_id=1, scenario_id=2),
        mark(
            "safari",
            columns.SCENARIO_ENVIRONMENT,
            plan_id=1,
            scenario_id=1,
            environment="SAFARI 17 / macOS",
        ),
        mark("outage-31", columns.EXECUTION, execution_id=31, kind=columns.OUTAGE),
        mark("dismissed-21", columns.EXECUTION, execution_id=21, kind=columns.NOT_AN_OUTAGE),
    )

    cover = analytics.covering_marks(window_results(), frame)

    assert cover["mark_id"].fillna("-").tolist() == [
        "group-p1",  # the group of its own plan before the group of every plan
        "safari",  # scenario 1 on Safari: the environment's mark
        "scen-1-2",  # the scenario's mark (the assertion group is plan 2's only)
        "-",  # passed
        "group-any",  # plan 2's timeout: only the group of every plan covers it
        "-",  # no mark says anything of it (a dismissed outage covers nothing)
        "outage-31",  # the outage covers every failure of its execution
        "-",  # a warning is not a failure
    ]
    assert cover.loc[0, "ticket"] == "https://jira.example.com/browse/GROUP-P1"
    assert cover.loc[6, "kind"] == columns.OUTAGE


def test_a_mark_that_does_not_apply_covers_nothing() -> None:
    frame = marks(
        mark("gone", columns.SCENARIO, plan_id=1, scenario_id=2, expires_on=ts("2026-11-23")),
        mark("closed", columns.SCENARIO, plan_id=1, scenario_id=1, closed_at=ts("2026-11-23")),
    )

    known = analytics.known_failures(window_results(), analytics.applying(frame, NOW))

    assert not known["known"].any()


def test_pass_rates_without_known_failures_leave_the_known_out_of_the_verdicts() -> None:
    runs = executions(
        [
            execution(11, 1, "2026-11-23 08:00", "fail", results=10, failed=3),
            execution(21, 2, "2026-11-23 09:00", "fail", results=10, failed=2),
            execution(41, 1, "2026-11-23 10:00", "running"),
        ]
    )
    frame = marks(mark("scen-1-1", columns.SCENARIO, plan_id=1, scenario_id=1))

    known = analytics.known_per_execution(window_results(), frame)
    split = analytics.split_of(runs, known)
    adjusted = analytics.without_known(runs, known).set_index("execution_id")

    assert known.to_dict() == {11: 2}
    assert (split.failed, split.known, split.unresolved) == (5, 2, 3)
    assert (split.passed, split.verdicts) == (15, 20)
    assert split.pass_rate == pytest.approx(15 / 20)
    assert split.pass_rate_without_known == pytest.approx(15 / 18)
    assert (adjusted.loc[11, "verdicts"], adjusted.loc[11, "failed"]) == (8, 1)
    assert (adjusted.loc[21, "verdicts"], adjusted.loc[21, "failed"]) == (10, 2)


def test_known_cells_are_counted_per_scenario_with_the_mark_that_covers_most() -> None:
    frame = marks(
        mark("scen-1-1", columns.SCENARIO, plan_id=1, scenario_id=1),
        mark("group-any", columns.FAILURE_GROUP, signature=TIMEOUT),
    )

    cells = analytics.known_cells(window_results(), frame)
    per = analytics.known_by(cells, ["plan_id", "scenario_id"])

    assert per.loc[(1, 1)].to_dict() == {
        "failed_cells": 2,
        "known_cells": 2,
        "mark_id": "scen-1-1",
        "ticket": "https://jira.example.com/browse/SCEN-1-1",
    }
    assert per.loc[(1, 2), ["failed_cells", "known_cells"]].tolist() == [1, 0]
    assert per.loc[(2, 5), "mark_id"] == "group-any"
    assert per.loc[(2, 6), "known_cells"] == 0
    assert pd.isna(per.loc[(2, 6), "mark_id"])


# -- looks fixed -----------------------------------------------------------------------------------


def clean_runs(count: int, *, fail_at: int | None = None) -> pd.DataFrame:
    """Plan 1's scenario 1 in `count` daily executions (oldest 13 Nov), failing on Chrome at
    index `fail_at` with the timeout."""
    rows = []
    for index in range(count):
        start = ts("2026-11-13 08:00") + pd.Timedelta(days=index)
        failing = index == fail_at
        rows.append(
            result(
                500 + index,
                1,
                "FAILURE" if failing else "SUCCESS",
                CHROME,
                plan_id=1,
                start=start,
                message=TIMEOUT.replace("{n}", "30") if failing else None,
            )
        )
        rows.append(result(500 + index, 1, "SUCCESS", DESKTOP, plan_id=1, start=start))
    return results(rows)


@pytest.mark.parametrize(
    "target",
    [
        {"target": columns.SCENARIO, "plan_id": 1, "scenario_id": 1},
        {
            "target": columns.SCENARIO_ENVIRONMENT,
            "plan_id": 1,
            "scenario_id": 1,
            "environment": "CHROME 134 / Windows 11",
        },
        {"target": columns.FAILURE_GROUP, "signature": TIMEOUT, "plan_id": 1},
        {"target": columns.FAILURE_GROUP, "signature": TIMEOUT},
    ],
    ids=["scenario", "environment", "group of a plan", "group of every plan"],
)
def test_a_target_clean_in_its_last_ten_runs_looks_fixed(target: dict[str, Any]) -> None:
    frame = marks(mark("m", **target))

    # 12 runs: the failure in the second one is older than the last 10.
    fixed = analytics.mark_evidence(frame, clean_runs(12, fail_at=1), NOW).iloc[0]
    # 12 runs, a failure in the third: within the last 10.
    failing = analytics.mark_evidence(frame, clean_runs(12, fail_at=2), NOW).iloc[0]
    # 9 runs, none failed: too few to say.
    too_few = analytics.mark_evidence(frame, clean_runs(9), NOW).iloc[0]

    assert fixed[["runs", "failures", "looks_fixed"]].tolist() == [10, 0, True]
    assert fixed["since"] == ts("2026-11-15 08:00")
    assert fixed["last_failed"] == ts("2026-11-14 08:00")
    assert failing[["runs", "failures", "looks_fixed"]].tolist() == [10, 1, False]
    assert too_few[["runs", "failures", "looks_fixed"]].tolist() == [9, 0, False]


def test_a_closed_mark_or_an_outage_is_never_proposed_as_fixed() -> None:
    frame = marks(
        mark("closed", columns.SCENARIO, plan_id=1, scenario_id=1, closed_at=ts("2026-11-20")),
        mark("outage", columns.EXECUTION, execution_id=500, kind=columns.OUTAGE),
    )

    evidence = analytics.mark_evidence(frame, clean_runs(12), NOW)

    assert evidence["mark_id"].tolist() == ["closed"]
    assert evidence["runs"].tolist() == [10]
    assert not evidence["looks_fixed"].any()


def test_a_mark_whose_target_did_not_run_has_no_evidence_and_does_not_look_fixed() -> None:
    """No results at all (a window with no runs): every mark is listed, with 0 runs."""
    frame = marks(
        mark("scenario", columns.SCENARIO, plan_id=1, scenario_id=1),
        mark("group", columns.FAILURE_GROUP, signature=TIMEOUT),
    )

    evidence = analytics.mark_evidence(frame, clean_runs(0), NOW)

    assert evidence["mark_id"].tolist() == ["scenario", "group"]
    assert evidence["runs"].tolist() == [0, 0]
    assert evidence["last_failed"].isna().all()
    assert not evidence["looks_fixed"].any()


def test_a_mark_made_with_a_versioned_label_keeps_covering_after_the_upgrade() -> None:
    """Marks made before #38 name the environment with its version ("CHROME 130 / Windows
    10"): they name the environment, whatever its version, so they keep covering its failures
    on Chrome 131; one of another OS covers nothing."""
    night = upgrade_night()
    failed_on_131 = (night["execution_id"] == UPGRADE_AFTER) & (night["level"] == "FAILURE")
    frame = marks(
        mark(
            "old",
            columns.SCENARIO_ENVIRONMENT,
            plan_id=1,
            scenario_id=1,
            environment="CHROME 130 / Windows 10",
        ),
        mark(
            "new",
            columns.SCENARIO_ENVIRONMENT,
            plan_id=1,
            scenario_id=2,
            environment="CHROME / Windows 10",
        ),
        mark(
            "elsewhere",
            columns.SCENARIO_ENVIRONMENT,
            plan_id=1,
            scenario_id=3,
            environment="FIREFOX 128 / Windows 10",
        ),
    )

    cover = analytics.covering_marks(night, frame)[failed_on_131.to_numpy()]

    assert cover["mark_id"].fillna("-").tolist() == ["old", "new", "-"]
    cells = analytics.known_cells(night, frame).set_index("scenario_id")
    assert cells["known"].to_dict() == {1: True, 2: True, 3: False}
    assert cells.loc[1, "environment"] == "CHROME / Windows 10"

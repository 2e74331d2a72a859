"""Figures that tell known from unresolved, on hand-built frames with known answers: plan
health's per-plan failures and pass rates without known failures, the environments matrix, the
flaky rows and the failure groups."""

from __future__ import annotations

import pandas as pd
import pytest

from dashboard.analytics import environments, failure_groups, known_figures
from dashboard.analytics.marks import covered_failures, known_cells, known_per_execution
from dashboard.columns import marks as columns
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import typed_rows
from tests.analytics.frames import CHROME, DESKTOP, execution, executions, result, results, ts
from tests.analytics.test_marks import mark

NOW = ts("2026-11-24 10:00")


def scenario_marks() -> pd.DataFrame:
    return typed_rows(
        [
            mark("scen-1", columns.SCENARIO, plan_id=1, scenario_id=1),
            mark("msg", columns.FAILURE_GROUP, signature="Grid {n} unreachable"),
        ],
        MARK_COLUMNS,
    )


def window() -> tuple[pd.DataFrame, pd.DataFrame]:
    runs = executions(
        [
            execution(1, 1, "2026-11-10 08:00", "fail", results=4, failed=2),  # long period only
            execution(2, 1, "2026-11-20 08:00", "fail", results=4, failed=2),
            execution(3, 2, "2026-11-21 08:00", "fail", results=4, failed=1),
        ]
    )
    found = results(
        [
            result(1, 1, "FAILURE", CHROME, plan_id=1, start="2026-11-10 08:00"),
            result(1, 2, "FAILURE", CHROME, plan_id=1, start="2026-11-10 08:00"),
            result(1, 3, "SUCCESS", CHROME, plan_id=1, start="2026-11-10 08:00"),
            result(1, 4, "SUCCESS", CHROME, plan_id=1, start="2026-11-10 08:00"),
            result(2, 1, "FAILURE", CHROME, plan_id=1, start="2026-11-20 08:00"),
            result(2, 1, "FAILURE", DESKTOP, plan_id=1, start="2026-11-20 08:00"),
            result(2, 3, "SUCCESS", CHROME, plan_id=1, start="2026-11-20 08:00"),
            result(2, 4, "SUCCESS", CHROME, plan_id=1, start="2026-11-20 08:00"),
            result(
                3,
                7,
                "ERROR",
                CHROME,
                plan_id=2,
                start="2026-11-21 08:00",
                message="Grid 4 unreachable",
            ),
            result(3, 8, "SUCCESS", CHROME, plan_id=2, start="2026-11-21 08:00"),
        ]
    )
    return runs, found


def test_plan_health_figures_split_known_failures_and_rate_without_them() -> None:
    runs, found = window()

    figures = known_figures.plan_known_figures(
        runs, known_per_execution(found, scenario_marks()), now=NOW
    )

    assert figures.loc[1].to_dict() == {
        "failed_short": 2,
        "known_short": 2,
        "pass_rate_short_without_known": 1.0,  # 2 passed of 4, both failures known
        "failed_long": 4,
        "known_long": 3,  # scenario 2 in execution 1 is not marked
        "pass_rate_long_without_known": pytest.approx(4 / 5),
    }
    assert figures.loc[2, ["failed_short", "known_short"]].tolist() == [1, 1]
    assert figures.loc[2, "pass_rate_short_without_known"] == 1.0


def test_the_matrix_counts_known_cells_and_rates_without_them() -> None:
    runs, found = window()
    plan = found[found["plan_id"] == 1]

    report = environments.environment_report(runs[runs["plan_id"] == 1], plan)
    matrix = known_figures.matrix_with_known(report.matrix, known_cells(plan, scenario_marks()))

    row = matrix[(matrix["scenario_id"] == 1) & (matrix["environment"] == "CHROME / Windows 11")]
    assert row[["failed", "known", "unresolved"]].values.tolist() == [[2, 2, 0]]
    assert pd.isna(row["pass_rate_without_known"].iloc[0])  # nothing left with a verdict
    assert row["ticket"].tolist() == ["https://jira.example.com/browse/SCEN-1"]
    other = matrix[matrix["scenario_id"] == 2]
    assert other[["failed", "known", "unresolved"]].values.tolist() == [[1, 0, 1]]
    assert other["pass_rate_without_known"].tolist() == [0.0]


def test_failure_groups_split_their_failures() -> None:
    runs, found = window()

    # groups_with_known counts by signature: the groups across scenarios (the pages count per
    # group by result id, `failure_groups.with_known`).
    grouped = failure_groups.failure_groups(
        runs, found, grouping=failure_groups.Grouping.ACROSS
    ).groups
    known = known_figures.groups_with_known(grouped, found, scenario_marks()).set_index("signature")

    assert known.loc["", ["failures", "known", "unresolved"]].tolist() == [4, 3, 1]
    assert known.loc["", "mark_id"] == "scen-1"
    assert known.loc["Grid {n} unreachable", ["known", "unresolved", "mark_id"]].tolist() == [
        1,
        0,
        "msg",
    ]


def test_flaky_runs_are_known_per_execution_and_per_environment() -> None:
    _, found = window()

    runs = known_figures.known_runs(known_cells(found, scenario_marks()))

    # Scenario 1 of plan 1 failed in executions 1 (Chrome) and 2 (Chrome and Safari): two
    # runs of the scenario, three of it on an environment; every one known.
    assert runs.scenarios.loc[(1, 1)].tolist() == [2, 2, "https://jira.example.com/browse/SCEN-1"]
    assert runs.scenarios.loc[(1, 2), ["failed", "known"]].tolist() == [1, 0]
    assert runs.environments.loc[(1, 1, "CHROME / Windows 11"), ["failed", "known"]].tolist() == [
        2,
        2,
    ]
    assert runs.environments.loc[(1, 1, "SAFARI / macOS"), ["failed", "known"]].tolist() == [
        1,
        1,
    ]
    assert runs.scenarios.loc[(2, 7), "ticket"] == "https://jira.example.com/browse/MSG"


def test_failure_groups_per_scenario_split_their_failures_by_result() -> None:
    """The same split counted per group by result id: every group's known and unresolved add
    up to the signature's, whatever the grouping."""
    runs, found = window()
    across = failure_groups.failure_groups(
        runs, found, grouping=failure_groups.Grouping.ACROSS
    ).groups
    per_scenario = failure_groups.failure_groups(runs, found).groups
    failed = covered_failures(found, scenario_marks())
    covered = failed.assign(result_id=found.loc[failed.index, "result_id"].to_numpy())

    by_signature = known_figures.groups_with_known(across, found, scenario_marks())
    by_result = failure_groups.with_known(per_scenario, covered)

    totals = by_result.groupby("signature")[["failures", "known", "unresolved"]].sum()
    expected = by_signature.set_index("signature")[["failures", "known", "unresolved"]]
    pd.testing.assert_frame_equal(totals.sort_index(), expected.sort_index(), check_names=False)
    empty = by_result[by_result["signature"] == ""]
    assert set(empty["mark_id"].dropna()) <= {"scen-1", "msg"}

"""Comparison buckets of two executions, the only-changes filter and the default pair."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics.compare import (
    BUCKETS,
    COMPARE_COLUMNS,
    compare_executions,
    default_pair,
    only_changes,
)
from tests.analytics.frames import (
    CHROME,
    DESKTOP,
    IPHONE,
    execution,
    executions,
    result,
    results,
)

BEFORE, AFTER = 10, 11


def pair() -> pd.DataFrame:
    rows = [
        # scenario 1: one cell per bucket of pass / fail
        result(BEFORE, 1, "SUCCESS", CHROME, runtime_s=30),
        result(AFTER, 1, "FAILURE", CHROME, runtime_s=5, message="Timeout after 30 s"),
        result(BEFORE, 1, "ERROR", DESKTOP, runtime_s=12),
        result(AFTER, 1, "SUCCESS", DESKTOP, runtime_s=40),
        result(BEFORE, 2, "FAILURE", CHROME),
        result(AFTER, 2, "ERROR", CHROME),
        result(BEFORE, 2, "SUCCESS", DESKTOP, runtime_s=30),
        result(AFTER, 2, "SUCCESS", DESKTOP, runtime_s=45),
        # missing on one side
        result(AFTER, 3, "SUCCESS", IPHONE),
        result(BEFORE, 4, "FAILURE", IPHONE),
        # warnings and non-verdicts
        result(BEFORE, 5, "WARNING", CHROME),
        result(AFTER, 5, "FAILURE", CHROME),
        result(BEFORE, 6, "WAITING", CHROME),
        result(AFTER, 6, "WAITING", CHROME),
        result(BEFORE, 7, "MYSTERY", CHROME),
        result(AFTER, 7, "SUCCESS", CHROME),
        # a retried result: the failure is what the cell says
        result(BEFORE, 8, "SUCCESS", CHROME),
        result(AFTER, 8, "FAILURE", CHROME, message="first try"),
        result(AFTER, 8, "SUCCESS", CHROME),
        # another execution's results are ignored
        result(99, 1, "FAILURE", CHROME),
    ]
    return results(rows)


def buckets(cells: pd.DataFrame) -> dict[tuple[int, str], str]:
    return {
        (int(s), e): b
        for s, e, b in cells[["scenario_id", "environment", "bucket"]].itertuples(index=False)
    }


def test_every_cell_lands_in_its_bucket() -> None:
    comparison = compare_executions(pair(), BEFORE, AFTER)
    assert list(comparison.cells.columns) == list(COMPARE_COLUMNS)
    assert buckets(comparison.cells) == {
        (1, "CHROME / Windows 11"): "new failure",
        (1, "SAFARI / macOS"): "fixed",
        (2, "CHROME / Windows 11"): "still failing",
        (2, "SAFARI / macOS"): "still passing",
        (3, "IPHONE 8 / iOS"): "missing before",
        (4, "IPHONE 8 / iOS"): "missing after",
        (5, "CHROME / Windows 11"): "no verdict",  # warned before: not a pass turned fail
        (6, "CHROME / Windows 11"): "no verdict",
        (7, "CHROME / Windows 11"): "no verdict",
        (8, "CHROME / Windows 11"): "new failure",
    }
    assert dict(comparison.counts) == {
        "new failure": 2,
        "fixed": 1,
        "still failing": 1,
        "missing before": 1,
        "missing after": 1,
        "no verdict": 3,
        "still passing": 1,
    }
    assert [b for b, _ in comparison.counts] == list(BUCKETS)


def test_rows_come_most_urgent_first_and_carry_both_sides() -> None:
    cells = compare_executions(pair(), BEFORE, AFTER).cells
    assert cells["bucket"].tolist()[:3] == ["new failure", "new failure", "fixed"]
    new = cells.iloc[0]
    assert (new["before_outcome"], new["after_outcome"]) == ("pass", "fail")
    assert new["after_message"] == "Timeout after 30 s"
    assert (new["before_runtime_s"], new["after_runtime_s"], new["runtime_delta_s"]) == (30, 5, -25)
    retried = cells[cells["scenario_id"] == 8].iloc[0]
    assert retried["after_message"] == "first try"
    missing = cells[cells["bucket"] == "missing before"].iloc[0]
    assert pd.isna(missing["before_result_id"])
    assert pd.isna(missing["runtime_delta_s"])


def test_only_changes_hides_what_stayed_the_same() -> None:
    cells = compare_executions(pair(), BEFORE, AFTER).cells
    changed = buckets(only_changes(cells))
    assert set(changed.values()) == {
        "new failure",
        "fixed",
        "missing before",
        "missing after",
        "no verdict",
    }
    assert (6, "CHROME / Windows 11") not in changed  # waiting on both sides
    assert (5, "CHROME / Windows 11") in changed  # warning turned failure


def test_runtimes_and_basis_come_from_the_executions() -> None:
    ex = executions(
        [
            execution(BEFORE, 1, "2025-04-01 10:00", runtime_ms=60_000),
            execution(AFTER, 1, "2025-04-02 10:00", "fail", runtime_ms=75_500),
        ]
    )
    comparison = compare_executions(pair(), BEFORE, AFTER, executions=ex)
    assert comparison.runtime_delta_ms == 15_500
    assert (comparison.basis.executions, comparison.basis.with_results) == (2, 2)
    assert comparison.cells["plan_id"].eq(1).all()
    without = compare_executions(results([]), BEFORE, AFTER)
    assert without.cells.empty
    assert without.runtime_delta_ms is None
    assert without.basis.with_results == 0
    assert without.count("fixed") == 0


def test_the_default_pair_is_the_latest_judged_execution_and_the_one_before() -> None:
    ex = executions(
        [
            execution(1, 1, "2025-04-01 10:00"),
            execution(2, 1, "2025-04-02 10:00", "fail"),
            execution(3, 1, "2025-04-03 10:00", "none"),  # no verdict: skipped
            execution(4, 1, "2025-04-04 10:00", "running"),
            execution(5, 2, "2025-04-04 10:00"),
        ]
    )
    assert default_pair(ex, 1) == (1, 2)
    assert default_pair(ex, 2) is None
    assert default_pair(ex, 3) is None

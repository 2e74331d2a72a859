"""An upgrade night (tests/analytics/frames.upgrade_night): Chrome went 130 -> 131 the night
two scenarios started failing on it, and a third failed on Firefox. Compare keys environments by
their identity, so it counts 3 new failures with no "missing before/after" rows, and 2 of them
started with the browser upgrade."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics.compare import (
    MISSING_AFTER,
    MISSING_BEFORE,
    NEW_FAILURE,
    STILL_PASSING,
    compare_executions,
    compare_pairs,
)
from dashboard.analytics.standup_scenarios import newly_failing_scenarios
from dashboard.analytics.upgrades import (
    UPGRADE_COLUMNS,
    newly_failing_upgrades,
    upgrade_count,
    upgrade_failures,
)
from dashboard.present.what_changed import upgrade_line
from tests.analytics.frames import (
    CHROME_130,
    IPHONE,
    UPGRADE_AFTER,
    UPGRADE_BEFORE,
    result,
    results,
    upgrade_night,
)


def test_the_upgrade_night_counts_three_new_failures_and_no_missing_rows() -> None:
    comparison = compare_executions(upgrade_night(), UPGRADE_BEFORE, UPGRADE_AFTER)

    assert comparison.count(NEW_FAILURE) == 3
    assert comparison.count(STILL_PASSING) == 7
    assert comparison.count(MISSING_BEFORE) == comparison.count(MISSING_AFTER) == 0
    assert len(comparison.cells) == 10  # 5 scenarios x 2 environments, one row each
    new = comparison.cells[comparison.cells["bucket"] == NEW_FAILURE]
    assert new[
        ["scenario_id", "environment", "before_version", "after_version"]
    ].values.tolist() == [
        [1, "CHROME / Windows 10", "130", "131"],
        [2, "CHROME / Windows 10", "130", "131"],
        [3, "FIREFOX / Linux", "128", "128"],
    ]


def test_two_new_failures_started_with_the_browser_upgrade() -> None:
    cells = compare_executions(upgrade_night(), UPGRADE_BEFORE, UPGRADE_AFTER).cells

    assert upgrade_count(cells) == 2
    found = upgrade_failures(cells)
    assert list(found.columns) == list(UPGRADE_COLUMNS)
    assert found[["scenario_id", "browser", "before_version", "after_version"]].values.tolist() == [
        [1, "CHROME", "130", "131"],
        [2, "CHROME", "130", "131"],
    ]


def test_a_moved_version_that_still_passes_or_failed_before_is_no_upgrade_failure() -> None:
    chrome_131 = {**CHROME_130, "browser_version": "131"}
    unknown = {**CHROME_130, "os": "Linux", "browser_version": None}
    frame = results(
        [
            result(1, 1, "SUCCESS", CHROME_130),
            result(2, 1, "SUCCESS", chrome_131),  # moved, still passes
            result(1, 2, "FAILURE", CHROME_130),
            result(2, 2, "FAILURE", chrome_131),  # moved, failed before too
            result(1, 3, "SUCCESS", unknown),
            result(2, 3, "FAILURE", unknown),  # a version not known: not an upgrade
            result(1, 4, "SUCCESS", IPHONE),
            result(2, 4, "FAILURE", IPHONE),  # a phone has no browser version
        ]
    )
    cells = compare_executions(frame, 1, 2).cells

    assert cells["bucket"].value_counts()[NEW_FAILURE] == 2
    assert upgrade_count(cells) == 0
    assert upgrade_failures(cells).empty


def test_several_pairs_at_once_as_the_standup_compares_them() -> None:
    night = upgrade_night()
    pairs = pd.DataFrame(
        {"plan_id": [1, 1], "before_execution_id": [1, 2], "after_execution_id": [2, 2]}
    )
    found = upgrade_failures(compare_pairs(night, pairs))

    assert found[["before_execution_id", "scenario_id"]].values.tolist() == [[1, 1], [1, 2]]


def test_the_standup_counts_the_newly_failing_that_started_with_the_upgrade() -> None:
    pair = pd.DataFrame(
        {"plan_id": [1], "plan": ["Shop"], "before_execution_id": [1], "after_execution_id": [2]}
    )
    newly = newly_failing_scenarios(pair, upgrade_night())

    assert len(newly) == 3
    assert newly_failing_upgrades(newly) == 2
    assert newly_failing_upgrades(None) == 0
    assert upgrade_line(newly_failing_upgrades(newly)) == (
        "2 new failures started with a browser upgrade"
    )
    assert upgrade_line(1) == "1 new failure started with a browser upgrade"
    assert upgrade_line(0) is None

"""What changed between a plan's last green execution and its first red one, on hand-built
frames: who started each, the plan's settings, environment versions (moved, new, gone, not
known), and scenarios that started failing with a new browser version."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics import what_changed as changes
from dashboard.analytics.compare import compare_pairs
from dashboard.analytics.standup_scenarios import newly_failing_scenarios
from tests.analytics.frames import (
    CHROME,
    DESKTOP,
    FIREFOX,
    IPHONE,
    execution,
    executions,
    result,
    results,
    ts,
)

FIREFOX_129 = {**FIREFOX, "browser_version": "129"}
NO_VERSION = {**CHROME, "browser_version": None}


def runs() -> pd.DataFrame:
    rows = [
        execution(1, 1, "2025-06-01 17:00", "pass"),
        execution(2, 1, "2025-06-02 17:00", "fail"),
        execution(3, 2, "2025-06-01 17:00", "pass"),
        execution(4, 2, "2025-06-02 17:00", "fail"),
    ]
    rows[0]["user"], rows[1]["user"] = "alice", "bob"
    rows[2]["user"] = rows[3]["user"] = "carol"
    return executions(rows)


def pairs(*rows: tuple[int, int, int]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(changes.CHANGE_PAIR_COLUMNS))


def plans(updated: dict[int, str | None]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "plan_id": list(updated),
            "updated": pd.to_datetime([ts(t) if t else pd.NaT for t in updated.values()], utc=True),
            "updated_by": [f"editor{p}" if t else None for p, t in updated.items()],
        }
    )


def test_who_started_each_and_when() -> None:
    found = changes.what_changed(pairs((1, 1, 2)), runs(), results([])).pairs.iloc[0]

    assert (found["green_user"], found["red_user"]) == ("alice", "bob")
    assert (found["green_start"], found["red_start"]) == (
        ts("2025-06-01 17:00"),
        ts("2025-06-02 17:00"),
    )


def test_the_plan_s_settings_between_them() -> None:
    cases = {
        "2025-06-02 09:00": changes.CHANGED,  # between the two
        "2025-06-02 17:00": changes.CHANGED,  # as the red one started: before it ran
        "2025-05-30 09:00": changes.UNCHANGED,  # before the green one
        "2025-06-03 09:00": changes.CHANGED_SINCE,  # after: between is not known
        None: changes.UNKNOWN,  # the plan says no time
    }
    for updated, expected in cases.items():
        found = changes.what_changed(pairs((1, 1, 2)), runs(), results([]), plans({1: updated}))
        row = found.pairs.iloc[0]
        assert row["settings"] == expected, updated
        if updated:
            assert (row["plan_updated"], row["plan_updated_by"]) == (ts(updated), "editor1")
    # Without the plans answer nothing is known of the settings.
    assert (
        changes.what_changed(pairs((1, 1, 2)), runs(), results([])).pairs.iloc[0]["settings"]
        == changes.UNKNOWN
    )


def test_environment_versions_moved_new_gone_and_unknown() -> None:
    rows = [
        result(1, 5, "SUCCESS", FIREFOX),
        result(2, 5, "FAILURE", FIREFOX_129),
        result(1, 5, "SUCCESS", CHROME),  # the same on both sides: not listed
        result(2, 5, "SUCCESS", CHROME),
        result(2, 6, "SUCCESS", DESKTOP),  # Safari is new
        result(1, 6, "SUCCESS", IPHONE),  # the phone is gone
        result(3, 7, "SUCCESS", NO_VERSION, plan_id=2),  # no version on one side: not known
        result(4, 7, "FAILURE", CHROME, plan_id=2),
    ]
    found = changes.what_changed(pairs((1, 1, 2), (2, 3, 4)), runs(), results(rows)).environments

    listed = {
        (r.plan_id, r.browser, r.change): (r.green_versions, r.red_versions)
        for r in found.itertuples(index=False)
    }
    assert listed == {
        (1, "FIREFOX", changes.MOVED): (("128",), ("129",)),
        (1, "SAFARI", changes.NEW): ((), ("17",)),
        (1, "IPHONE 8", changes.GONE): ((), ()),
        (2, "CHROME", changes.UNKNOWN_VERSION): ((), ("134",)),
    }
    assert found.set_index("browser").loc["IPHONE 8", "mobile"]


def test_the_same_environments_are_no_change() -> None:
    rows = [result(1, 5, "SUCCESS", CHROME), result(2, 5, "FAILURE", CHROME)]
    assert changes.what_changed(pairs((1, 1, 2)), runs(), results(rows)).environments.empty


def compared(rows: list[dict]) -> tuple[pd.DataFrame, pd.DataFrame]:
    frame = results(rows)
    pair = pd.DataFrame({"plan_id": [1], "before_execution_id": [1], "after_execution_id": [2]})
    return compare_pairs(frame, pair), frame


def test_a_scenario_that_started_failing_with_a_new_version_is_one_new_failure() -> None:
    """Since #38 an environment is keyed without its version: the upgrade is one new failure on
    FIREFOX / Linux with both versions beside it, not a "missing before" beside a "missing
    after"; `version_moves`, which paired those, finds none."""
    cells, frame = compared(
        [
            result(1, 35, "SUCCESS", FIREFOX),
            result(2, 35, "FAILURE", FIREFOX_129),
            result(1, 36, "SUCCESS", FIREFOX),  # moved too, but still passes
            result(2, 36, "SUCCESS", FIREFOX_129),
            result(1, 37, "FAILURE", FIREFOX),  # failed before too
            result(2, 37, "FAILURE", FIREFOX_129),
            result(2, 38, "FAILURE", DESKTOP),  # a new browser, not a new version
        ]
    )
    on = cells.set_index("scenario_id")
    assert on.loc[35, ["environment", "bucket", "before_version", "after_version"]].tolist() == [
        "FIREFOX / Linux",
        "new failure",
        "128",
        "129",
    ]
    assert on.loc[36, "bucket"] == "still passing"
    assert on.loc[37, "bucket"] == "still failing"
    assert on.loc[38, "bucket"] == "missing before"
    assert changes.version_moves(cells, frame).empty


def test_a_version_move_is_newly_failing_on_the_standup_with_both_versions() -> None:
    pair = pd.DataFrame(
        {"plan_id": [1], "plan": ["Shop"], "before_execution_id": [1], "after_execution_id": [2]}
    )
    rows = results(
        [
            result(1, 35, "SUCCESS", FIREFOX),
            result(2, 35, "FAILURE", FIREFOX_129, message="expected 3 rows"),
            result(1, 8, "SUCCESS", CHROME),
            result(2, 8, "FAILURE", CHROME),
        ]
    )
    newly = newly_failing_scenarios(pair, rows).set_index("scenario_id")

    assert sorted(newly.index) == [8, 35]
    moved = newly.loc[35]
    assert (moved["environment"], moved["previous_environment"]) == (
        "FIREFOX / Linux",  # one environment, on another version (#38)
        "FIREFOX / Linux",
    )
    assert (moved["browser"], moved["previous_version"], moved["version"]) == (
        "FIREFOX",
        "128",
        "129",
    )
    assert moved["message"] == "expected 3 rows"
    same = newly.loc[8]
    assert same["previous_environment"] == same["environment"] == "CHROME / Windows 11"
    assert pd.isna(same["version"])
    assert pd.isna(same["previous_version"])

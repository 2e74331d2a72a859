"""The Compare executions page: by default a plan's latest finished execution against the one
before, both in the URL; buckets, runtime delta, "only changes"; the demo's planted turned-red
and fixed plans and a hand-built history; clear messages for executions of another plan. What
the hand-built history's latest two executions compare to is the view's
(tests/present/test_compare_view_values.py)."""

from __future__ import annotations

from typing import Any

from sandbox.data import planted
from tests.dashboard import history_service as hand
from tests.dashboard import red_history as red
from tests.dashboard.apptest import (
    COMPARE,
    assert_no_failure,
    captions,
    downloads,
    metrics,
    notes,
    table_with,
)
from tests.dashboard.conftest import AppFactory

NEW = "\u2716 new failure"
FIXED = "\u2714 fixed"


def _compare(at: Any) -> Any:
    return table_with(at, "Change", "Before", "After")


def test_the_turned_red_plan_shows_its_newly_failing_scenario_and_nothing_else(
    app: AppFactory,
) -> None:
    at = app(COMPARE, tz="UTC", plan=str(planted.TURNED_RED_PLAN))
    at.run()

    assert_no_failure(at)
    before, after = int(at.query_params["before"]), int(at.query_params["after"])
    assert after > before
    table = _compare(at)
    assert set(table["Scenario"]) == {planted.TURNED_RED_SCENARIO}
    assert set(table["Change"]) == {NEW}
    assert set(table["Before"]) == {"\u2714 passed"}
    assert set(table["After"]) == {"\u2716 failed"}
    assert all("SessionNotCreatedException" in m for m in table["Message after"])
    shown = metrics(at)
    assert shown["New failures"] == str(len(table))
    assert shown["Fixed"] == "0"
    assert shown["Runtime change"] != "\u2013"
    assert f"#{before} before, #{after} after" in captions(at)
    assert "still passing" in captions(at)
    assert "compare.table.csv" in downloads(at)


def test_only_changes_can_be_switched_off_and_stays_in_the_url(app: AppFactory) -> None:
    at = app(COMPARE, tz="UTC", plan=str(planted.TURNED_RED_PLAN))
    at.run()
    changed = len(_compare(at))

    at.toggle(key="compare.only_changes").set_value(False).run()

    assert at.query_params["changes"] == "false"
    every = _compare(at)
    assert len(every) > changed
    assert set(every["Change"]) == {NEW, "\u2714 still passing"}


def test_the_fixed_plan_shows_its_fixed_scenario(app: AppFactory) -> None:
    at = app(COMPARE, tz="UTC", plan=str(planted.FIXED_PLAN))
    at.run()

    table = _compare(at)
    assert set(table["Scenario"]) == {planted.FIXED_SCENARIO}
    assert set(table["Change"]) == {FIXED}
    assert metrics(at)["Fixed"] == str(len(table))


def test_an_execution_of_another_plan_is_refused_with_a_message(
    app: AppFactory, hand_built: hand.HistoryService
) -> None:
    other = hand.OTHER_EXECUTIONS[0]
    at = app(COMPARE, tz="UTC", plan=str(hand.PLAN_ID), before=str(other), after="1005")
    at.run()

    assert_no_failure(at)
    assert f"Execution {other} is not an execution of plan {hand.PLAN_NAME}" in notes(at)
    default_before = hand.execution_ids()[-2]  # the default before side: the one before latest
    assert dict(at.query_params) == {
        "tz": "UTC",
        "plan": str(hand.PLAN_ID),
        "before": str(default_before),
        "after": "1005",
    }


def test_unknown_plans_and_bad_ids_are_named(app: AppFactory) -> None:
    at = app(COMPARE, tz="UTC", plan="999", before="abc")
    at.run()

    assert_no_failure(at)
    assert "Plan 999 is not one of this company's plans" in notes(at)
    assert '"before" value "abc" is not a valid execution id' in notes(at)
    assert "Pick a plan" in notes(at, "info")


def test_what_changed_between_the_last_green_and_the_first_red_execution(
    app: AppFactory, red_built: red.RedHistory
) -> None:
    at = app(COMPARE, tz="UTC", plan=str(red.CHECKOUT))
    at.run()

    assert_no_failure(at)
    assert (at.query_params["before"], at.query_params["after"]) == (str(red.GREEN), str(red.RED))
    said = "\n".join(str(t.value) for t in at.text)
    assert f"#{red.RED} was started by bob " in said
    assert f"; #{red.GREEN} by alice " in said
    assert "Environments: FIREFOX 129 / Linux, was 128." in said
    assert "Plan settings changed " in said
    assert " by carol." in said
    # #38: the same environment on a new version: a new failure there, counted as an upgrade.
    assert "New failure on FIREFOX / Linux (128 -> 129): scenario 1." in said
    assert "1 new failure started with a browser upgrade." in said
    assert metrics(at)["After a browser upgrade"] == "1"
    assert "the plan's settings from its last change" in captions(at)

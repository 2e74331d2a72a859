"""Each standup rule on one hand-built history with known answers.

"Now" is Monday 7 April 2025 10:00 UTC, so the window runs from Friday 4 April 09:30.
"""

from __future__ import annotations

import pandas as pd
import pytest

from dashboard.analytics.plan_state import plan_states
from dashboard.analytics.standup import (
    standup_digest,
    with_newly_failing,
)
from dashboard.analytics.windows import custom_window, standup_window
from tests.analytics.frames import (
    CHROME,
    DESKTOP,
    IPHONE,
    execution,
    executions,
    result,
    results,
    ts,
)

NOW = ts("2025-04-07 10:00")
WINDOW = standup_window(NOW)


def history() -> pd.DataFrame:
    rows = [
        # 1: turned red in the window
        execution(101, 1, "2025-04-03 10:00", "pass"),
        execution(102, 1, "2025-04-04 12:00", "pass"),
        execution(103, 1, "2025-04-05 10:00", "fail"),
        # 2: fixed in the window
        execution(201, 2, "2025-04-03 10:00", "fail"),
        execution(202, 2, "2025-04-04 10:00", "fail"),
        execution(203, 2, "2025-04-07 08:00", "pass"),
        # 3: red for days, counted back to the last pass
        execution(300, 3, "2025-03-30 10:00", "fail"),
        execution(301, 3, "2025-03-31 10:00", "pass"),
        execution(302, 3, "2025-04-01 10:00", "fail"),
        execution(303, 3, "2025-04-02 10:00", "fail"),
        execution(304, 3, "2025-04-03 10:00", "fail"),
        execution(305, 3, "2025-04-05 11:00", "fail"),
        # 4: newest still running; judged on the failed one before it
        execution(401, 4, "2025-04-03 10:00", "pass"),
        execution(402, 4, "2025-04-04 11:00", "fail"),
        execution(403, 4, "2025-04-07 09:00", "running"),
        # 5: a single execution
        execution(501, 5, "2025-04-05 10:00", "fail"),
        # 6: a finished execution with only unknown statuses is skipped
        execution(601, 6, "2025-04-03 10:00", "pass"),
        execution(602, 6, "2025-04-05 10:00", "none"),
        execution(603, 6, "2025-04-06 10:00", "fail"),
        # 7: turned red before the window: not news
        execution(701, 7, "2025-04-01 10:00", "pass"),
        execution(702, 7, "2025-04-02 10:00", "fail"),
        # 8: red with no pass in the history given
        execution(801, 8, "2025-04-02 10:00", "fail"),
        execution(802, 8, "2025-04-05 10:00", "fail"),
        # 9: a failure seen in a running newest execution is not a verdict yet
        execution(901, 9, "2025-04-04 10:00", "pass"),
        execution(902, 9, "2025-04-05 10:00", "pass"),
        execution(903, 9, "2025-04-06 10:00", "running-fail"),
    ]
    return executions(rows)


def test_plan_states_judge_the_latest_finished_execution_with_a_verdict() -> None:
    states = plan_states(history()).set_index("plan_id")
    assert states.loc[4, "latest_execution_id"] == 402
    assert states.loc[4, "newest_execution_id"] == 403
    assert bool(states.loc[4, "newest_running"])
    assert states.loc[4, "running_execution_id"] == 403
    assert states.loc[6, "latest_execution_id"] == 603
    assert states.loc[6, "previous_execution_id"] == 601  # 602 had no verdict
    assert states.loc[6, "judged"] == 2
    assert states.loc[5, "latest_outcome"] == "fail"
    assert pd.isna(states.loc[5, "previous_execution_id"])
    assert states.loc[3, "streak"] == 4
    assert states.loc[3, "streak_since"] == ts("2025-04-01 10:00")
    assert not bool(states.loc[3, "streak_from_oldest"])
    assert states.loc[3, "last_pass_execution_id"] == 301
    assert bool(states.loc[8, "streak_from_oldest"])
    assert states.loc[9, "latest_execution_id"] == 902
    assert states.loc[9, "running_execution_id"] == 903
    assert pd.isna(states.loc[1, "running_execution_id"])


def test_turned_red_and_fixed_count_changes_in_the_window_only() -> None:
    digest = standup_digest(history(), WINDOW)
    assert digest.turned_red["plan_id"].tolist() == [6, 1, 4]  # newest first
    red = digest.turned_red.set_index("plan_id")
    assert red.loc[4, "execution_id"] == 402
    assert red.loc[4, "running_execution_id"] == 403  # says the newer one is running
    assert red.loc[1, "previous_execution_id"] == 102
    assert red.loc[6, "previous_execution_id"] == 601
    assert digest.fixed["plan_id"].tolist() == [2]
    assert digest.fixed["execution_id"].tolist() == [203]


def test_still_failing_says_since_when_and_how_many() -> None:
    still = standup_digest(history(), WINDOW).still_failing.set_index("plan_id")
    assert still.index.tolist() == [3, 8]  # red longest first
    assert still.loc[3, "red_since"] == ts("2025-04-01 10:00")
    assert still.loc[3, "red_executions"] == 4
    assert not bool(still.loc[3, "red_since_is_bound"])
    assert still.loc[3, "last_pass_execution_id"] == 301
    assert bool(still.loc[3, "latest_in_window"])
    assert still.loc[8, "red_executions"] == 2
    assert bool(still.loc[8, "red_since_is_bound"])
    assert pd.isna(still.loc[8, "last_pass_execution_id"])
    # A plan with a single (failed) execution and one that turned red are not "still" failing.
    assert 5 not in still.index
    assert 1 not in still.index
    assert 7 not in still.index


def test_plans_with_a_running_newest_execution_are_listed() -> None:
    running = standup_digest(history(), WINDOW).running
    assert running["plan_id"].tolist() == [4, 9]
    assert running.set_index("plan_id").loc[9, "latest_outcome"] == "pass"


def test_activity_and_pass_rate_against_the_previous_window() -> None:
    digest = standup_digest(history(), WINDOW)
    current = digest.current
    # In the window (Fri 09:30 - Mon 10:00): 102 103 202 203 305 402 403 501 602 603 802 901
    # 902 903.
    assert current.executions == 14
    assert current.running == 2
    assert current.finished == 12
    assert (current.passed, current.failed, current.no_verdict) == (4, 7, 1)
    assert current.results_with_verdict == 11 * 10
    assert current.results_passed == 4 * 10 + 7 * 8
    assert current.pass_rate == pytest.approx(96 / 110)
    # Previous window (Tue 01 Apr 09:00 - Fri 09:30): 101 201 302 303 304 401 601 701 702 801.
    previous = digest.previous
    assert previous.executions == 10
    assert previous.pass_rate == pytest.approx((4 * 10 + 6 * 8) / 100)
    assert digest.pass_rate_delta == pytest.approx(96 / 110 - 88 / 100)
    assert digest.basis.executions == 14
    assert digest.basis.running == 2
    assert digest.basis.start == WINDOW.start
    assert digest.basis.end == WINDOW.end


def test_an_empty_window_has_empty_sections_and_no_pass_rate() -> None:
    quiet = custom_window(ts("2025-05-01 00:00"), ts("2025-05-02 00:00"))
    digest = standup_digest(history(), quiet)
    assert digest.turned_red.empty
    assert digest.fixed.empty
    assert digest.slower.empty
    assert digest.current.executions == 0
    assert digest.current.pass_rate is None
    assert digest.pass_rate_delta is None
    assert digest.results_needed == ()
    # Still failing is about now, not the window: plans 3 and 8 are still red.
    assert digest.still_failing["plan_id"].tolist() == [3, 8]
    assert not digest.still_failing["latest_in_window"].any()


def test_no_executions_at_all() -> None:
    digest = standup_digest(executions([]), WINDOW)
    assert digest.turned_red.empty
    assert digest.still_failing.empty
    assert digest.running.empty
    assert list(digest.turned_red.columns)[:3] == ["plan_id", "plan", "project_id"]
    assert digest.current.executions == 0


def test_the_digest_names_the_columns_it_needs() -> None:
    with pytest.raises(ValueError, match="runtime_ms"):
        standup_digest(history().drop(columns="runtime_ms"), WINDOW)


def test_slower_needs_a_clear_change_and_enough_executions() -> None:
    rows = []
    for day in range(21, 31):  # ten baseline days, 60 s each, for three plans
        for plan in (10, 11, 12):
            rows.append(
                execution(plan * 100 + day, plan, f"2025-03-{day} 10:00", runtime_ms=60_000)
            )
    for n, hour in enumerate((10, 12, 14)):
        rows.append(execution(1090 + n, 10, f"2025-04-05 {hour}:00", runtime_ms=80_000))  # +33 %
        rows.append(execution(1190 + n, 11, f"2025-04-05 {hour}:00", runtime_ms=70_000))  # +17 %
    rows.append(execution(1290, 12, "2025-04-05 10:00", runtime_ms=180_000))  # only two
    rows.append(execution(1291, 12, "2025-04-05 12:00", runtime_ms=180_000))
    rows.append(execution(1292, 12, "2025-04-05 14:00", "running"))  # running: no runtime yet
    slower = standup_digest(executions(rows), WINDOW).slower
    assert slower["plan_id"].tolist() == [10]
    row = slower.iloc[0]
    assert row["window_median_ms"] == 80_000
    assert row["baseline_median_ms"] == 60_000
    assert row["change"] == pytest.approx(1 / 3)
    assert (row["window_executions"], row["baseline_executions"]) == (3, 10)
    exactly = standup_digest(executions(rows), WINDOW, slower_threshold=1 / 6).slower
    assert exactly["plan_id"].tolist() == [10, 11]  # at the threshold counts


def test_newly_failing_scenarios_compare_the_latest_two_judged_executions() -> None:
    digest = standup_digest(history(), WINDOW)
    pairs = digest.pairs.set_index("plan_id")
    # Plans whose latest judged execution is in the window, failed something, and has one before.
    assert sorted(pairs.index) == [1, 3, 4, 6, 8]
    assert (pairs.loc[4, "before_execution_id"], pairs.loc[4, "after_execution_id"]) == (401, 402)
    assert digest.results_needed == (102, 103, 304, 305, 401, 402, 601, 603, 801, 802)

    rows = [
        # plan 1: scenario 1 breaks on Safari only; scenario 2 was already failing; 3 passes
        result(102, 1, "SUCCESS", DESKTOP),
        result(102, 1, "SUCCESS", CHROME),
        result(103, 1, "FAILURE", DESKTOP, message="Element not found"),
        result(103, 1, "SUCCESS", CHROME),
        result(102, 2, "ERROR", CHROME),
        result(103, 2, "ERROR", CHROME),
        result(102, 3, "SUCCESS", CHROME),
        result(103, 3, "SUCCESS", CHROME),
        # plan 4: a new scenario on the phone fails (missing before: not "newly failing")
        result(401, 7, "SUCCESS", IPHONE, plan_id=4),
        result(402, 7, "SUCCESS", IPHONE, plan_id=4),
        result(402, 8, "FAILURE", IPHONE, plan_id=4),
        # plan 6: warned before, fails now: not a pass turned fail
        result(601, 9, "WARNING", CHROME, plan_id=6),
        result(603, 9, "FAILURE", CHROME, plan_id=6),
        # an execution nobody asked for is ignored
        result(999, 1, "FAILURE", CHROME),
    ]
    full = with_newly_failing(digest, results(rows))
    newly = full.newly_failing
    assert newly is not None
    assert newly[["plan_id", "scenario_id", "environment", "execution_id"]].values.tolist() == [
        [1, 1, "SAFARI / macOS", 103]
    ]
    assert newly.iloc[0]["previous_execution_id"] == 102
    assert newly.iloc[0]["message"] == "Element not found"
    assert newly.iloc[0]["plan"] == "Plan 1"
    basis = full.newly_failing_basis
    assert basis is not None
    assert (basis.executions, basis.with_results) == (10, 6)


def test_executions_without_a_plan_count_as_activity_but_are_no_plan_row() -> None:
    rows = [
        execution(1, None, "2025-04-05 10:00", "fail"),
        execution(2, None, "2025-04-06 10:00", "fail"),
        execution(3, 1, "2025-04-05 10:00", "pass"),
    ]
    digest = standup_digest(executions(rows), WINDOW)
    assert digest.current.executions == 3
    assert digest.still_failing.empty
    assert plan_states(executions(rows))["plan_id"].tolist() == [1]


def test_a_missing_finished_flag_is_not_finished() -> None:
    frame = executions([execution(1, 1, "2025-04-03 10:00"), execution(2, 1, "2025-04-05 10:00")])
    frame["finished"] = pd.array([pd.NA, True], dtype="boolean")  # newest first: 2 unknown
    states = plan_states(frame).set_index("plan_id")
    assert states.loc[1, "latest_execution_id"] == 1
    assert states.loc[1, "running_execution_id"] == 2

"""The failures list on a hand-built history: one row per failed result of the period, its
failure group, since when its cell has been failing (and when that is only a bound), and its
scenario's state."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics.failures import failures
from tests.analytics.frames import CHROME, FIREFOX, execution, executions, result, results, ts


def history() -> pd.DataFrame:
    kinds = {1: "pass", 2: "fail", 3: "fail", 4: "fail", 5: "fail", 6: "fail"}
    rows = [execution(i, 1, f"2025-06-0{i} 10:00", kind) for i, kind in kinds.items()]
    rows.append(execution(7, 1, "2025-06-07 10:00", "running-fail"))
    rows += [
        execution(20, 2, "2025-06-03 08:00", "fail"),
        execution(21, 2, "2025-06-05 08:00", "fail"),
    ]
    return executions(rows)


def outcomes() -> pd.DataFrame:
    def cell(e: int, s: int, level: str, env: dict = CHROME, plan: int = 1, **more: object) -> dict:
        return result(e, s, level, env, plan_id=plan, start=f"2025-06-0{min(e, 9)} 10:05", **more)

    rows = [cell(1, 10, "SUCCESS"), cell(1, 11, "SUCCESS"), cell(1, 12, "SUCCESS", FIREFOX)]
    rows += [cell(2, 10, "FAILURE"), cell(2, 11, "SUCCESS")]  # 12 did not run
    rows += [cell(3, 10, "FAILURE"), cell(3, 11, "FAILURE")]
    rows += [
        cell(4, 10, "FAILURE", message="timeout after 30 s"),
        cell(4, 11, "SUCCESS"),
        cell(4, 12, "ERROR", FIREFOX),
    ]
    # Execution 5 failed, but its results were never read.
    rows += [
        cell(6, 10, "FAILURE"),
        cell(6, 10, "FAILURE"),
        cell(6, 11, "FAILURE"),
        cell(6, 12, "ERROR", FIREFOX),
    ]
    rows += [cell(7, 10, "FAILURE"), cell(7, 11, "WAITING")]
    rows += [
        result(20, 30, "FAILURE", CHROME, plan_id=2, start="2025-06-03 08:05"),
        result(
            21,
            30,
            "FAILURE",
            CHROME,
            plan_id=2,
            start="2025-06-05 08:05",
            message="timeout after 12 s",
        ),
    ]
    return results(rows)


def listed(start: str = "2025-06-04 00:00", **more: object) -> pd.DataFrame:
    return failures(history(), outcomes(), start=ts(start), **more).rows  # type: ignore[arg-type]


def test_every_failed_result_of_the_period_is_a_row_newest_first() -> None:
    rows = listed()

    keys = list(zip(rows["execution_id"], rows["scenario_id"], rows["environment"], strict=True))
    assert keys == [
        (7, 10, "CHROME / Windows 11"),
        (6, 10, "CHROME / Windows 11"),
        (6, 10, "CHROME / Windows 11"),  # a retry is a failed result too
        (6, 11, "CHROME / Windows 11"),
        (6, 12, "FIREFOX / Linux"),
        (21, 30, "CHROME / Windows 11"),
        (4, 10, "CHROME / Windows 11"),
        (4, 12, "FIREFOX / Linux"),
    ]
    assert rows["plan"].iloc[0] == "Plan 1"


def since(rows: pd.DataFrame, execution_id: int, scenario: int) -> tuple[object, ...]:
    row = rows[(rows["execution_id"] == execution_id) & (rows["scenario_id"] == scenario)].iloc[0]
    return (
        int(row["failing_since_execution_id"]),
        bool(row["failing_since_is_bound"]),
        int(row["failures_in_a_row"]),
    )


def test_failing_since_walks_back_to_the_last_pass_or_green_execution() -> None:
    rows = listed()

    # 10 failed in 2, 3 and 4; it passed in 1 (green).
    assert since(rows, 4, 10) == (2, False, 3)
    assert rows[rows["execution_id"] == 4]["failing_since"].iloc[0] == ts("2025-06-02 10:00")
    # 12 did not run in 2 and 3 (stepped over); it passed in 1.
    assert since(rows, 4, 12) == (4, False, 1)
    # Execution 5's results were not read: from 6 on, nothing before it is known.
    assert since(rows, 6, 10) == (6, True, 1)
    assert since(rows, 6, 11) == (6, True, 1)
    # The running execution counts as it failed; 6 before it failed too.
    assert since(rows, 7, 10) == (6, True, 2)
    # Plan 2 failed from its first execution: at least since then.
    assert since(rows, 21, 30) == (20, True, 2)


def test_a_known_execution_ends_the_walk_without_a_bound() -> None:
    # Reading execution 5 (it holds no result of these cells: they did not run there) lets
    # the walk step over it to what is known.
    rows = listed(read=[1, 2, 3, 4, 5, 6, 7, 20, 21])
    assert since(rows, 6, 10) == (2, False, 4)
    assert since(rows, 6, 11) == (6, False, 1)  # it passed in 4


def test_each_row_names_its_failure_group_and_its_scenario_s_state() -> None:
    states = pd.DataFrame(
        {"plan_id": [1, 1], "scenario_id": [10, 11], "state": ["broken", "flaky"]}
    )
    rows = listed(states=states)

    by_execution = rows.set_index(["execution_id", "scenario_id"])
    assert by_execution.loc[(4, 10), "signature"] == "timeout after {n} s"
    assert by_execution.loc[(21, 30), "signature"] == "timeout after {n} s"
    assert by_execution.loc[(4, 12), "signature"] == ""  # no message
    assert by_execution.loc[(4, 10), "state"] == "broken"
    assert by_execution.loc[(6, 11), "state"] == "flaky"
    assert pd.isna(by_execution.loc[(21, 30), "state"])  # no state given for it


def test_the_period_and_its_basis() -> None:
    found = failures(
        history(), outcomes(), start=ts("2025-06-06 00:00"), end=ts("2025-06-07 00:00")
    )

    assert set(found.rows["execution_id"]) == {6}
    assert (found.basis.executions, found.basis.with_results) == (1, 1)
    assert failures(history(), outcomes(), start=ts("2025-07-01 00:00")).rows.empty


def test_the_failing_executions_of_a_period_and_frames_read_twice() -> None:
    from dashboard.analytics.failures import failing_executions, together

    chosen = failing_executions(history(), start=ts("2025-06-05 00:00"), end=ts("2025-06-07 00:00"))
    assert sorted(chosen["execution_id"]) == [5, 6, 21]  # 7 starts at the end: not in it
    read = outcomes()
    assert len(together([read, read.head(3)], "result_id")) == len(read)
    assert together([read.head(0), read.head(0)], "result_id").empty


def test_a_history_with_no_green_execution_and_no_pass_lists_every_failure_as_a_bound() -> None:
    """No plan given was ever green and no cell ever passed (every walk back meets no stop):
    each failure counts back to the oldest execution given, at least."""
    history = executions([execution(e, 2, f"2025-06-0{e - 17} 08:00", "fail") for e in (20, 21)])
    outcomes = results(
        [
            result(e, s, "FAILURE", CHROME, plan_id=2, start=f"2025-06-0{e - 17} 08:05")
            for e in (20, 21)
            for s in (30, 31)
        ]
    )

    rows = failures(history, outcomes, start=ts("2025-06-01 00:00")).rows

    assert len(rows) == 4
    assert rows["failing_since_is_bound"].all()
    assert set(rows["failing_since_execution_id"]) == {20}
    assert sorted(rows["failures_in_a_row"]) == [1, 1, 2, 2]

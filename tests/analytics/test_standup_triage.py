"""The standup with marks applied, on the standup rules' own hand-built history
(tests/analytics/test_standup.py): a plan whose latest execution failed only in known ways
leaves Turned red / Still failing, known newly failing cells leave their section, each mark is
one line with its plans and scenarios, an expired mark covers nothing, and marks expiring within
three days are named."""

from __future__ import annotations

from typing import Any

import pandas as pd

from dashboard.analytics.outages import outages
from dashboard.analytics.standup import standup_digest, with_newly_failing
from dashboard.analytics.standup_triage import standup_triage, standup_verdicts
from dashboard.columns import marks as columns
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import empty, typed_rows
from tests.analytics.frames import CHROME, DESKTOP, result, results, ts
from tests.analytics.test_standup import NOW, WINDOW, history

TIMEOUT = "TimeoutException: #buy after 30 ms"


def mark(mark_id: str, target: str, **fields: Any) -> dict[str, Any]:
    return {
        "mark_id": mark_id,
        "company_id": 1,
        "target": target,
        "kind": columns.KNOWN_ISSUE,
        "ticket": f"https://jira.example.com/browse/{mark_id}",
        "created_by": "ann",
        "created_at": ts("2025-04-01 09:00"),
        "updated_at": ts("2025-04-01 09:00"),
        "revision": 1,
        **fields,
    }


def latest_results() -> pd.DataFrame:
    return results(
        [
            # plan 1 turned red in 103: scenario 1 breaks on Safari, scenario 2 was failing.
            result(102, 1, "SUCCESS", DESKTOP),
            result(103, 1, "FAILURE", DESKTOP, message="Element #cart not found"),
            result(102, 2, "ERROR", CHROME, message="NullPointerException"),
            result(103, 2, "ERROR", CHROME, message="NullPointerException"),
            # plan 3 still failing: a timeout, in 304 and 305
            result(304, 4, "FAILURE", CHROME, plan_id=3, message=TIMEOUT),
            result(305, 4, "FAILURE", CHROME, plan_id=3, message=TIMEOUT.replace("30", "31")),
            # plan 8 still failing, for a reason nobody marked (its mark expired)
            result(801, 5, "FAILURE", CHROME, plan_id=8, message="AssertionError"),
            result(802, 5, "FAILURE", CHROME, plan_id=8, message="AssertionError"),
        ]
    )


def digest() -> Any:
    return with_newly_failing(standup_digest(history(), WINDOW), latest_results())


def verdicts(marks: pd.DataFrame) -> pd.DataFrame:
    """The one verdict per failed result of the red executions whose results the standup read,
    over the history's executions with their summaries counted from those results (so none is
    short of its failures)."""
    read = latest_results()
    executions = history()
    counted = read[read["level"].isin(["FAILURE", "ERROR"])].groupby("execution_id").size()
    has = executions["execution_id"].isin(counted.index)
    executions.loc[has, "failed"] = executions.loc[has, "execution_id"].map(counted)
    judged = digest().pairs["after_execution_id"].astype("int64").tolist()
    return standup_verdicts(read, executions, marks, NOW, judged=judged)


def test_a_plan_failing_only_in_known_ways_leaves_its_section_as_one_line_per_mark() -> None:
    marks = typed_rows(
        [
            mark("SHOP-1", columns.SCENARIO, plan_id=1, scenario_id=2),
            mark(
                "SHOP-2",
                columns.SCENARIO_ENVIRONMENT,
                plan_id=1,
                scenario_id=1,
                environment="SAFARI 17 / macOS",
                expires_on=ts("2025-04-09"),
            ),
            mark("SHOP-3", columns.FAILURE_GROUP, signature="TimeoutException: #buy after {n} ms"),
            mark("OLD-1", columns.SCENARIO, plan_id=8, scenario_id=5, expires_on=ts("2025-04-06")),
        ],
        MARK_COLUMNS,
    )
    before = digest()

    after, triage = standup_triage(before, verdicts(marks), marks, NOW)

    assert 1 in set(before.turned_red["plan_id"])
    # Plan 1's two failures are both known; the others turned red for unmarked reasons.
    assert set(after.turned_red["plan_id"]) == set(before.turned_red["plan_id"]) - {1}
    assert set(before.still_failing["plan_id"]) >= {3, 8}
    assert 3 not in set(after.still_failing["plan_id"])
    assert 8 in set(after.still_failing["plan_id"])  # its mark expired yesterday
    assert before.newly_failing is not None
    assert len(before.newly_failing) == 1
    assert after.newly_failing is not None
    assert after.newly_failing.empty
    known = triage.known.set_index("mark_id")
    assert sorted(known.index) == ["SHOP-1", "SHOP-2", "SHOP-3"]
    assert known.loc["SHOP-1", "plans"] == ("Plan 1",)
    assert known.loc["SHOP-1", ["scenarios", "failures", "known_plans"]].tolist() == [1, 1, 1]
    assert known.loc["SHOP-3", "plan_ids"] == (3,)
    assert known.loc["SHOP-3", "ticket"] == "https://jira.example.com/browse/SHOP-3"
    assert triage.expiring["mark_id"].tolist() == ["SHOP-2"]
    assert triage.expiring["days_left"].tolist() == [2]


def test_a_plan_with_one_unknown_failure_stays_and_its_known_one_is_a_line() -> None:
    marks = typed_rows([mark("SHOP-1", columns.SCENARIO, plan_id=1, scenario_id=2)], MARK_COLUMNS)

    after, triage = standup_triage(digest(), verdicts(marks), marks, NOW)

    assert 1 in set(after.turned_red["plan_id"])
    assert after.newly_failing is not None
    assert len(after.newly_failing) == 1
    assert triage.known["mark_id"].tolist() == ["SHOP-1"]
    assert triage.known["known_plans"].tolist() == [0]


def test_without_marks_or_results_nothing_moves() -> None:
    before = digest()
    none = empty(MARK_COLUMNS)
    marks = typed_rows([mark("SHOP-1", columns.SCENARIO, plan_id=1, scenario_id=2)], MARK_COLUMNS)

    for given_marks, given_verdicts in ((none, verdicts(none)), (marks, None)):
        after, triage = standup_triage(before, given_verdicts, given_marks, NOW)
        assert after is before
        assert triage.known.empty


def test_the_window_outages_are_carried_for_one_line_each() -> None:
    found = outages(history(), empty(MARK_COLUMNS), min_results=1, share=0.2)

    none = empty(MARK_COLUMNS)
    _, triage = standup_triage(digest(), verdicts(none), none, NOW, outages=found)

    assert triage.outages["execution_id"].tolist() == found["execution_id"].tolist()
    assert not triage.empty


def test_a_mark_that_expired_since_the_standup_is_named_and_its_failures_stay() -> None:
    marks = typed_rows(
        [
            # Its last day was Sunday 6 Apr: it stopped applying on Monday, after Friday's standup.
            mark("OLD-1", columns.SCENARIO, plan_id=8, scenario_id=5, expires_on=ts("2025-04-06")),
            # Long gone before the window: not news.
            mark("OLD-2", columns.SCENARIO, plan_id=8, scenario_id=5, expires_on=ts("2025-03-01")),
            # Closed, not expired: someone ended it.
            mark(
                "OLD-3",
                columns.SCENARIO,
                plan_id=3,
                scenario_id=4,
                expires_on=ts("2025-04-06"),
                closed_at=ts("2025-04-05 12:00"),
                closed_by="bob",
            ),
        ],
        MARK_COLUMNS,
    )
    after, triage = standup_triage(digest(), verdicts(marks), marks, NOW)
    assert triage.expired["mark_id"].tolist() == ["OLD-1"]
    assert triage.expired["stopped_applying"].tolist() == [ts("2025-04-07")]
    assert 8 in set(after.still_failing["plan_id"])  # its failures count again
    labels = triage.verdicts.set_index("execution_id")["label"]
    assert labels.loc[802] != "known"
    assert not triage.empty

"""An outage found without its results is named with its dominant message once they are read
(`outages.with_signatures`): what the Known failures page lists and the alerts leave out."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics.outages import outages, with_signatures
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import empty
from tests.analytics.frames import CHROME, execution, executions, result, results

NO_MARKS = empty(MARK_COLUMNS)


def runs() -> pd.DataFrame:
    return executions(
        [
            execution(1, 1, "2026-11-20 08:00", "fail", results=10, failed=8),  # 80 %: likely
            execution(5, 3, "2026-11-23 09:00", "fail", results=20, failed=20),  # 100 %
            execution(6, 3, "2026-11-23 10:00", "pass", results=20),
        ]
    )


def test_an_outage_is_named_with_the_message_most_of_its_failures_share() -> None:
    found = outages(runs(), NO_MARKS)  # as a page finds them: from the executions alone
    rows = [
        result(5, s, "FAILURE", CHROME, plan_id=3, message=f"Grid node {s} unreachable")
        for s in range(1, 13)
    ] + [
        result(5, s, "ERROR", CHROME, plan_id=3, message="Session lost after 30 s")
        for s in range(13, 21)
    ]

    named = with_signatures(found, results(rows)).set_index("execution_id")

    assert named.loc[5, "signature"] == "Grid node {n} unreachable"
    assert named.loc[5, "signature_failures"] == 12
    assert pd.isna(named.loc[1, "signature"])  # its results were not given: nothing invented
    assert sorted(named.index) == [1, 5]
    assert named.loc[5, "failed"] == 20  # the rest as found


def test_an_outage_already_named_keeps_its_message_when_its_results_are_not_given() -> None:
    rows = [result(5, s, "FAILURE", CHROME, plan_id=3, message="Grid down") for s in range(1, 21)]
    found = outages(runs(), NO_MARKS, results(rows))

    named = with_signatures(found, results([])).set_index("execution_id")

    assert named.loc[5, "signature"] == "Grid down"
    assert named.loc[5, "signature_failures"] == 20


def test_no_outage_is_nothing_to_name() -> None:
    found = outages(runs().query("execution_id == 6"), NO_MARKS)

    assert with_signatures(found, results([])).empty

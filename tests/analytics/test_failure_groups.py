"""Message normalisation and failure groups."""

from __future__ import annotations

import pandas as pd
import pytest

from dashboard.analytics.failure_groups import (
    GROUP_COLUMNS,
    failure_groups,
    normalise_message,
    normalise_messages,
)
from tests.analytics.frames import CHROME, DESKTOP, IPHONE, execution, executions, result, results


@pytest.mark.parametrize(
    ("message", "signature"),
    [
        (
            "SessionNotCreatedException: device did not respond within 30s",
            "SessionNotCreatedException: device did not respond within {n}s",
        ),
        ("Expected 3 items but found 12", "Expected {n} items but found {n}"),
        ("took 2.5 s (limit 1.75 s)", "took {n} s (limit {n} s)"),
        ('Element "#login-button" not found', 'Element "{…}" not found'),
        ("Text 'Welcome, Ann' missing", "Text '{…}' missing"),
        ("Session didn't start", "Session didn't start"),  # an apostrophe is not a quote
        (
            "Session 3f2b8c1e-9d4a-4b6e-8f00-1a2b3c4d5e6f expired",
            "Session {id} expired",
        ),
        ("Order 98765432 rejected", "Order {id} rejected"),
        ("Segfault at 0x7ffde4a1", "Segfault at {hex}"),
        ("Token a3f9c2e17b4d expired", "Token {hex} expired"),
        ("Failed on WIN10 with Galaxy_Note20 v1.2", "Failed on WIN10 with Galaxy_Note20 v1.2"),
        ("Line  1\n\tcolumn 7", "Line {n} column {n}"),
        ("  deadbeef  ", "deadbeef"),  # a word, not a hash (no digits)
    ],
)
def test_normalisation(message: str, signature: str) -> None:
    assert normalise_message(message) == signature


def test_normalising_a_column_keeps_missing_messages_missing() -> None:
    out = normalise_messages(pd.Series(["a 1", None, "a 2"], dtype="str"))
    assert out.iloc[0] == "a {n}"
    assert pd.isna(out.iloc[1])
    assert out.iloc[2] == "a {n}"


def window_results() -> tuple[pd.DataFrame, pd.DataFrame]:
    ex = executions(
        [execution(i, 1, f"2025-04-0{i} 10:00", "fail") for i in range(1, 5)]
        + [execution(9, 1, "2025-03-01 10:00", "fail")]
    )
    timeout = "SessionNotCreatedException: device did not respond within {}s"
    rows = [
        result(1, 1, "ERROR", IPHONE, message=timeout.format(30), start="2025-04-01 10:05"),
        result(2, 2, "ERROR", IPHONE, message=timeout.format(45), start="2025-04-02 10:05"),
        result(3, 2, "FAILURE", CHROME, message=timeout.format(60), start="2025-04-03 10:05"),
        result(4, 3, "ERROR", IPHONE, message=timeout.format(30), start="2025-04-04 10:05"),
        result(
            2, 4, "FAILURE", DESKTOP, message='Element "#buy" not found', start="2025-04-02 10:06"
        ),
        result(
            3, 5, "FAILURE", DESKTOP, message='Element "#pay" not found', start="2025-04-03 10:06"
        ),
        result(3, 6, "FAILURE", CHROME, message=None, start="2025-04-03 10:07"),
        result(4, 1, "SUCCESS", IPHONE, message="All good 1", start="2025-04-04 10:07"),
        result(4, 7, "WARNING", IPHONE, message="Slow 5s", start="2025-04-04 10:07"),
        result(8, 1, "ERROR", IPHONE, message=timeout.format(1), start="2025-04-08 10:05"),
    ]
    return ex[ex["execution_id"] != 9], results(rows)


def test_failures_of_the_window_grouped_by_signature() -> None:
    ex, res = window_results()
    report = failure_groups(ex, res)
    groups = report.groups
    assert list(groups.columns) == list(GROUP_COLUMNS)
    assert groups["signature"].tolist() == [
        "SessionNotCreatedException: device did not respond within {n}s",
        'Element "{…}" not found',
        "",
    ]
    timeout = groups.iloc[0]
    assert (timeout["failures"], timeout["scenarios"], timeout["environments"]) == (4, 3, 2)
    assert (timeout["executions"], timeout["plans"]) == (4, 1)
    assert timeout["first_seen"] == pd.Timestamp("2025-04-01 10:05", tz="UTC")
    assert timeout["last_seen"] == pd.Timestamp("2025-04-04 10:05", tz="UTC")
    assert timeout["sample_message"].endswith("within 30s")  # the latest one
    assert timeout["scenario_ids"] == (1, 2, 3)
    assert timeout["environment_labels"] == ("CHROME / Windows 11", "IPHONE 8 / iOS")
    assert timeout["execution_ids"] == (1, 2, 3, 4)
    assert len(timeout["result_ids"]) == 4
    assert list(timeout["result_ids"]) == sorted(timeout["result_ids"])
    assert groups.iloc[2]["failures"] == 1
    assert report.basis.executions == 4
    assert report.basis.with_results == 4
    assert report.basis.results == 9  # execution 8 is not in the window


def test_no_failures() -> None:
    ex, res = window_results()
    calm = failure_groups(ex, res[res["level"] == "SUCCESS"])
    assert calm.groups.empty
    assert list(calm.groups.columns) == list(GROUP_COLUMNS)

"""A failure group mark's scope, with known answers on a hand-built history: a group of its plan
covers that group's failures in that plan only, a group of one environment its failures on that
environment only (every plan, any browser version), a group of every plan all of them; the more
specific scope is named when several cover one failure, and "looks fixed" counts the runs of
the scope only."""

from __future__ import annotations

from typing import Any

import pandas as pd

from dashboard.analytics import marks as analytics
from dashboard.columns import marks as columns
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import typed_rows
from tests.analytics.frames import CHROME_130, CHROME_131, DESKTOP, result, results, ts

NOW = ts("2026-11-24 10:00")
TIMEOUT = "TimeoutException: button #buy not clickable after {n} ms"
CHROME = "CHROME / Windows 10"


def mark(mark_id: str, **fields: Any) -> dict[str, Any]:
    return {
        "mark_id": mark_id,
        "company_id": 1,
        "target": columns.FAILURE_GROUP,
        "signature": TIMEOUT,
        "kind": columns.KNOWN_ISSUE,
        "created_by": "ann",
        "created_at": ts("2026-11-01 09:00"),
        "updated_at": ts("2026-11-01 09:00"),
        "revision": 1,
        **fields,
    }


def marks(*rows: dict[str, Any]) -> pd.DataFrame:
    return typed_rows(list(rows), MARK_COLUMNS)


def timeout(execution_id: int, plan_id: int, env: dict[str, Any], result_id: int) -> dict[str, Any]:
    return result(
        execution_id,
        1,
        "FAILURE",
        env,
        plan_id=plan_id,
        message=TIMEOUT.replace("{n}", str(result_id)),
        result_id=result_id,
    )


def history() -> pd.DataFrame:
    """The timeout in plan 1 on Chrome 130 and Safari, in plan 2 on Chrome 131 and Safari; one
    other failure on Chrome in plan 1."""
    return results(
        [
            timeout(10, 1, CHROME_130, 1),
            timeout(10, 1, DESKTOP, 2),
            timeout(20, 2, CHROME_131, 3),
            timeout(20, 2, DESKTOP, 4),
            result(10, 2, "FAILURE", CHROME_130, plan_id=1, message="other", result_id=5),
        ]
    )


def covered(frame: pd.DataFrame) -> list[str]:
    return analytics.covering_marks(history(), frame)["mark_id"].fillna("-").tolist()


def test_a_group_of_one_plan_covers_its_failures_in_that_plan_only() -> None:
    assert covered(marks(mark("p1", plan_id=1))) == ["p1", "p1", "-", "-", "-"]


def test_a_group_of_one_environment_covers_its_failures_there_in_every_plan_and_version() -> None:
    assert covered(marks(mark("chrome", environment=CHROME))) == ["chrome", "-", "chrome", "-", "-"]


def test_a_group_of_every_plan_covers_every_one_of_its_failures() -> None:
    assert covered(marks(mark("all"))) == ["all", "all", "all", "all", "-"]


def test_a_group_of_one_environment_typed_with_a_version_names_the_environment() -> None:
    """As a scenario-on-environment mark made before #38 does: any version of that browser."""
    assert covered(marks(mark("v", environment="CHROME 130 / Windows 10"))) == [
        "v",
        "-",
        "v",
        "-",
        "-",
    ]


def test_the_narrower_scope_is_named_plan_then_environment_then_every_plan() -> None:
    frame = marks(
        mark("all"),
        mark("chrome", environment=CHROME),
        mark("p2", plan_id=2),
        mark("p1-chrome", plan_id=1, environment=CHROME),
    )

    assert covered(frame) == ["p1-chrome", "all", "p2", "p2", "-"]


def test_scope_in_words_of_each_mark() -> None:
    rows = marks(
        mark("p", plan_id=1),
        mark("e", environment=CHROME),
        mark("a"),
        {**mark("s", plan_id=1, scenario_id=1), "target": columns.SCENARIO},
    ).to_dict("records")

    assert [analytics.group_scope(row) for row in rows] == ["plan", "environment", "all", None]


def runs_on_two_environments(chrome_fails_at: int | None) -> pd.DataFrame:
    """Plan 1, 12 executions a day apart, each on Chrome and Safari: Safari fails the timeout in
    every one of them; Chrome only in the execution at `chrome_fails_at`."""
    rows = []
    for index in range(12):
        start = ts("2026-11-10 08:00") + pd.Timedelta(days=index)
        failing = index == chrome_fails_at
        rows.append(
            result(
                600 + index,
                1,
                "FAILURE" if failing else "SUCCESS",
                CHROME_131,
                start=start,
                message=TIMEOUT if failing else None,
            )
        )
        rows.append(result(600 + index, 2, "FAILURE", DESKTOP, start=start, message=TIMEOUT))
    return results(rows)


def test_a_group_of_one_environment_looks_fixed_on_its_environment_alone() -> None:
    frame = marks(mark("chrome", environment=CHROME), mark("p1", plan_id=1))

    clean = analytics.mark_evidence(frame, runs_on_two_environments(None), NOW)
    once = analytics.mark_evidence(frame, runs_on_two_environments(11), NOW)

    by_mark = clean.set_index("mark_id")
    assert by_mark.loc["chrome", ["runs", "failures", "looks_fixed"]].tolist() == [10, 0, True]
    # The plan's group failed on Safari in each of them: not fixed.
    assert by_mark.loc["p1", ["runs", "failures", "looks_fixed"]].tolist() == [10, 10, False]
    failed = once.set_index("mark_id").loc["chrome"]
    assert failed[["runs", "failures", "looks_fixed"]].tolist() == [10, 1, False]
    assert failed["last_failed"] == ts("2026-11-21 08:00")


def test_known_failures_and_the_form_name_each_scope() -> None:
    """What the Known failures page's Target column reads, and what the marking form offers for
    a group seen in one plan on two environments: its plan first (the default scope), each
    environment, every plan."""
    from dashboard.present import known as words

    plan_names = {1: "Checkout"}
    texts = [
        words.target_text(row, plan_names)
        for row in marks(mark("p", plan_id=1), mark("e", environment=CHROME), mark("a")).to_dict(
            "records"
        )
    ]
    assert texts == [
        f'failures "{TIMEOUT}" in Checkout',
        f'failures "{TIMEOUT}" on {CHROME}',
        f'failures "{TIMEOUT}" in every plan',
    ]

    failed = analytics.failed_of(history())
    choices = words.group_choices([TIMEOUT], plan_id=None, plan_names=plan_names, failed=failed)
    # The timeout failed in plans 1 and 2: no one plan it was made from, so no plan choice.
    assert [c.label for c in choices] == [
        f'Failures "{TIMEOUT}" on {CHROME}',
        f'Failures "{TIMEOUT}" on SAFARI / macOS',
        f'Failures "{TIMEOUT}" in every plan',
    ]
    assert choices[0].target.environment == CHROME
    assert choices[0].target.plan_id is None
    in_plan_1 = failed[failed["plan_id"] == 1]
    first = words.group_choices([TIMEOUT], plan_id=None, plan_names=plan_names, failed=in_plan_1)
    assert first[0].label == f'Failures "{TIMEOUT}" in Checkout'
    assert first[0].target.plan_id == 1


def test_a_signature_shown_in_several_groups_is_offered_once_per_scope() -> None:
    """Groups per scenario repeat a signature (one group per scenario): a mark is of the
    signature, so the form offers it once in each scope."""
    from dashboard.present import known as words

    choices = words.group_choices([TIMEOUT, TIMEOUT], plan_id=1, plan_names={1: "Checkout"})

    assert [c.label for c in choices] == [
        f'Failures "{TIMEOUT}" in Checkout',
        f'Failures "{TIMEOUT}" in every plan',
    ]

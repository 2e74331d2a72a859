"""The fast ways known failures are found, against plain references on small random frames.

`covering_marks`, `covered_failures`, `known_per_execution` and `known_cells` work out only the
failed rows, look marks up in tables of their keys and find an environment's label only where a
mark may need it; `normalise_message` skips the rules a message cannot match and keeps what it
worked out. Each is set beside the rule written plainly: one row and one mark at a time, in the
precedence `analytics.marks` states (an outage of the execution, the scenario on its environment,
the scenario, the failure group of its plan, the failure group anywhere; the oldest of equals),
and every rule of `failure_groups` applied in turn.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dashboard.analytics import marks as analytics
from dashboard.analytics.environment_names import ENVIRONMENT_COLUMNS, environment_label
from dashboard.analytics.failure_groups import _RULES, normalise_message
from dashboard.analytics.verdicts import outcome
from dashboard.columns import marks as columns
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import typed_rows
from tests.analytics.frames import CHROME, FIREFOX, IPHONE, result, results, ts

ENVIRONMENTS = (CHROME, FIREFOX, IPHONE)
LABELS = [
    environment_label(*(env.get(c, env is IPHONE) for c in ENVIRONMENT_COLUMNS))
    for env in ENVIRONMENTS
]
MESSAGES = (
    None,
    "TimeoutException: button #buy not clickable after 300 ms",
    "TimeoutException: button #buy not clickable after 900 ms",
    "AssertionError: 3 rows",
    "grid down",
)
LEVELS = ("FAILURE", "ERROR", "SUCCESS", "WARNING", "failure", "STOPPED")


@st.composite
def result_rows(draw: st.DrawFn) -> pd.DataFrame:
    rows = []
    for n in range(draw(st.integers(0, 24))):
        execution_id = draw(st.integers(1, 4))
        rows.append(
            result(
                execution_id,
                draw(st.integers(1, 3)),
                draw(st.sampled_from(LEVELS)),
                draw(st.sampled_from(ENVIRONMENTS)),
                plan_id=execution_id % 2 + 1,
                message=draw(st.sampled_from(MESSAGES)),
                result_id=n + 1,
            )
        )
    return results(rows)


@st.composite
def ledgers(draw: st.DrawFn) -> pd.DataFrame:
    signatures = [normalise_message(m) for m in MESSAGES if m] + ["", "never seen"]
    rows: list[dict[str, Any]] = []
    for n in range(draw(st.integers(0, 10))):
        target = draw(st.sampled_from(columns.TARGETS))
        fields: dict[str, Any] = {}
        if target == columns.FAILURE_GROUP:
            fields = {
                "signature": draw(st.sampled_from(signatures)),
                "plan_id": draw(st.sampled_from([None, 1, 2])),
            }
        elif target == columns.SCENARIO:
            fields = {"plan_id": draw(st.integers(1, 2)), "scenario_id": draw(st.integers(1, 3))}
        elif target == columns.SCENARIO_ENVIRONMENT:
            fields = {
                "plan_id": draw(st.integers(1, 2)),
                "scenario_id": draw(st.integers(1, 3)),
                "environment": draw(st.sampled_from([*LABELS, "SAFARI 17 / macOS"])),
            }
        else:
            fields = {"execution_id": draw(st.integers(1, 4))}
        kinds = columns.KINDS_FOR[target]
        rows.append(
            {
                "mark_id": f"m{n}",
                "company_id": 1,
                "target": target,
                "kind": draw(st.sampled_from(kinds)),
                "ticket": f"https://jira.example.com/browse/QA-{n}",
                "created_by": "ann",
                "created_at": ts("2026-11-01 09:00"),
                "updated_at": ts("2026-11-01 09:00"),
                "revision": 1,
                **fields,
            }
        )
    return typed_rows(rows, MARK_COLUMNS)


def plain_level(mark: dict[str, Any], row: dict[str, Any]) -> int | None:
    """Where `mark` stands in the precedence when it covers the failed `row` (0 first)."""
    message = row["message"]
    signature = normalise_message(message) if isinstance(message, str) else ""
    label = environment_label(*(row[c] for c in ENVIRONMENT_COLUMNS))
    target, plan = mark["target"], mark["plan_id"]
    if target == columns.EXECUTION:
        covers = mark["kind"] == columns.OUTAGE and mark["execution_id"] == row["execution_id"]
        return 0 if covers else None
    if target == columns.SCENARIO_ENVIRONMENT:
        key = (plan, mark["scenario_id"], mark["environment"])
        return 1 if key == (row["plan_id"], row["scenario_id"], label) else None
    if target == columns.SCENARIO:
        return 2 if (plan, mark["scenario_id"]) == (row["plan_id"], row["scenario_id"]) else None
    if mark["signature"] != signature:
        return None
    if pd.isna(plan):
        return 4
    return 3 if plan == row["plan_id"] else None


def plain_cover(results: pd.DataFrame, marks: pd.DataFrame) -> list[str | None]:
    """The covering mark of each row, one row and one mark at a time: the first in precedence,
    of equals the first in the marks' order (the oldest)."""
    found: list[str | None] = []
    every = marks.to_dict("records")
    for row in results.to_dict("records"):
        levels = [plain_level(m, row) for m in every] if outcome(row["level"]) == "fail" else []
        ranked = [(level, n) for n, level in enumerate(levels) if level is not None]
        found.append(every[min(ranked)[1]]["mark_id"] if ranked else None)
    return found


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(result_rows(), ledgers())
def test_the_covering_mark_is_the_one_the_plain_rule_names(
    frame: pd.DataFrame, marks: pd.DataFrame
) -> None:
    expected = plain_cover(frame, marks)

    cover = analytics.covering_marks(frame, marks)
    covered = analytics.covered_failures(frame, marks)
    per_execution = analytics.known_per_execution(frame, marks)

    assert [None if pd.isna(m) else m for m in cover["mark_id"]] == expected
    tickets = dict(zip(marks["mark_id"], marks["ticket"], strict=True))
    assert [None if pd.isna(t) else t for t in cover["ticket"]] == [
        None if m is None else tickets[m] for m in expected
    ]
    failed = [i for i, row in enumerate(frame["level"]) if outcome(row) == "fail"]
    assert list(covered.index) == [frame.index[i] for i in failed]
    assert [None if pd.isna(m) else m for m in covered["mark_id"]] == [expected[i] for i in failed]
    known: dict[int, int] = {}
    for i in failed:
        if expected[i] is not None:
            execution_id = int(frame["execution_id"].iloc[i])
            known[execution_id] = known.get(execution_id, 0) + 1
    assert per_execution.to_dict() == known
    cells = analytics.known_cells(frame, marks)
    assert int(cells["failures"].sum()) == len(failed)
    assert bool(cells["known"].all()) == all(expected[i] is not None for i in failed)


def plain_signature(message: str) -> str:
    text = message
    for pattern, placeholder in _RULES:
        text = pattern.sub(placeholder, text)
    return text.strip()


PIECES = st.sampled_from(
    [
        " ",
        "  ",
        "\t",
        "\n",
        '"',
        "'",
        "-",
        "0x",
        "0X",
        "1f",
        "deadbeef",
        "2",
        "123456",
        "7.5",
        "١٢",
        "v1.2",
        "WIN10",
        "a",
        "ok",
        "didn't",
        "_",
        ".",
        "{id}",
        "e4c1d2f0-1a2b-3c4d-5e6f-0123456789ab",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=14).map("".join) | st.text(max_size=40))
def test_a_signature_is_every_rule_applied_in_turn(message: str) -> None:
    assert normalise_message(message) == plain_signature(message)
    assert normalise_message(message) == plain_signature(message)  # as kept, the same

"""Data that contradicts itself is found on hand-built records: which kind, which records."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics.contradictions import (
    CLOCK_SLACK,
    Contradiction,
    Kind,
    execution_contradictions,
    one_execution_contradictions,
    possible_runtime,
    result_contradictions,
    summary_disagreement,
    without_impossible_runtimes,
)
from dashboard.present.notes import (
    describe_contradictions,
    describe_summary_disagreement,
)
from tests.analytics.frames import execution, executions, result, ts

NOW = ts("2026-11-20 12:00")


def results_frame(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(rows)


def test_consistent_executions_contradict_nothing() -> None:
    frame = executions([execution(i, 1, f"2026-11-{10 + i} 08:00") for i in range(1, 6)])

    assert execution_contradictions(frame, now=NOW) == ()
    assert execution_contradictions(frame.iloc[0:0], now=NOW) == ()
    assert without_impossible_runtimes(frame, "runtime_ms") is frame


def test_each_impossible_value_is_found_with_its_records() -> None:
    rows = [
        execution(1, 1, "2026-11-19 08:00"),  # fine
        execution(2, 1, "2026-11-19 09:00", runtime_ms=-5_000),
        execution(3, 1, "2026-11-19 10:00", runtime_ms=-1),
        execution(4, 1, "2027-12-24 10:00"),  # starts (and so ends) 400 days ahead
        execution(5, 1, "2026-11-19 11:00"),
        execution(6, 1, "2026-11-20 12:05"),  # within the clock slack: fine
        execution(7, 1, "2026-11-19 12:00", kind="running"),  # no end: fine
    ]
    rows[4]["end"] = ts("2026-11-19 10:59")  # ends a minute before it starts
    for row in rows[1:3]:  # the helper's end is start + runtime: keep those ends possible
        row["end"] = row["start"]
    found = execution_contradictions(executions(rows), now=NOW)

    assert found == (
        Contradiction(Kind.NEGATIVE_RUNTIME, (3, 2)),  # the frame is newest first
        Contradiction(Kind.FUTURE_START, (4,)),
        Contradiction(Kind.FUTURE_END, (4,)),
        Contradiction(Kind.END_BEFORE_START, (5,)),
    )


def test_a_negative_runtime_becomes_unknown_and_nothing_else_changes() -> None:
    frame = executions(
        [execution(1, 1, "2026-11-19 08:00"), execution(2, 1, "2026-11-19 09:00", runtime_ms=-5)]
    )

    shown = without_impossible_runtimes(frame, "runtime_ms")

    by_id = shown.set_index("execution_id")["runtime_ms"]
    assert by_id[1] == 60_000
    assert pd.isna(by_id[2])
    assert shown.drop(columns="runtime_ms").equals(frame.drop(columns="runtime_ms"))
    assert frame.set_index("execution_id")["runtime_ms"][2] == -5  # the input is untouched


def test_one_execution_by_its_header_values() -> None:
    start = ts("2026-11-19 08:00").to_pydatetime()

    assert one_execution_contradictions(1, start=start, end=start, runtime_s=0.0, now=NOW) == ()
    found = one_execution_contradictions(
        9,
        start=(NOW + CLOCK_SLACK * 2).to_pydatetime(),
        end=start,
        runtime_s=-3.0,
        now=NOW,
    )
    assert [c.kind for c in found] == [
        Kind.NEGATIVE_RUNTIME,
        Kind.FUTURE_START,
        Kind.END_BEFORE_START,
    ]
    assert all(c.ids == (9,) for c in found)
    assert possible_runtime(-3.0) is None
    assert possible_runtime(None) is None
    assert possible_runtime(4.5) == 4.5


def test_results_with_a_negative_runtime_or_a_future_start_are_found_by_scenario() -> None:
    results = results_frame(
        [
            result(1, 10, "SUCCESS"),
            result(1, 11, "FAILURE", runtime_s=-20),
            result(1, 11, "FAILURE", runtime_s=-20),  # a second environment: scenario once
            result(1, 12, "SUCCESS", start="2027-01-01 00:00"),
            result(1, 13, "SUCCESS", runtime_s=None),
        ]
    )

    assert result_contradictions(results, now=NOW) == (
        Contradiction(Kind.NEGATIVE_RUNTIME, (11,)),
        Contradiction(Kind.FUTURE_START, (12,)),
    )


def test_a_summary_the_results_deny_is_found_and_an_agreeing_one_is_not() -> None:
    results = results_frame(
        [result(1, i, "FAILURE" if i % 3 else "SUCCESS") for i in range(1, 7)]
        + [result(1, 7, "success")]
    )
    agreeing = [("SUCCESS", 3), ("FAILURE", 4), ("WARNING", 0)]
    denied = [("SUCCESS", 1)]

    assert summary_disagreement(agreeing, results) is None
    disagreement = summary_disagreement(denied, results)
    assert disagreement is not None
    assert disagreement.claimed == (("SUCCESS", 1),)
    assert disagreement.returned == (("SUCCESS", 3), ("FAILURE", 4))
    assert (disagreement.claimed_total, disagreement.returned_total) == (1, 7)
    # A running summary is not compared: the results moved on since it was read.
    assert summary_disagreement([("PROCESSING", 2), ("SUCCESS", 1)], results) is None


def test_the_notes_say_how_many_and_which_records() -> None:
    many = Contradiction(Kind.NEGATIVE_RUNTIME, tuple(range(101, 109)))
    one = Contradiction(Kind.END_BEFORE_START, (7,))

    notes = describe_contradictions([many, one], "execution")

    assert notes == [
        "8 executions have a negative runtime (#101, #102, #103, #104, #105 and 3 more), "
        "shown as unknown: the service's data contradicts itself.",
        "1 execution has an end before its start (#7), shown as the service sent it: the "
        "service's data contradicts itself.",
    ]
    assert describe_contradictions([], "execution") == []


def test_the_summary_note_quotes_both_counts() -> None:
    results = results_frame([result(1, i, "FAILURE") for i in range(2)] + [result(1, 9, "SUCCESS")])
    note = describe_summary_disagreement(summary_disagreement([("SUCCESS", 1)], results))

    assert note == (
        "The service's summary of this execution disagrees with the results it returned: the "
        "summary counts 1 result (SUCCESS 1), the service returned 3 (SUCCESS 1, FAILURE 2). "
        "The tiles above come from the summary; the table and charts below from the results."
    )
    assert describe_summary_disagreement(None) is None

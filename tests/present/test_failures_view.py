"""The Failures page's view on a hand-built history: the period's executions and the failing
ones whose results are read, the rows of the states asked for with the figures above them, the
caption, the note when none is listed, and the table's key, rows sent and columns' looks."""

from __future__ import annotations

from datetime import UTC, date, datetime

from dashboard.present import failures_view as view_of
from dashboard.present.failures_view import FailuresView, PeriodRuns
from tests.analytics.frames import execution, executions, ts
from tests.analytics.test_failures import history, outcomes


def since(text: str) -> datetime:
    return ts(text).to_pydatetime()


def view(runs: PeriodRuns, *, only: tuple[str, ...] = ()) -> FailuresView:
    read = outcomes()
    return view_of.failures_view(
        history(),
        read,
        history()[history()["finished"]],
        runs,
        read[read["execution_id"].isin(runs.failing["execution_id"])],
        only=only,
        today=date(2025, 6, 7),
        scope="",
        plan_names={1: "Smoke"},
        scenario_link=lambda plan, scenario: f"scenario?plan={plan}&scenario={scenario}",
        results_link=lambda execution_id, plan, started: f"results?execution={execution_id}",
        tz="UTC",
    )


def test_the_period_s_failing_executions_are_the_ones_read() -> None:
    runs = view_of.period_runs(history(), None, start=since("2025-06-04 00:00"), end=None)

    assert (runs.start, runs.end) == (since("2025-06-04 00:00"), None)
    assert sorted(runs.failing["execution_id"]) == [4, 5, 6, 7, 21]


def test_a_custom_period_is_read_beside_the_lookback_each_execution_once() -> None:
    custom = executions(
        [execution(40, 3, "2025-01-02 10:00", "fail"), execution(6, 1, "2025-06-06 10:00", "fail")]
    )

    runs = view_of.period_runs(history(), custom, start=None, end=since("2025-01-02 23:59:59.999"))

    # No start: from the first; the end's last millisecond is in.
    assert (runs.start, runs.end) == (datetime(1970, 1, 1, tzinfo=UTC), since("2025-01-03"))
    assert runs.executions["execution_id"].is_unique
    assert set(runs.executions["execution_id"]) == {*history()["execution_id"], 40}
    assert list(runs.failing["execution_id"]) == [40]


def test_every_failed_result_of_the_period_with_its_state_and_the_figures() -> None:
    shown = view(view_of.period_runs(history(), None, start=since("2025-06-04"), end=None))

    table = shown.table.display
    assert list(zip(table["Plan"], table["Scenario"], table["State"], strict=True))[:4] == [
        ("Smoke", 10, "\u2716 failing"),
        ("Smoke", 10, "\u2716 failing"),
        ("Smoke", 10, "\u2716 failing"),
        ("Smoke", 11, "\u21c4 flaky"),
    ]
    assert table["Failing since"].iloc[0] == "Mon 2 Jun 10:00 (5 in a row)"
    assert table["Results"].iloc[0] == "results?execution=7"
    assert table["History"].iloc[0] == "scenario?plan=1&scenario=10"
    assert shown.figures == {
        "Failed results": "8",
        "Scenarios": "4",
        "Plans": "2",
        "Failure groups": "2",
    }
    assert shown.none_note is None
    assert shown.shown_caption is None
    assert shown.caption.startswith("From 5 executions, 4 Jun")
    assert "judged over its plan's last 20 finished executions" in shown.caption


def test_a_state_with_no_failure_is_said_and_counts_nothing() -> None:
    shown = view(
        view_of.period_runs(history(), None, start=since("2025-06-04"), end=None),
        only=("broken",),
    )

    assert shown.table.empty
    assert set(shown.figures.values()) == {"0"}
    assert shown.none_note == "No result of a scenario that is broken failed in these executions."
    # The period's failures are all there, whatever the states listed.
    assert len(shown.found.rows) == 8


def test_the_table_s_key_rows_sent_and_columns_looks() -> None:
    table = view(view_of.period_runs(history(), None, start=since("2025-06-04"), end=None)).table

    assert (table.key, table.file_name, table.tz, table.max_rows) == (
        "failures.table",
        "failures.csv",
        "UTC",
        2_000,
    )
    assert {name: look.kind for name, look in table.columns.items()} == {
        "Started": "time",
        "Scenario": "ident",
        "Failure group": "text",
        "Message": "wide_text",
        "Results": "link",
        "History": "link",
        "Node log": "link",
        "Executor log": "link",
    }
    assert table.columns["Failure group"].width == "medium"

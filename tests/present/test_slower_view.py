"""The Slower scenarios page's view on a hand-built history: the table as shown with its
columns' looks, the rule, the caption and the note when nothing is slower."""

from __future__ import annotations

from datetime import date

from dashboard.present.slower_view import SlowerView, slower_view
from tests.analytics.frames import results
from tests.analytics.test_slower_scenarios import history, outcomes


def link(plan: int, scenario: int) -> str:
    return f"scenario?plan={plan}&scenario={scenario}"


def view() -> SlowerView:
    return slower_view(
        history(),
        outcomes(),
        window=20,
        today=date(2025, 5, 25),
        scope="",
        plan_names={1: "Smoke"},
        scenario_link=link,
        tz="Europe/Berlin",
    )


def test_the_slowdown_reads_with_its_medians_most_slowed_first() -> None:
    shown = view()

    assert shown.table.display[["Plan", "Scenario", "Slower by", "Evidence"]].values.tolist()[
        0
    ] == [
        "Smoke",
        1,
        "+100 %",
        "median of its last 5 completed runs 1 min 00 s against 30 s over the 15 before",
    ]
    assert list(shown.table.display["Slower by"]) == ["+100 %", "+50 %", "+25 %"]
    assert list(shown.table.display["Plan"]) == ["Smoke", "Smoke", "Plan 2"]
    assert shown.table.display["History"].iloc[0] == "scenario?plan=1&scenario=1"
    assert shown.none_note is None
    assert "each plan's last 20 finished executions" in shown.caption
    assert "5 of 6 scenarios with completed runs had enough to judge" in shown.caption
    assert "last 5 runs is at least 25% above" in shown.rule


def test_the_table_says_how_its_columns_look_and_where_it_is_kept() -> None:
    table = view().table

    assert (table.key, table.file_name, table.tz) == (
        "slower.table",
        "slower-scenarios.csv",
        "Europe/Berlin",
    )
    looks = {name: column.kind for name, column in table.columns.items()}
    assert looks == {
        "Scenario": "ident",
        "Evidence": "wide_text",
        "Latest run": "time",
        "History": "link",
    }
    assert table.columns["History"].text == "history"
    assert table.columns["Latest run"].tz == "Europe/Berlin"


def test_a_window_too_short_for_a_baseline_is_not_enough_data() -> None:
    shown = slower_view(
        history(),
        results([]),
        window=8,
        today=date(2025, 5, 25),
        scope="",
        plan_names={},
        scenario_link=link,
        tz="UTC",
    )

    assert shown.table.empty
    assert shown.none_note is not None
    assert "No scenario is 25% or more slower than its own earlier runs" in shown.none_note
    assert "the others are not enough data, never slower" in shown.caption

"""The Flaky scenarios page's view on a hand-built history: the flaky table with its known
split, the timeline or the note, the failure groups with their results, each expander's label
and table, the marking form's choices, the captions, and one view made per input."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

import pandas as pd

from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import empty
from dashboard.present import flaky_view as view_of
from dashboard.present.flaky_view import FlakyPage, FlakyView
from tests.analytics.frames import CHROME, DESKTOP, results
from tests.present.test_analytics_views import FLAKY, history, runs

NO_MARKS = empty(MARK_COLUMNS)


def page(outcomes: pd.DataFrame, **more: object) -> FlakyPage:
    analysed = history()
    return view_of.flaky_page(
        analysed,
        outcomes,
        analysed,
        NO_MARKS,
        counts=None,
        window=20,
        threshold=0.2,
        today=date(2025, 3, 10),
        scope="of plan Smoke",
        plan=1,
        plan_names={1: "Smoke"},
        tz="UTC",
        scenario_link=lambda plan, scenario: f"scenario?plan={plan}&scenario={scenario}",
        results_link=lambda execution, plan, started: f"results?execution={execution}",
        **more,  # type: ignore[arg-type]
    )


def flaky_history() -> pd.DataFrame:
    return results(runs(4, CHROME, FLAKY) + runs(4, DESKTOP, "P" * 10) + runs(5, CHROME, "P" * 10))


def test_the_flaky_table_with_its_known_split_and_the_timeline() -> None:
    shown = page(flaky_history())

    table = shown.table.display
    assert list(table["Scenario"]) == [4, 4]
    assert list(table["Evidence"]) == ["6 flips in 10 runs"] * 2
    assert list(table["Unresolved"]) == [4, 4]
    assert list(table["Known"]) == [0, 0]
    assert (shown.table.key, shown.table.file_name) == ("flaky.table", "flaky-scenarios.csv")
    assert {name: look.kind for name, look in shown.table.columns.items()} == {
        "Scenario": "ident",
        "Score": "number",
        "History": "link",
    }
    assert shown.table.columns["Score"].format == "%.2f"
    assert shown.chart is not None
    assert shown.legend.startswith("Timeline, oldest first:")
    assert shown.window_caption.startswith("From 10 executions of plan Smoke")
    assert "each plan's last 20 finished executions" in shown.window_caption
    assert shown.not_enough_runs is None
    assert shown.known_runs.startswith("Unresolved and Known split each row's failed runs")


def test_the_failure_groups_their_results_and_the_marking_form_s_choices() -> None:
    shown = page(flaky_history())

    assert shown.groups_table is not None
    groups = shown.groups_table.display
    # "Timeout after 30s in session 0x0001" and the rest: one message once normalised.
    assert list(groups["Failures"]) == [4]
    assert {look.kind for look in shown.groups_table.columns.values()} == {"time"}
    assert shown.known_caption is not None
    assert shown.known_caption.startswith("0 of the 4 failures are known (marked), 4 unresolved")
    assert shown.mark_choices
    assert len(shown.group_sections) == 1
    label, results_table = shown.group_sections[0]
    # The message is the service's: escaped, so the expander shows it literally.
    assert label == (
        r"Timeout after \{n\}s in session \{hex\} \- 4 failures in 1 scenario on 1 environment\, "
        "first seen Sun 2 Mar"
    )
    assert (results_table.key, results_table.file_name) == ("groups.0", "failure-group-1.csv")
    assert len(results_table.display) == 4
    assert set(results_table.display["History"]) == {"scenario?plan=1&scenario=4"}
    assert shown.more_groups is None
    assert "grouped by their message" in shown.groups_caption


def test_no_flaky_scenario_and_no_failure_are_said() -> None:
    shown = page(results(runs(4, CHROME, "P" * 10)))

    assert shown.chart is None
    assert shown.table.empty
    assert shown.none_flaky == "No scenario is flaky at a threshold of 0.2 over these executions."
    assert shown.groups_table is None
    assert shown.no_failures == "No result failed in these executions."
    assert shown.group_sections == ()
    assert shown.mark_choices == []


def test_the_view_is_made_through_the_memo_once_per_its_inputs() -> None:
    made: dict[tuple[object, ...], FlakyView] = {}
    asked: list[tuple[object, ...]] = []

    def memo(inputs: tuple[object, ...], build: Callable[[], FlakyView]) -> FlakyView:
        asked.append(inputs)
        if inputs not in made:
            made[inputs] = build()
        return made[inputs]

    first = page(flaky_history(), memo=memo)
    again = page(flaky_history(), memo=memo)

    assert len(made) == 1
    assert asked[0] == asked[1]
    assert again.view is first.view
    assert asked[0][2:4] == (20, 0.2)  # W and the threshold name the view


def test_without_verdicts_the_verdict_columns_are_dashes_and_outages_are_said() -> None:
    shown = page(flaky_history(), outages=(2, False))
    table = shown.table.display
    assert list(table.columns[-3:]) == ["Verdict", "Verdict evidence", "Timeline"]
    assert set(table["Verdict"]) == {"\u2013"}
    assert set(table["Verdict evidence"]) == {"\u2013"}
    assert "2 likely outages" in shown.window_caption
    assert '"Include outages" shows their failures in the groups' in shown.window_caption
    included = page(flaky_history(), outages=(2, True))
    assert "never counted in the scores" in included.window_caption

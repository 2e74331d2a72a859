"""The Flaky scenarios page's view on a hand-built history: the flaky table with its known
split, the timeline or the note, the failure groups with their results, each expander's label
and table, the marking form's choices, the captions, and one view made per input."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

import pandas as pd

from dashboard.analytics.failure_groups import Grouping
from dashboard.analytics.group_rules import CATEGORY, MERGE, team_rules
from dashboard.columns.marks import FAILURE_GROUP, MARK_COLUMNS
from dashboard.columns.shapes import empty
from dashboard.data.store.group_rules import search_many, usable
from dashboard.present import flaky_view as view_of
from dashboard.present.csv import to_csv
from dashboard.present.flaky_view import FlakyPage, FlakyView
from tests.analytics.frames import CHROME, DESKTOP, results
from tests.analytics.triage_frames import mark, marks
from tests.present.test_analytics_views import FLAKY, history, runs

NO_MARKS = empty(MARK_COLUMNS)


def page(outcomes: pd.DataFrame, **more: object) -> FlakyPage:
    analysed = history()
    applying = more.pop("marks", NO_MARKS)
    return view_of.flaky_page(
        analysed,
        outcomes,
        analysed,
        applying,  # type: ignore[arg-type]
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
        r"Timeout after \{n\}s in session \{hex\} \- 4 failures in scenario 4 on 1 environment\, "
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


TIMEOUT = "Timeout after {n}s in session {hex}"


def two_scenarios() -> pd.DataFrame:
    """Scenario 4 times out 4 times on Chrome, scenario 5 twice on the desktop: one message."""
    return results(runs(4, CHROME, FLAKY) + runs(5, DESKTOP, "PPPPPPPPFF"))


def test_the_same_message_in_two_scenarios_is_two_groups_by_default_and_one_across() -> None:
    by_scenario = page(two_scenarios())
    across = page(two_scenarios(), grouping=Grouping.ACROSS)

    assert by_scenario.groups_table is not None
    assert across.groups_table is not None
    groups = by_scenario.groups_table.display
    assert groups["Failures"].tolist() == [4, 2]
    assert groups["Scenario ids"].tolist() == ["4", "5"]
    assert across.groups_table.display["Failures"].tolist() == [6]
    assert by_scenario.group_sections[1][0].startswith(
        r"Timeout after \{n\}s in session \{hex\} \- 2 failures in scenario 5 on 1 environment"
    )
    assert "in one scenario of a plan" in by_scenario.groups_caption
    assert "across scenarios" in across.groups_caption
    # A mark still names the signature: offered once, whatever the groups.
    assert [c.label for c in by_scenario.mark_choices] == [c.label for c in across.mark_choices]


def test_a_group_mark_covers_each_scenario_s_group_by_its_own_failures() -> None:
    marked = marks(mark("m1", FAILURE_GROUP, signature=TIMEOUT, plan_id=1))

    shown = page(two_scenarios(), marks=marked)

    assert shown.groups_table is not None
    groups = shown.groups_table.display
    assert groups["Known"].tolist() == [4, 2]
    assert groups["Unresolved"].tolist() == [0, 0]
    assert set(groups["Mark"]) == {"M1"}


def test_the_team_s_rules_name_categories_and_merged_groups_in_the_table_and_csv() -> None:
    stored = pd.DataFrame(
        [
            {
                "rule_id": "c5",
                "message_pattern": "Timeout",
                "scenario_pattern": "^5$",
                "action": CATEGORY,
                "label": "infrastructure",
                "removed_at": None,
            },
            {
                "rule_id": "m4",
                "message_pattern": "Timeout",
                "scenario_pattern": "^4$",
                "action": MERGE,
                "label": "Checkout timeouts",
                "removed_at": None,
            },
        ]
    )
    rules = team_rules(stored, usable, search_many)

    shown = page(two_scenarios(), rules=rules)

    assert shown.groups_table is not None
    groups = shown.groups_table.display
    assert groups["Message"].tolist() == ["Checkout timeouts", TIMEOUT]
    assert list(groups.columns).index("Category") == list(groups.columns).index("Last seen") + 1
    assert pd.isna(groups["Category"].iloc[0])
    assert groups["Category"].iloc[1] == "infrastructure"
    assert shown.group_sections[0][0].startswith(r"Checkout timeouts \- 4 failures in scenario 4")
    assert shown.group_sections[1][0].endswith(r"\(infrastructure\)")
    lines = to_csv(groups, tz="UTC").decode("utf-8-sig").splitlines()
    at = lines[0].split(",").index("Category")
    assert [line.split(",")[at] for line in lines[1:]] == ["", "infrastructure"]
    # The rules name the view: other rules, another view.
    assert view_of.view_inputs(
        history(), None, NO_MARKS, window=20, threshold=0.2, plan_names={}, tz="UTC", rules=rules
    ) != view_of.view_inputs(
        history(), None, NO_MARKS, window=20, threshold=0.2, plan_names={}, tz="UTC"
    )

"""The Scenario states page's view on a hand-built history: the preview of other settings beside
the applied ones, the caption's counts, the state filter, the note when no scenario is left,
and the tables' keys and columns' looks."""

from __future__ import annotations

from datetime import date

from dashboard.analytics.states import StateRules
from dashboard.present import states_view as view_of
from dashboard.present.states_view import StatesView
from tests.analytics.test_states import history, planted

APPLIED = view_of.rules(window=20, threshold=0.2, min_runs=5, broken_runs=10)


def link(plan: int, scenario: int) -> str:
    return f"scenario?plan={plan}&scenario={scenario}"


def view(proposed: StateRules | None = None, *, only: tuple[str, ...] = ()) -> StatesView:
    return view_of.states_view(
        history(),
        planted(),
        APPLIED,
        proposed or APPLIED,
        only=only,
        today=date(2025, 3, 21),
        scope="of plan Smoke",
        plan_names={1: "Smoke"},
        scenario_link=link,
    )


def test_every_scenario_in_its_state_with_the_counts_in_the_caption() -> None:
    shown = view()

    table = shown.table.display
    assert list(table["Scenario"]) == [1, 2, 3, 4, 5, 8, 9, 10, 6, 7]
    assert table["State"].iloc[0] == "\u21c4 flaky"
    assert table["History"].iloc[0] == "scenario?plan=1&scenario=1"
    assert shown.none_note is None
    assert "From 20 executions of plan Smoke" in shown.caption
    assert "each plan's last 20 finished executions" in shown.caption
    assert shown.caption.endswith(
        "1 flaky, 1 broken, 1 environment-specific, 1 recovering, 1 failing, "
        "3 not enough data, 2 passing."
    )
    assert shown.legend.startswith("Timeline, oldest first:")


def test_the_preview_holds_now_only_until_another_setting_is_proposed() -> None:
    same = view()
    assert list(same.preview.display["Scenarios"]) == ["now"]
    assert same.preview_caption.startswith("Scenarios per state with W 20, threshold 0.2, K 5")

    # K = 2: the scenario with 3 runs (and the recovering one, 3 clean runs) move.
    other = view(APPLIED.with_changes(min_runs=2))
    preview = other.preview.display.set_index("Scenarios")
    assert list(preview.index) == ["now", "with the new settings", "change"]
    assert preview.loc["now", "? not enough data"] == "3"
    assert preview.loc["change", "? not enough data"] != "no change"
    assert "With the new settings: W 20, threshold 0.2, K 2, N 10" in other.preview_caption
    # The list stays the applied settings' until they are applied.
    assert list(other.table.display["Scenario"]) == list(same.table.display["Scenario"])


def test_the_state_filter_and_the_note_when_none_is_left() -> None:
    flaky = view(only=("flaky",))
    assert list(flaky.table.display["Scenario"]) == [1]

    history_only = view_of.states_view(
        history(),
        planted().iloc[0:0],
        APPLIED,
        APPLIED,
        only=(),
        today=date(2025, 3, 21),
        scope="",
        plan_names={},
        scenario_link=link,
    )
    assert history_only.table.empty
    assert history_only.none_note == "No scenario is in these states over these executions."


def test_the_tables_keys_and_their_columns_looks() -> None:
    shown = view()

    assert (shown.table.key, shown.table.file_name) == ("states.table", "scenario-states.csv")
    assert (shown.preview.key, shown.preview.file_name) == (
        "states.preview",
        "scenario-states-preview.csv",
    )
    assert {name: look.kind for name, look in shown.table.columns.items()} == {
        "Scenario": "ident",
        "Why": "wide_text",
        "History": "link",
    }
    assert view_of.STATE_CHOICES["flaky"] == "\u21c4 flaky"


def test_without_verdicts_or_outages_the_verdict_columns_are_dashes_and_nothing_is_said() -> None:
    shown = view()
    table = shown.table.display
    assert list(table.columns[-3:]) == ["Verdict", "Verdict evidence", "Timeline"]
    assert set(table["Verdict"]) == {"\u2013"}
    assert set(table["Verdict evidence"]) == {"\u2013"}
    assert shown.outages_caption is None
    assert "latest failures" not in shown.caption


def test_the_outages_left_out_are_said() -> None:
    shown = view_of.states_view(
        history(),
        planted(),
        APPLIED,
        APPLIED,
        only=(),
        today=date(2025, 3, 21),
        scope="of plan Smoke",
        plan_names={1: "Smoke"},
        scenario_link=link,
        outages=2,
    )
    assert shown.outages_caption is not None
    assert shown.outages_caption.startswith("2 likely outages (an execution where at least 80%")
    assert "left out of the states" in shown.outages_caption

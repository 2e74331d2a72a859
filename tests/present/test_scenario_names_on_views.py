"""Scenario names and owners on the views (#38 item 5), with hand-built names: a named scenario
reads its name beside its id, an unnamed one keeps its id alone ("Scenario N" where a label is
a sentence); names are text (markup stays literal in the table, escaped in a title); a name that
looks like a formula is escaped in the CSV; "only mine" keeps the scenarios an address owns."""

from __future__ import annotations

import io
from datetime import UTC, date, datetime

import pandas as pd

from dashboard.analytics import triage
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.schemas import PLAN_COLUMNS
from dashboard.columns.shapes import empty
from dashboard.present import compare_view, scenario_view
from dashboard.present import failures_view as failures_of
from dashboard.present import scenario as scenario_words
from dashboard.present import states_view as states_of
from dashboard.present.csv import to_csv
from dashboard.present.failures_view import FailuresView
from dashboard.present.formatting import WORD_JOINER
from dashboard.present.slower_view import slower_view
from dashboard.present.states_view import StatesView
from dashboard.present.tables import NAME_COLUMN, OWNER_COLUMN, owned_by, with_names
from tests.analytics.frames import ts
from tests.analytics.test_failures import history, outcomes
from tests.analytics.test_states import history as states_history
from tests.analytics.test_states import planted
from tests.analytics.triage_frames import NO_MARKS

MARKUP = "<b>Pay</b> **now** [x](http://evil.example)"
FORMULA = '=HYPERLINK("http://evil.example","click")'


def names(*rows: tuple[int, str, str | None]) -> pd.DataFrame:
    """A company's names as the store gives them (`SCENARIO_NAME_COLUMNS`)."""
    return pd.DataFrame(
        {
            "scenario_id": pd.array([r[0] for r in rows], dtype="int64"),
            "name": pd.array([r[1] for r in rows], dtype="str"),
            "owner": pd.array([r[2] for r in rows], dtype="str"),
            "tags": pd.array([None] * len(rows), dtype="str"),
            "changed_by": pd.array(["lead@example.com"] * len(rows), dtype="str"),
            "changed_at": pd.array(
                [pd.Timestamp("2026-11-20", tz="UTC")] * len(rows), dtype="datetime64[us, UTC]"
            ),
        }
    )


# Failures' hand-built history lists scenarios 10 (failing), 11 (flaky), 12 and 30.
FAILURE_NAMES = names(
    (10, "Checkout as guest", "ada@example.com"),
    (11, MARKUP, "bob@example.com"),
    (30, FORMULA, "ADA@example.com"),
)


def failures(
    given: pd.DataFrame | None = FAILURE_NAMES, only_owner: str | None = None
) -> FailuresView:
    read = outcomes()
    runs = failures_of.period_runs(
        history(), None, start=datetime(2025, 6, 1, tzinfo=UTC), end=None
    )
    failing = read[read["execution_id"].isin(runs.failing["execution_id"])]
    verdicts = triage.failure_verdicts(
        failures_of.triage_results(read, failing),
        runs.executions,
        NO_MARKS,
        now=ts("2025-06-07 12:00"),
        judged=runs.judged,
    )
    return failures_of.failures_view(
        history(),
        read,
        history()[history()["finished"]],
        runs,
        failing,
        verdicts=verdicts,
        marks=NO_MARKS,
        include_outages=False,
        only=(),
        now=datetime(2025, 6, 7, 12, tzinfo=UTC),
        scope="",
        plan_names={1: "Smoke"},
        scenario_link=lambda plan, scenario: f"scenario?plan={plan}&scenario={scenario}",
        results_link=lambda execution_id, plan, started: f"results?execution={execution_id}",
        tz="UTC",
        names=given,
        only_owner=only_owner,
    )


def by_scenario(display: pd.DataFrame, column: str) -> dict[object, str]:
    known = display[display["Scenario"].notna()]
    return dict(zip(known["Scenario"].astype("int64"), known[column], strict=True))


def test_failures_name_each_scenario_and_its_owner_and_unnamed_ones_keep_their_id() -> None:
    table = failures().table.display

    assert by_scenario(table, NAME_COLUMN) == {
        10: "Checkout as guest",
        11: MARKUP,
        12: "",
        30: FORMULA,
    }
    assert by_scenario(table, OWNER_COLUMN) == {
        10: "ada@example.com",
        11: "bob@example.com",
        12: "",
        30: "ADA@example.com",
    }
    # Beside the verdict's columns, the ids kept: a link and a search still find the scenario.
    columns = list(table.columns)
    assert columns.index(NAME_COLUMN) == columns.index("State") + 1
    assert columns[columns.index(NAME_COLUMN) + 1] == OWNER_COLUMN
    assert failures().table.columns[NAME_COLUMN].kind == "text"


def test_failures_without_names_are_the_table_they_were() -> None:
    unnamed = failures(None).table
    assert NAME_COLUMN not in unnamed.display.columns
    assert OWNER_COLUMN not in unnamed.display.columns
    assert NAME_COLUMN not in unnamed.columns
    no_names = failures(names()).table.display
    assert list(no_names.columns) == list(unnamed.display.columns)
    assert len(no_names) == len(unnamed.display)


def test_the_csv_carries_the_names_a_formula_escaped() -> None:
    table = failures().table
    read = pd.read_csv(io.BytesIO(to_csv(table.display, tz="UTC")), encoding="utf-8-sig")

    named = dict(zip(read["Scenario"], read[NAME_COLUMN], strict=True))
    assert named[10] == "Checkout as guest"
    assert named[11] == MARKUP  # text, as typed
    assert named[30] == "'" + FORMULA  # a spreadsheet shows it, never runs it
    assert set(read[OWNER_COLUMN].dropna()) == {
        "ada@example.com",
        "bob@example.com",
        "ADA@example.com",
    }


def test_only_mine_keeps_the_scenarios_the_address_owns_whatever_its_case() -> None:
    mine = failures(only_owner="ada@example.com")

    assert set(mine.table.display["Scenario"].astype("int64")) == {10, 30}
    assert mine.none_note is None
    nobody = failures(only_owner="eve@example.com")
    assert nobody.table.display.empty
    assert nobody.none_note == failures_of.NONE_OWNED
    # The figures count the rows listed.
    assert mine.figures[next(iter(mine.figures))] != failures().figures[next(iter(mine.figures))]


def states(given: pd.DataFrame | None, only_owner: str | None = None) -> StatesView:
    applied = states_of.rules(window=20, threshold=0.2, min_runs=5, broken_runs=10)
    return states_of.states_view(
        states_history(),
        planted(),
        applied,
        applied,
        only=(),
        today=datetime(2025, 3, 21).date(),
        scope="of plan Smoke",
        plan_names={1: "Smoke"},
        scenario_link=lambda plan, scenario: f"scenario?plan={plan}&scenario={scenario}",
        names=given,
        only_owner=only_owner,
    )


def test_states_name_each_scenario_and_its_owner_and_filter_only_mine() -> None:
    given = names((1, "Search by tag", "ada@example.com"), (2, MARKUP, None))
    table = states(given).table

    assert by_scenario(table.display, NAME_COLUMN) == {
        1: "Search by tag",
        2: MARKUP,
        **dict.fromkeys((3, 4, 5, 6, 7, 8, 9, 10), ""),
    }
    assert by_scenario(table.display, OWNER_COLUMN)[1] == "ada@example.com"
    assert by_scenario(table.display, OWNER_COLUMN)[2] == ""
    assert list(table.display.columns[:6]) == [
        "Plan",
        "Scenario",
        "State",
        "History",
        "Why",
        NAME_COLUMN,
    ]
    mine = states(given, "Ada@Example.com")
    assert list(mine.table.display["Scenario"]) == [1]
    assert states(given, "eve@example.com").none_note == states_of.NONE_OWNED
    assert NAME_COLUMN not in states(None).table.display.columns


def test_the_picker_and_the_title_read_the_name_and_keep_the_id() -> None:
    given = names((402, "Checkout as guest", None), (7, MARKUP, None))

    assert scenario_words.scenario_options((402, 403), None, given) == {
        402: "Checkout as guest (402)",
        403: "Scenario 403",
    }
    assert scenario_words.scenario_options((403,), 402, given)[402] == (
        "Checkout as guest (402) (no longer in the plan)"
    )
    assert scenario_words.scenario_options((402,), None) == {402: "Scenario 402"}
    assert scenario_view.title_text(402, given) == "Checkout as guest (402)"
    assert scenario_view.title(403, given) == "Scenario 403"
    # Markup in a name is escaped in the (markdown) title: shown, never rendered.
    escaped = scenario_view.title(7, given)
    for markup in ("<b>", "**", "]("):
        assert markup not in escaped
    # Only escapes added (and a word joiner that keeps a bare address from becoming a link).
    assert escaped.replace("\\", "").replace(WORD_JOINER, "") == MARKUP + " (7)"


def test_with_names_and_owned_by_on_missing_ids() -> None:
    given = names((1, "One", "a@example.com"))
    display = pd.DataFrame({"Scenario": pd.array([1, None, 2], dtype="Int64"), "X": [1, 2, 3]})

    shown = with_names(display, given, after="Scenario", owners=True)
    assert list(shown.columns) == ["Scenario", NAME_COLUMN, OWNER_COLUMN, "X"]
    assert list(shown[NAME_COLUMN]) == ["One", "", ""]
    assert list(owned_by(display["Scenario"], given, " A@example.com ")) == [True, False, False]
    assert not owned_by(display["Scenario"], None, "a@example.com").any()


def test_slower_and_flaky_name_their_scenarios_beside_the_id() -> None:
    from tests.present import test_flaky_view as flaky_case
    from tests.present import test_slower_view as slower_case

    slower = slower_case.view()
    named = slower_view(
        slower_case.history(),
        slower_case.outcomes(),
        window=20,
        today=slower_case.date(2025, 5, 25),
        scope="",
        plan_names={1: "Smoke"},
        scenario_link=slower_case.link,
        tz="Europe/Berlin",
        names=names((1, "Checkout as guest", None)),
    ).table.display
    assert list(named[NAME_COLUMN]) == ["Checkout as guest", "", ""]
    assert list(named.columns).index(NAME_COLUMN) == list(named.columns).index("Evidence") + 1
    assert NAME_COLUMN not in slower.table.display.columns

    flaky = flaky_case.page(
        flaky_case.flaky_history(),
        names=names((4, MARKUP, "ada@example.com"), (5, "Not flaky", None)),
    ).table.display
    assert by_scenario(flaky, NAME_COLUMN) == {4: MARKUP}
    assert OWNER_COLUMN not in flaky.columns


def test_compare_names_its_scenarios_beside_the_id() -> None:
    from tests.present import test_compare_view as compare_case

    plain = compare_case._view(only_changes=False).table.display
    runs, found = compare_case._history()
    given = names((11, MARKUP, None))
    named = compare_view.compare_view(
        compare_view.pair_choice(runs, compare_case.PLAN, compare_case.found_outages()),
        found,
        empty(MARK_COLUMNS),
        plans=empty(PLAN_COLUMNS),
        plan_names={compare_case.PLAN: "Checkout"},
        plan_name="Checkout",
        before=1,
        after=2,
        only_changes=False,
        tz="UTC",
        today=date(2025, 3, 31),
        scenario_link=lambda p, s: f"scenario?plan={p}&scenario={s}",
        names=given,
    ).table.display

    columns = list(named.columns)
    assert columns.index(NAME_COLUMN) == columns.index("History") + 1
    assert by_scenario(named, NAME_COLUMN) == {10: "", 11: MARKUP}
    assert NAME_COLUMN not in plain.columns

"""The Compare executions page's view, from hand-built frames: the notes above the comparison,
the KPI tiles, what changed, the chart, the failures to mark and the table with its columns'
looks, all without Streamlit."""

from __future__ import annotations

from datetime import date

import pandas as pd

from dashboard.analytics.outages import LIKELY
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.schemas import PLAN_COLUMNS
from dashboard.columns.shapes import empty
from dashboard.present import compare_view
from dashboard.present.compare_view import CompareView
from tests.analytics.frames import (
    CHROME,
    DESKTOP,
    UPGRADE_AFTER,
    UPGRADE_BEFORE,
    execution,
    executions,
    found_outages,
    result,
    results,
    upgrade_night,
)

PLAN = 1
NEW = "\u2716 new failure"
STILL_PASSING = "\u2714 still passing"


def _history() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Executions 1 (green) and 2: scenario 10 passes in both on two environments; scenario 11
    passed in 1 and fails in 2 on Chrome, 10 s slower."""
    runs = executions(
        [execution(1, PLAN, "2025-03-30 08:00"), execution(2, PLAN, "2025-03-31 08:00", "fail")]
    )
    rows = []
    for run, start in ((1, "2025-03-30 08:00"), (2, "2025-03-31 08:00")):
        rows += [
            result(run, 10, "SUCCESS", CHROME, start=start),
            result(run, 10, "SUCCESS", DESKTOP, start=start),
        ]
    rows += [
        result(1, 11, "SUCCESS", CHROME, start="2025-03-30 08:00", runtime_s=30),
        result(2, 11, "FAILURE", CHROME, start="2025-03-31 08:00", runtime_s=40, message="boom"),
    ]
    return runs, results(rows)


def _view(
    *, only_changes: bool = True, outages: pd.DataFrame | None = None, before: int = 1
) -> CompareView:
    runs, found = _history()
    choice = compare_view.pair_choice(
        runs, PLAN, outages if outages is not None else found_outages()
    )
    return compare_view.compare_view(
        choice,
        found,
        empty(MARK_COLUMNS),
        plans=empty(PLAN_COLUMNS),
        plan_names={PLAN: "Checkout"},
        plan_name="Checkout",
        before=before,
        after=2,
        only_changes=only_changes,
        tz="UTC",
        today=date(2025, 3, 31),
        scenario_link=lambda p, s: f"scenario?plan={p}&scenario={s}",
    )


def test_the_default_pair_is_the_latest_two_judged_executions_and_an_outage_is_passed_over() -> (
    None
):
    runs, _ = _history()
    choice = compare_view.pair_choice(runs, PLAN, found_outages())
    assert (choice.ids, choice.default, choice.outages) == (frozenset({1, 2}), (1, 2), {})
    assert list(choice.options("UTC")) == [2, 1]

    outage = compare_view.pair_choice(runs, PLAN, found_outages((2, LIKELY)))
    assert outage.default is None  # one judged execution left: nothing to compare by default
    assert outage.options("UTC")[2].endswith("(likely outage)")


def test_the_new_failure_is_counted_tabled_and_offered_to_mark() -> None:
    view = _view()

    assert view.kpis == (
        ("New failures", "1"),
        ("Fixed", "0"),
        ("Still failing", "0"),
        ("Runtime change", "no change"),
        ("After a browser upgrade", "0"),
    )
    assert view.summary.startswith("1 new failure, 2 still passing. Runtime ")
    assert [said.how for said in view.notes] == ["warning", "info", "caption"]
    assert not view.notes[0]
    assert not view.notes[1]
    assert view.notes[2].texts[0].endswith(": #1 before, #2 after.")
    table = view.table.display
    assert list(table["Scenario"]) == [11]
    assert list(table["Change"]) == [NEW]
    assert list(table["Message after"]) == ["boom"]
    assert list(table["History"]) == [f"scenario?plan={PLAN}&scenario=11"]
    assert (view.table.key, view.table.file_name) == ("compare.table", "compare-1-2.csv")
    assert {name: look.kind for name, look in view.table.columns.items()} == {
        "Scenario": "ident",
        "History": "link",
        "Message after": "wide_text",
    }
    assert list(view.to_mark["scenario_id"]) == [11]
    assert view.chart is not None
    assert view.chart.file_name == "compare-1-2-changes.csv"
    assert view.nothing_changed is None
    assert view.known.startswith("New failures: 1 unresolved, 0 known.")
    assert view.legend.startswith("Change: ")


def test_every_scenario_is_tabled_without_only_changes() -> None:
    table = _view(only_changes=False).table.display

    assert table["Change"].value_counts().to_dict() == {NEW: 1, STILL_PASSING: 2}


def test_the_same_environments_and_an_unchanged_plan_are_said_so() -> None:
    said = "\n".join(_view().changes.texts)

    assert _view().changes.how == "plain"
    assert "Environments: the same on both." in said
    assert "Started failing with" not in said


def test_an_upgrade_night_counts_three_new_failures_two_with_the_upgrade() -> None:
    """Chrome went 130 -> 131 the night scenarios 1 and 2 started failing on it; scenario 3
    failed on Firefox (tests/analytics/frames.upgrade_night). #38: one row per scenario and
    environment, the versions beside it, no "missing before/after" noise."""
    runs = executions(
        [
            execution(UPGRADE_BEFORE, PLAN, "2026-11-23 02:00"),
            execution(UPGRADE_AFTER, PLAN, "2026-11-24 02:00", "fail"),
        ]
    )
    view = compare_view.compare_view(
        compare_view.pair_choice(runs, PLAN, found_outages()),
        upgrade_night(),
        empty(MARK_COLUMNS),
        plans=empty(PLAN_COLUMNS),
        plan_names={PLAN: "Checkout"},
        plan_name="Checkout",
        before=UPGRADE_BEFORE,
        after=UPGRADE_AFTER,
        only_changes=False,
        tz="UTC",
        today=date(2026, 11, 24),
        scenario_link=lambda p, s: f"scenario?plan={p}&scenario={s}",
    )

    kpis = dict(view.kpis)
    assert (kpis["New failures"], kpis["After a browser upgrade"]) == ("3", "2")
    assert view.summary.startswith("3 new failures, 7 still passing. ")
    said = view.changes.texts
    assert "2 new failures started with a browser upgrade." in said
    assert "New failures on CHROME / Windows 10 (130 -> 131): scenarios 1, 2." in said
    table = view.table.display
    assert len(table) == 10
    assert not table["Change"].str.contains("missing").any()
    new = table[table["Change"] == NEW]
    assert list(zip(new["Scenario"], new["Environment"], strict=True)) == [
        (1, "CHROME / Windows 10 (130 -> 131)"),
        (2, "CHROME / Windows 10 (130 -> 131)"),
        (3, "FIREFOX / Linux (128)"),
    ]
    # What a mark made from here names: the environment, without its version.
    assert set(view.to_mark["environment"]) == {"CHROME / Windows 10", "FIREFOX / Linux"}

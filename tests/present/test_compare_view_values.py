"""The Compare executions page's figures computed by its view, on the hand-built history of the
page tests written as frames (`test_slower_view_values.hand_built_history`): the default pair,
what changed between the latest two finished executions, and the table with and without "only
changes". Moved here from the page's AppTest, which keeps the wiring (#36)."""

from __future__ import annotations

from datetime import date

from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.schemas import PLAN_COLUMNS
from dashboard.columns.shapes import empty
from dashboard.present import compare_view
from dashboard.present.compare_view import CompareView
from tests.analytics.frames import found_outages
from tests.dashboard import history_service as hand
from tests.present.test_slower_view_values import hand_built_history

NEW = "\u2716 new failure"


def _view(*, only_changes: bool = True) -> CompareView:
    executions, results = hand_built_history()
    plan_runs = executions[executions["plan_id"] == hand.PLAN_ID]
    choice = compare_view.pair_choice(plan_runs, hand.PLAN_ID, found_outages())
    assert choice.default is not None
    before, after = choice.default
    return compare_view.compare_view(
        choice,
        results[results["execution_id"].isin([before, after])],
        empty(MARK_COLUMNS),
        plans=empty(PLAN_COLUMNS),
        plan_names={hand.PLAN_ID: hand.PLAN_NAME},
        plan_name=hand.PLAN_NAME,
        before=before,
        after=after,
        only_changes=only_changes,
        tz="UTC",
        today=date(2026, 11, 20),
        scenario_link=lambda p, s: f"scenario?plan={p}&scenario={s}",
    )


def test_the_hand_built_history_compares_its_latest_two_finished_executions() -> None:
    executions, _ = hand_built_history()
    *_, before, after = hand.execution_ids()  # the running one is never a default
    choice = compare_view.pair_choice(
        executions[executions["plan_id"] == hand.PLAN_ID], hand.PLAN_ID, found_outages()
    )
    assert choice.default == (before, after)

    view = _view()

    table = view.table.display
    # The flaky scenario passed in 1011 and failed in 1012 on its three environments; 32, 34
    # and 35 fail in both (still failing), the rest pass in both.
    assert list(table["Scenario"]) == [hand.FLAKY] * 3
    assert set(table["Change"]) == {NEW}
    kpis = dict(view.kpis)
    assert kpis["Still failing"] == "5"
    assert kpis["Runtime change"] == "+7 s"

    every = _view(only_changes=False).table.display
    assert len(every) == 5 * 3
    counts = every["Change"].value_counts().to_dict()
    assert counts == {NEW: 3, "\u2716 still failing": 5, "\u2714 still passing": 7}

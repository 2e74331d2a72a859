"""The Scenario states page's figures computed by its view, on the hand-built history of the
page tests written as frames (`test_slower_view_values.hand_built_history`), fed as the page
feeds it: each plan's last W finished executions, their results, and the verdicts of their
failures (`ui.triage.verdicts_of`'s `failure_verdicts`, no marks). Moved here from the page's
AppTest, which keeps the wiring (#36)."""

from __future__ import annotations

from datetime import date

import pandas as pd

from dashboard.analytics.flaky import last_finished
from dashboard.analytics.triage import failure_verdicts
from dashboard.present import states_view
from dashboard.present.states_view import StatesView
from tests.analytics.triage_frames import NO_MARKS
from tests.dashboard import history_service as hand
from tests.present.test_slower_view_values import hand_built_history

NOW = pd.Timestamp("2026-11-20 18:00", tz="UTC")
APPLIED = states_view.rules(window=20, threshold=0.2, min_runs=5, broken_runs=10)


def _view() -> StatesView:
    executions, every_result = hand_built_history()
    chosen = last_finished(executions, APPLIED.window)["execution_id"]
    results = every_result[every_result["execution_id"].isin(chosen)]
    judged = states_view.judged(executions, APPLIED)
    verdicts = failure_verdicts(
        results, executions, NO_MARKS, now=NOW, rules=APPLIED, judged=judged
    )
    return states_view.states_view(
        executions,
        results,
        APPLIED,
        APPLIED,
        only=(),
        today=date(2026, 11, 20),
        scope="",
        plan_names={hand.PLAN_ID: hand.PLAN_NAME, hand.OTHER_PLAN_ID: "Other plan"},
        scenario_link=lambda plan, scenario: f"scenario?plan={plan}&scenario={scenario}",
        verdicts=verdicts,
        tz="UTC",
    )


def test_the_hand_built_history_puts_each_scenario_in_its_state() -> None:
    shown = _view().table.display
    found = {
        (plan, int(scenario)): (state, why)
        for plan, scenario, state, why in shown[["Plan", "Scenario", "State", "Why"]].itertuples(
            index=False
        )
    }

    plan = hand.PLAN_NAME
    assert found[(plan, hand.FLAKY)] == (
        "\u21c4 flaky",
        "7 flips in 11 chances over the last 12 runs; threshold 0.20; at least 5 runs",
    )
    assert found[(plan, hand.SPECIFIC)] == (
        "\u25d0 environment-specific",
        "fails on SAFARI / macOS in 12 of 12 runs; passes elsewhere in 24 of 24 runs; at "
        "least 3 runs each",
    )
    # #38: Firefox 128 and 129 are one environment, where 35 failed 6 of 12 runs (every run on
    # 129): not concentrated enough to be environment-specific; its latest run failed.
    assert found[(plan, hand.VERSIONED)][0] == "\u2716 failing"
    assert found[(plan, hand.VERSIONED)][1].startswith("failed its last 6 runs")
    assert found[(plan, hand.BROKEN)] == (
        "\u2716 failing",
        "failed its last 4 runs (4 of 12 runs in the window)",
    )
    assert found[(plan, hand.SLOWING)] == ("\u2714 passing", "passed all 12 runs")
    # Each row's verdict is that of its latest failure, as every page gives it.
    by_scenario = shown.set_index(["Plan", "Scenario"])
    assert by_scenario.loc[(plan, hand.FLAKY), "Verdict"] == "\u21c4 flaky"
    assert by_scenario.loc[(plan, hand.SPECIFIC), "Verdict"] == "\u25d0 environment-specific"
    assert by_scenario.loc[(plan, hand.SPECIFIC), "Verdict evidence"].startswith(
        "fails only on SAFARI / macOS: 12 of 12 runs"
    )
    assert by_scenario.loc[(plan, hand.SLOWING), "Verdict evidence"] == "no failure in the window"
    # Too few runs are never a number: the other plan's scenario ran twice.
    assert found[("Other plan", 36)] == (
        "? not enough data",
        "2 runs in the window; at least 5 needed",
    )

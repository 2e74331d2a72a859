"""The Slower scenarios page's figures computed by its view, on the hand-built history of the
page tests (`tests/dashboard/history_service.py`) written as frames: twelve finished runs an
hour apart on three environments (Firefox 128, then 129), one still running; scenario 33 takes
30 s a run, then 60 s from the eighth run on. Moved here from the page's AppTest, which keeps
the wiring (#36)."""

from __future__ import annotations

from datetime import date

import pandas as pd

from dashboard.present.slower_view import SlowerView, slower_view
from tests.analytics.frames import CHROME, FIREFOX, execution, executions, result, results
from tests.dashboard import history_service as hand

START = pd.Timestamp("2026-11-20 04:00", tz="UTC")
SAFARI = {"os": "macOS", "browser": "SAFARI", "browser_version": "17", "device": "safari"}
FIREFOX_129 = {**FIREFOX, "browser_version": "129"}


def _start(index: int) -> pd.Timestamp:
    return START + pd.Timedelta(hours=index)


def hand_built_history() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Plan 7's twelve finished executions and the one running, plan 8's two, and all their
    results, as `tests/dashboard/history_service.py` serves them (its messages' templates too)."""
    runs, rows = [], []
    for index in range(hand.FINISHED + 1):
        execution_id = hand.FIRST_EXECUTION + index
        running = execution_id == hand.RUNNING_EXECUTION
        failing = index >= hand.BROKEN_FROM or hand.FLAKY_PATTERN[min(index, 11)] == "F"
        runs.append(
            execution(
                execution_id,
                hand.PLAN_ID,
                f"{_start(index):%Y-%m-%d %H:%M}",
                "running" if running else ("fail" if failing else "pass"),
                plan=hand.PLAN_NAME,
                runtime_ms=(10 * 60 + index * 7) * 1000,
            )
        )
        firefox = FIREFOX_129 if index >= hand.NEW_FIREFOX_FROM else FIREFOX
        scenarios = (
            hand.SCENARIOS if index >= hand.RETIRED_FROM else (hand.RETIRED, *hand.SCENARIOS)
        )
        for scenario in scenarios:
            for position, env in enumerate((CHROME, SAFARI, firefox)):
                failed = not running and (
                    (scenario == hand.FLAKY and hand.FLAKY_PATTERN[index] == "F")
                    or (scenario == hand.SPECIFIC and env is SAFARI)
                    or (scenario == hand.BROKEN and index >= hand.BROKEN_FROM)
                    or (scenario == hand.VERSIONED and env is FIREFOX_129)
                )
                number = 100 + 37 * index + position
                message = (
                    None
                    if not failed
                    else hand.TIMEOUT_TEMPLATE.format(n=number * 10, hex=f"{0xA1B2C3D4 + number:x}")
                    if scenario in (hand.FLAKY, hand.BROKEN)
                    else hand.ASSERTION_TEMPLATE.format(n=3 + index % 4, m=index % 3)
                )
                slow = scenario == hand.SLOWING and index >= hand.SLOW_FROM
                rows.append(
                    result(
                        execution_id,
                        scenario,
                        "WAITING" if running else ("FAILURE" if failed else "SUCCESS"),
                        env,
                        plan_id=hand.PLAN_ID,
                        start=_start(index) + pd.Timedelta(seconds=scenario + position),
                        runtime_s=60 if slow else 30,
                        message=message,
                    )
                )
    for index, execution_id in enumerate(hand.OTHER_EXECUTIONS):
        start = _start(index) - pd.Timedelta(minutes=30)
        runs.append(
            execution(
                execution_id, hand.OTHER_PLAN_ID, f"{start:%Y-%m-%d %H:%M}", plan="Other plan"
            )
        )
        rows.append(
            result(execution_id, 36, "SUCCESS", CHROME, plan_id=hand.OTHER_PLAN_ID, start=start)
        )
    return executions(runs), results(rows)


def _view(window: int) -> SlowerView:
    history, outcomes = hand_built_history()
    return slower_view(
        history,
        outcomes,
        window=window,
        today=date(2026, 11, 20),
        scope="",
        plan_names={hand.PLAN_ID: hand.PLAN_NAME, hand.OTHER_PLAN_ID: "Other plan"},
        scenario_link=lambda plan, scenario: f"scenario?plan={plan}&scenario={scenario}",
        tz="UTC",
    )


def test_the_hand_built_slowdown_reads_with_its_medians() -> None:
    shown = _view(20).table.display

    assert shown[["Plan", "Scenario", "Slower by", "Evidence"]].values.tolist() == [
        [
            hand.PLAN_NAME,
            hand.SLOWING,
            "+100 %",
            "median of its last 5 completed runs 1 min 00 s against 30 s over the 7 before",
        ]
    ]


def test_a_window_too_short_for_a_baseline_is_not_enough_data() -> None:
    view = _view(8)

    assert view.table.display.empty
    assert view.none_note is not None
    assert "No scenario is 25% or more slower than its own earlier runs" in view.none_note
    assert "the others are not enough data, never slower" in view.caption

"""The Slower scenarios page on the demo and on a hand-built history: the planted slowing
scenario and nothing else, with its evidence and a link to its history; W in the link; too few
runs are never "slower". The hand-built slowdown's medians are the view's
(tests/present/test_slower_view_values.py)."""

from __future__ import annotations

from typing import Any

from sandbox.data import planted
from tests.dashboard import history_service as hand
from tests.dashboard.apptest import (
    SLOWER,
    assert_no_failure,
    captions,
    downloads,
    notes,
    table_with,
)
from tests.dashboard.conftest import AppFactory


def _slower(at: Any) -> Any:
    return table_with(at, "Slower by", "Evidence")


def test_the_demo_lists_the_planted_slowing_scenario_and_nothing_else(app: AppFactory) -> None:
    at = app(SLOWER, tz="UTC")
    at.run()

    assert_no_failure(at)
    shown = _slower(at)
    assert list(zip(shown["Plan"], shown["Scenario"], strict=True)) == [
        ("Web Shop regression", planted.SLOWING_SCENARIO)
    ]
    row = shown.iloc[0]
    # Half as slow again since three days ago, on top of a drift: well over +25 %.
    assert int(row["Slower by"].strip("+ %")) >= 50
    assert row["Evidence"].startswith("median of its last 5 completed runs ")
    assert row["Evidence"].endswith(" over the 15 before")
    assert row["History"] == f"scenario?plan=2&scenario={planted.SLOWING_SCENARIO}"
    assert "each plan's last 20 finished executions" in captions(at)
    assert "had enough to judge (5 recent and at least 5 before)" in captions(at)
    assert "slower.table.csv" in downloads(at)


def test_a_window_too_short_for_a_baseline_is_not_enough_data(
    app: AppFactory, hand_built: hand.HistoryService
) -> None:
    at = app(SLOWER, tz="UTC", window="8")
    at.run()

    assert_no_failure(at)
    assert _slower(at).empty
    assert "No scenario is 25% or more slower than its own earlier runs" in notes(at, "info")
    assert "the others are not enough data, never slower" in captions(at)
    assert at.number_input(key="slower.window").value == 8
    assert dict(at.query_params) == {"tz": "UTC", "window": "8"}

"""The Environments page on the demo data and on a hand-built history: exactly the planted
environment-specific scenarios and version changes, the heat map with its counts, CSVs, and
clear messages for a bad plan."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from streamlit.testing.v1 import AppTest

from sandbox.data import planted
from tests.dashboard import history_service as hand
from tests.dashboard.apptest import (
    ENVIRONMENTS,
    app_test,
    assert_no_failure,
    captions,
    downloads,
    notes,
    table_with,
)
from tests.dashboard.conftest import AppFactory

SAFARI_18 = (
    "SAFARI / macOS"  # the demo's Safari 18: an environment is named without its version (#38)
)


def _specific(at: object) -> object:
    return table_with(at, "Finding", "Passed elsewhere")  # type: ignore[arg-type]


DemoPlan = Callable[[int], AppTest]


def reopened(plan: int) -> AppTest:
    """The page of `plan`, made as the `app` fixture makes it but keeping what this process has
    loaded (`app` clears it): the next plan a viewer picks."""
    return app_test(ENVIRONMENTS, tz="UTC", plan=str(plan))


@pytest.fixture
def demo_plan(opened: dict[int, AppTest], app: AppFactory) -> DemoPlan:
    """The page of one plan of the demo (`tz=UTC&plan=...`): run once, never changed."""

    def page(plan: int) -> AppTest:
        if plan not in opened:
            at = app(ENVIRONMENTS, tz="UTC", plan=str(plan)) if not opened else reopened(plan)
            at.run()
            opened[plan] = at
        return opened[plan]

    return page


def test_the_demo_flags_exactly_the_planted_environment_specific_scenario(
    demo_plan: DemoPlan,
) -> None:
    scenario, _ = planted.ENVIRONMENT_SPECIFIC
    for plan in planted.PLAN_SCENARIOS:
        at = demo_plan(plan)
        assert_no_failure(at)
        specific = _specific(at)
        versions = table_with(at, "Previous", "Finding")
        assert versions.empty, plan  # the demo changes no browser version under a scenario
        if plan != planted.STILL_FAILING_PLAN:
            assert specific.empty, plan
            continue
        assert list(zip(specific["Scenario"], specific["Environment"], strict=True)) == [
            (scenario, SAFARI_18)
        ]
        finding = specific["Finding"].iloc[0]
        runs = planted.STILL_FAILING_RUNS
        assert finding.startswith(
            f"fails on {SAFARI_18} in {runs} of {runs} runs, passes elsewhere"
        )
        shown = [str(text.value) for text in at.text]
        assert f"Scenario {scenario} {finding}" in shown
        assert specific["History"].iloc[0] == f"scenario?plan={plan}&scenario={scenario}"


def test_the_heat_map_shows_pass_rates_with_counts_on_hover(demo_plan: DemoPlan) -> None:
    at = demo_plan(planted.STILL_FAILING_PLAN)

    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    heat = figure["data"][0]
    assert heat["type"] == "heatmap"
    assert SAFARI_18 in heat["x"]
    row = heat["y"].index(f"Scenario {planted.ENVIRONMENT_SPECIFIC[0]}")
    column = heat["x"].index(SAFARI_18)
    assert heat["z"][row][column] == 0
    assert heat["customdata"][row][column].startswith("0 passed, 5 failed")
    assert "its last 20 finished executions" in captions(at)
    assert {
        "environments.specific.csv",
        "environments.versions.csv",
        "environments.matrix.csv",
    } <= set(downloads(at))
    assert dict(at.query_params) == {"tz": "UTC", "plan": str(planted.STILL_FAILING_PLAN)}


def test_without_a_plan_or_with_an_unknown_one_the_page_asks_for_one(app: AppFactory) -> None:
    at = app(ENVIRONMENTS, tz="UTC", plan="999", window="x")
    at.run()

    assert_no_failure(at)
    assert "Plan 999 is not one of this company's plans" in notes(at)
    assert '"window" value "x" is not a whole number' in notes(at)
    assert "Pick a plan" in notes(at, "info")
    assert not at.dataframe
    assert dict(at.query_params) == {"tz": "UTC"}


def test_the_hand_built_history_flags_its_cases_and_nothing_else(
    app: AppFactory, hand_built: hand.HistoryService
) -> None:
    at = app(ENVIRONMENTS, tz="UTC", plan=str(hand.PLAN_ID))
    at.run()

    assert_no_failure(at)
    specific = _specific(at)
    # #38: Firefox on Linux is one environment over 128 and 129, so the scenario that fails on
    # 129 only is a version change, no longer environment-specific on a "FIREFOX 129" of its own.
    assert list(zip(specific["Scenario"], specific["Environment"], strict=True)) == [
        (hand.SPECIFIC, "SAFARI / macOS"),
    ]
    versions = table_with(at, "Previous", "Finding")
    assert list(versions["Environment"]) == ["FIREFOX / Linux (128 -> 129)"]
    assert list(versions["Previous"]) == ["128"]
    assert list(versions["Scenarios"]) == [str(hand.VERSIONED)]
    assert "1 execution still running is not counted" in captions(at)

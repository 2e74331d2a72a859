"""The Failures page on the demo and on a hand-built history: every failed result of the period
across plans with its one verdict and evidence, its state, failure group, message, logs and
since when it has been failing, those that need action first; the figures split by verdict;
the period, the state filter and "Include outages" in the link; bad values named. What each
verdict and figure holds is tested on the view (tests/present/test_failures_view.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from dashboard.analytics.failure_groups import normalise_message
from dashboard.present.formatting import weekday_time
from sandbox.data import planted
from tests.dashboard import history_service as hand
from tests.dashboard import red_history as red
from tests.dashboard.apptest import (
    FAILURES,
    assert_no_failure,
    captions,
    downloads,
    metrics,
    notes,
    table_with,
)
from tests.dashboard.conftest import AppFactory
from tests.dashboard.outage_history import (
    LATE,
    OutageHistory,
    outage_execution,
    serve_outage_history,
)


def _failures(at: Any) -> Any:
    return table_with(at, "Failure group", "Failing since")


STATES = {
    planted.TURNED_RED_SCENARIO: "\u2716 failing",
    planted.FLAKY_SCENARIO: "\u21c4 flaky",
    planted.FIXED_SCENARIO: "\u2197 recovering",
    planted.ENVIRONMENT_SPECIFIC[0]: "\u25d0 environment-specific",
}
VERDICTS = {
    # Newly failing in plan 1's latest execution: the first failure on each environment.
    planted.TURNED_RED_SCENARIO: "\u2731 new",
    planted.FLAKY_SCENARIO: "\u21c4 flaky",
    # Passed its latest run: recovering, never broken.
    planted.FIXED_SCENARIO: "\u2197 recovering",
    planted.ENVIRONMENT_SPECIFIC[0]: "\u25d0 environment-specific",
}


def test_the_demo_lists_the_week_s_failures_of_the_planted_scenarios(app: AppFactory) -> None:
    at = app(FAILURES, tz="UTC")
    at.run()

    assert_no_failure(at)
    shown = _failures(at)
    assert set(shown["Scenario"]) == set(planted.FAILING_SCENARIOS)
    # Each row says its scenario's state, as the states page judges it.
    assert {
        int(s): state for s, state in zip(shown["Scenario"], shown["State"], strict=True)
    } == STATES
    groups = {
        normalise_message(t.format(n=30, m=2, hex="0x1f2e")) for t in planted.FAILURE_TEMPLATES
    }
    assert set(shown["Failure group"]) == groups
    # Each row's answer is its verdict, with its evidence; those that need action first (new,
    # then environment-specific), then flaky and recovering; within each, the newest first.
    assert {
        int(s): verdict for s, verdict in zip(shown["Scenario"], shown["Verdict"], strict=True)
    } == VERDICTS
    assert list(dict.fromkeys(shown["Verdict"])) == [
        VERDICTS[planted.TURNED_RED_SCENARIO],
        VERDICTS[planted.ENVIRONMENT_SPECIFIC[0]],
        VERDICTS[planted.FLAKY_SCENARIO],
        VERDICTS[planted.FIXED_SCENARIO],
    ]
    for _, block in shown.groupby("Verdict"):
        assert list(block["Started"]) == sorted(block["Started"], reverse=True)
    assert all(shown["Evidence"].str.len() > 0)
    assert metrics(at) == {
        "Needs action": "8",
        "New since standup": "3",
        "Known": "0",
        "In a likely outage": "0",
        "Failed results": "35",
        # Per scenario (#38): each template in each scenario of each plan that fails with it.
        "Failure groups": str(len(shown.drop_duplicates(["Failure group", "Plan", "Scenario"]))),
    }
    assert len(shown.drop_duplicates(["Failure group", "Plan", "Scenario"])) > len(groups)
    assert (
        "Of 35 failed results: 8 need action (3 new, 5 environment-specific), 18 flaky, "
        "9 recovering." in captions(at)
    )
    assert at.toggle(key="failures.include_outages").value is False
    assert all(link.startswith("results?") for link in shown["Results"])
    assert all(link.startswith("scenario?") for link in shown["History"])
    assert all(str(link).endswith("/node.log") for link in shown["Node log"])
    # Safari has failed scenario 5 every night since it joined plan 3.
    safari = shown[shown["Scenario"] == planted.ENVIRONMENT_SPECIFIC[0]]
    since = weekday_time(
        pd.Timestamp(planted.red_since_ms(_demo_now()), unit="ms", tz="UTC"), "UTC"
    )
    runs = planted.STILL_FAILING_RUNS
    assert list(safari["Failing since"]) == [f"{since} ({n} in a row)" for n in range(runs, 0, -1)]
    assert "Every failed result (FAILURE or ERROR; a retry is a row)" in captions(at)
    assert "failures.table.csv" in downloads(at)


def _demo_now() -> int:
    """The demo's clock (its "now") in ms, as the page counts back from it."""
    from dashboard.data import cache

    clock = cache.demo_service().connection.clock
    assert clock is not None
    return int(clock.timestamp() * 1000)


def test_the_last_24_hours_and_one_state_are_in_the_link(app: AppFactory) -> None:
    at = app(FAILURES, tz="UTC", range="24h")
    at.run()

    assert_no_failure(at)
    shown = _failures(at)
    # Plan 1's newest execution (scenario 8 on its three environments) and plan 3's last night.
    assert sorted(shown["Scenario"].tolist()) == [5, 8, 8, 8]

    at.query_params["states"] = "failing"
    at.run()
    assert set(_failures(at)["Scenario"]) == {planted.TURNED_RED_SCENARIO}
    assert dict(at.query_params) == {"tz": "UTC", "range": "24h", "states": "failing"}


def test_failing_since_counts_back_to_the_last_pass(
    app: AppFactory, red_built: red.RedHistory
) -> None:
    at = app(FAILURES, tz="UTC")
    at.run()

    assert_no_failure(at)
    shown = _failures(at)
    by_plan = dict(list(shown.groupby("Plan")))
    checkout = by_plan["Checkout nightly"].iloc[0]
    assert (checkout["Scenario"], checkout["Environment"]) == (1, "FIREFOX / Linux")
    assert checkout["Failing since"].endswith("(1 in a row)")
    assert not checkout["Failing since"].startswith("at least")
    # Never green: it has failed since its first execution, at least.
    newest_mobile = by_plan["Mobile smoke"].iloc[0]
    assert newest_mobile["Failing since"].startswith("at least ")
    assert newest_mobile["Failing since"].endswith("(3 in a row)")
    assert len(by_plan["Mobile smoke"]) == 6  # 2 scenarios in 3 executions
    assert set(shown["Plan"]) == {"Checkout nightly", "Mobile smoke", "API contract"}


def test_bad_values_are_named(app: AppFactory) -> None:
    at = app(FAILURES, tz="UTC", range="yesterday", states="bogus")
    at.run()

    assert_no_failure(at)
    warning = notes(at)
    assert '"range" value "yesterday" is not one of 24h, 7d, 30d, 90d, custom' in warning
    assert '"states" value "bogus" is not one of flaky' in warning
    assert dict(at.query_params) == {"tz": "UTC"}
    assert not _failures(at).empty


def test_a_custom_period_is_whole_days(app: AppFactory) -> None:
    app(FAILURES).run()  # the demo starts with the first page
    day = pd.Timestamp(_demo_now(), unit="ms", tz="UTC").date().isoformat()
    at = app(FAILURES, tz="UTC", range="custom", **{"from": day, "to": day})
    at.run()

    assert_no_failure(at)
    # The demo's last day: only plan 1's failing execution (17:00) started on it.
    assert set(_failures(at)["Scenario"]) == {planted.TURNED_RED_SCENARIO}
    assert at.date_input(key="failures.date_from").value.isoformat() == day


@pytest.fixture
def outage_night(
    app: AppFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[OutageHistory]:
    """The hand-built history whose execution 1011 failed every result with the grid's message
    (tests/dashboard/outage_history.py), on a store of its own (after `app`)."""
    monkeypatch.setenv("QA_DASHBOARD_CACHE_DIR", str(tmp_path / "stores"))
    with serve_outage_history() as service:
        monkeypatch.setenv("QA_DASHBOARD_BASE_URL", service.base_url)
        monkeypatch.setenv("QA_DASHBOARD_TOKEN", "outage-history-token")
        monkeypatch.setenv("QA_DASHBOARD_COMPANY_ID", "7")
        yield service


def test_an_outage_night_s_failures_are_left_out_and_counted(
    app: AppFactory, outage_night: OutageHistory
) -> None:
    at = app(FAILURES, tz="UTC", plan=str(hand.PLAN_ID))
    at.run()

    assert_no_failure(at)
    # Its 15 failed results are neither listed nor counted, but said.
    night = f"execution={outage_execution(LATE)}&"
    shown = _failures(at)
    assert not shown.empty
    assert not any(night in link for link in shown["Results"])
    assert "\u26a1 outage" not in set(shown["Verdict"])
    assert metrics(at)["In a likely outage"] == "15 left out"
    assert metrics(at)["Failed results"] == f"{len(shown):,}"
    assert (
        '15 failed results in a likely outage left out: "Include outages" lists them.'
        in captions(at)
    )
    assert at.toggle(key="failures.include_outages").value is False


def test_an_outage_night_s_failures_are_listed_with_their_label_when_outages_are_included(
    app: AppFactory, outage_night: OutageHistory
) -> None:
    at = app(FAILURES, tz="UTC", plan=str(hand.PLAN_ID), outages="true")
    at.run()

    assert_no_failure(at)
    assert at.toggle(key="failures.include_outages").value is True
    night = f"execution={outage_execution(LATE)}&"
    shown = _failures(at)
    on_the_night = shown[[night in link for link in shown["Results"]]]
    assert len(on_the_night) == 15
    assert set(on_the_night["Verdict"]) == {"\u26a1 outage"}
    assert metrics(at)["In a likely outage"] == "15"


# -- scenario names and owners, and "Only my scenarios" (#38) ---------------------------------


def test_failures_name_their_scenarios_and_only_mine_keeps_the_ones_i_own(
    app: AppFactory, hand_built: hand.HistoryService, tmp_path: Path, monkeypatch: Any
) -> None:
    from dashboard.present.failures_view import NONE_OWNED
    from tests.dashboard.test_page_scenario import ANN, name_scenario, sign_in

    monkeypatch.setenv("QA_DASHBOARD_CACHE_DIR", str(tmp_path / "stores"))
    name_scenario(app, hand.FLAKY, "=Checkout as guest", ANN)
    at = sign_in(app(FAILURES, tz="UTC", plan=str(hand.PLAN_ID)))
    at.run()

    assert_no_failure(at)
    every = _failures(at)
    named = every[every["Scenario"] == hand.FLAKY]
    assert not named.empty
    assert set(every["Scenario"]) - {hand.FLAKY}, "other scenarios fail too"
    assert set(named["Name"]) == {"=Checkout as guest"}
    assert set(named["Scenario owner"]) == {ANN}
    assert set(every[every["Scenario"] != hand.FLAKY]["Name"]) == {""}

    at.toggle(key="failures.only_owned").set_value(True).run()

    assert_no_failure(at)
    assert at.query_params["owned"] == "true"
    mine = _failures(at)
    assert set(mine["Scenario"]) == {hand.FLAKY}
    assert len(mine) == len(named)

    # The same link for someone who owns none of them: their own (none), said.
    bob = sign_in(app(FAILURES, tz="UTC", plan=str(hand.PLAN_ID), owned="true"), "bob@example.com")
    bob.run()
    assert_no_failure(bob)
    assert NONE_OWNED in notes(bob, "info")


def test_only_mine_is_not_offered_and_not_applied_to_a_viewer_nobody_signed_in_as(
    app: AppFactory, hand_built: hand.HistoryService
) -> None:
    at = app(FAILURES, tz="UTC", plan=str(hand.PLAN_ID), owned="true")
    at.run()

    assert_no_failure(at)
    assert "failures.only_owned" not in [t.key for t in at.toggle]
    assert len(set(_failures(at)["Scenario"])) > 1

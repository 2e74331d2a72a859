"""The Scenario history page: outcome and runtime per execution and environment, messages and
log links, and the runtime regression flag, which the demo's planted slowing scenario raises
and no other scenario does; on a hand-built history too; clear messages for bad links."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.present import scenario as scenario_words
from sandbox.data import planted
from tests.dashboard import history_service as hand
from tests.dashboard.apptest import (
    SCENARIO,
    app_test,
    assert_no_failure,
    captions,
    downloads,
    notes,
    plain_notes,
    table_with,
)
from tests.dashboard.conftest import AppFactory

REGRESSION = "Runtime regression:"


def _history(at: Any) -> Any:
    return table_with(at, "Outcome", "Execution")


def _now(at: Any) -> str:
    """The scenario's label now, said at the top."""
    said = [str(t.value) for t in at.text if str(t.value).startswith("Now: ")]
    assert len(said) == 1, said
    return said[0]


def _regressed(at: Any) -> bool:
    return REGRESSION in notes(at)


# -- each scenario's page, run once (#36) -----------------------------------------------------
# The regression loops open every scenario of a plan; the tests of one scenario's history read
# the same pages. Each page is its own AppTest, opened as a link to it, sharing what the process
# has loaded (the loops always did: they changed the link of one AppTest between runs).


def reopened(**query: str) -> AppTest:
    """The Scenario history page at `query`, made as the `app` fixture makes it but keeping what
    this process has loaded (`app` clears it: the first page of a group is made by `app`)."""
    return app_test(SCENARIO, **query)


ScenarioPage = Callable[[int, int], AppTest]


@pytest.fixture
def demo_scenario(opened: dict[tuple[str, int, int], AppTest], app: AppFactory) -> ScenarioPage:
    """One scenario's page on the demo (`tz=UTC&plan=...&scenario=...`): run once, never
    changed."""

    def page(plan: int, scenario: int) -> AppTest:
        if ("demo", plan, scenario) not in opened:
            query = {"tz": "UTC", "plan": str(plan), "scenario": str(scenario)}
            first = not any(key[0] == "demo" for key in opened)
            at = app(SCENARIO, **query) if first else reopened(**query)
            at.run()
            opened["demo", plan, scenario] = at
        return opened["demo", plan, scenario]

    return page


@pytest.fixture
def hand_scenario(
    opened: dict[tuple[str, int, int], AppTest], app: AppFactory, request: pytest.FixtureRequest
) -> Callable[[int], AppTest]:
    """One scenario's page of the hand-built plan, served only while a page is first run."""

    def page(scenario: int) -> AppTest:
        if ("hand", hand.PLAN_ID, scenario) not in opened:
            request.getfixturevalue("hand_built")  # the service, and the dashboard pointed at it
            query = {"tz": "UTC", "plan": str(hand.PLAN_ID), "scenario": str(scenario)}
            first = not any(key[0] == "hand" for key in opened)
            at = app(SCENARIO, **query) if first else reopened(**query)
            at.run()
            opened["hand", hand.PLAN_ID, scenario] = at
        return opened["hand", hand.PLAN_ID, scenario]

    return page


def test_only_the_planted_slowing_scenario_is_flagged_slower(demo_scenario: ScenarioPage) -> None:
    flagged = set()
    for plan in (planted.SCENARIO_CASES_PLAN, planted.SLOWER_PLAN):
        for scenario in planted.PLAN_SCENARIOS[plan]:
            at = demo_scenario(plan, scenario)
            assert_no_failure(at)
            if _regressed(at):
                flagged.add((plan, scenario))
    # Plan 8's executions got slower (devices wait), but none of its scenarios did.
    assert flagged == {(planted.SCENARIO_CASES_PLAN, planted.SLOWING_SCENARIO)}


def test_the_slowing_scenarios_history(demo_scenario: ScenarioPage) -> None:
    plan, scenario = planted.SCENARIO_CASES_PLAN, planted.SLOWING_SCENARIO
    at = demo_scenario(plan, scenario)

    assert_no_failure(at)
    assert at.title[0].value == f"Scenario {scenario}"
    assert "Plan: Web Shop regression" in [str(t.value) for t in at.text]
    history = _history(at)
    assert history["Execution"].nunique() == 20
    assert "\u2716 failed" not in set(history["Outcome"])  # it only slows down
    assert _now(at).startswith("Now: \u2714 passing \u2014 no failure in its 20 runs")
    assert all(
        link.startswith("https://") or link.startswith("http://") for link in history["Node log"]
    )
    assert all(link.startswith(f"results?plan={plan}&execution=") for link in history["Results"])
    assert "its last 20 finished executions" in captions(at)
    assert {"scenario.table.csv", "scenario.regressions.csv"} <= set(downloads(at))
    assert dict(at.query_params) == {"tz": "UTC", "plan": str(plan), "scenario": str(scenario)}
    # What happened comes before how long it took: outcomes above runtime.
    assert [h.value for h in at.header] == ["Outcomes", "Runtime"]


def test_the_flaky_scenario_shows_its_failure_messages(demo_scenario: ScenarioPage) -> None:
    at = demo_scenario(planted.SCENARIO_CASES_PLAN, planted.FLAKY_SCENARIO)

    history = _history(at)
    failed = history[history["Outcome"] == "\u2716 failed"]
    assert len(failed) > 0
    assert all(m.startswith("SessionNotCreatedException: node ") for m in failed["Message"])
    assert not _regressed(at)
    # Its label now is the one verdict of its latest failure, with the evidence (#37).
    assert _now(at).startswith("Now: \u21c4 flaky \u2014 ")


def test_bad_links_are_named(app: AppFactory) -> None:
    at = app(SCENARIO, tz="UTC", plan=str(planted.SCENARIO_CASES_PLAN), scenario="99")
    at.run()
    assert_no_failure(at)
    assert "Scenario 99 is not one of plan 2's scenarios" in notes(at)
    assert "Pick a plan and one of its scenarios" in notes(at, "info")
    assert dict(at.query_params) == {"tz": "UTC", "plan": str(planted.SCENARIO_CASES_PLAN)}

    at = app(SCENARIO, tz="UTC", plan="999", scenario="4")
    at.run()
    assert "Plan 999 is not one of this company's plans" in notes(at)
    assert dict(at.query_params) == {"tz": "UTC"}


def test_the_hand_built_history_flags_its_slowing_scenario_only(
    hand_scenario: Callable[[int], AppTest],
) -> None:
    flagged = set()
    for scenario in hand.SCENARIOS:
        at = hand_scenario(scenario)
        assert_no_failure(at)
        if _regressed(at):
            flagged.add(scenario)
    assert flagged == {hand.SLOWING}


def test_the_hand_built_scenario_shows_messages_logs_and_environments(
    hand_scenario: Callable[[int], AppTest],
) -> None:
    at = hand_scenario(hand.SPECIFIC)

    history = _history(at)
    assert len(history) == hand.FINISHED * 3
    failed = history[history["Outcome"] == "\u2716 failed"]
    assert set(failed["Environment"]) == {hand.SAFARI_LABEL}
    assert len(failed) == hand.FINISHED
    assert all(m.startswith("AssertionError: expected ") for m in failed["Message"])
    assert all(link.startswith("https://logs.example.test/") for link in failed["Node log"])
    assert "1 execution still running is not counted" in captions(at)
    assert _now(at).startswith(
        f"Now: \u25d0 environment-specific \u2014 fails only on {hand.SAFARI_LABEL}: "
    )


def test_a_scenario_no_longer_in_the_plan_shows_its_past_runs(
    app: AppFactory, hand_built: hand.HistoryService
) -> None:
    # Scenario 30 left plan 7's list, but ran in its four oldest executions: a history link
    # from then (a flaky row, a failure group, the standup) still opens its past runs.
    at = app(SCENARIO, tz="UTC", plan=str(hand.PLAN_ID), scenario=str(hand.RETIRED))
    at.run()

    assert_no_failure(at)
    assert hand.RETIRED not in hand.SCENARIOS
    assert (
        f"Scenario {hand.RETIRED} is no longer in plan {hand.PLAN_NAME}; showing its past runs."
        in notes(at, "info")
    )
    assert not notes(at)
    assert at.title[0].value == f"Scenario {hand.RETIRED}"
    assert at.selectbox(key="scenario.scenario").value == hand.RETIRED
    history = _history(at)
    assert set(history["Execution"]) == set(hand.execution_ids()[: hand.RETIRED_FROM])
    assert len(history) == hand.RETIRED_FROM * 3
    assert set(history["Outcome"]) == {"\u2714 passed"}
    assert dict(at.query_params) == {
        "tz": "UTC",
        "plan": str(hand.PLAN_ID),
        "scenario": str(hand.RETIRED),
    }


def test_a_scenario_no_longer_in_the_plan_nor_in_the_window_is_named(
    app: AppFactory, hand_built: hand.HistoryService
) -> None:
    # Its runs are older than the last 5 executions: the window holds none of them.
    at = app(SCENARIO, tz="UTC", plan=str(hand.PLAN_ID), scenario=str(hand.RETIRED), window="5")
    at.run()

    assert_no_failure(at)
    assert f"Scenario {hand.RETIRED} is not one of plan {hand.PLAN_ID}'s scenarios" in notes(at)
    assert "did not run in its last 5 finished executions" in notes(at)
    assert "Pick a plan and one of its scenarios" in notes(at, "info")
    assert dict(at.query_params) == {"tz": "UTC", "plan": str(hand.PLAN_ID), "window": "5"}


# -- a scenario's name and owner (#38): the form, and the name on the page --------------------

NAMED = "<b>Checkout</b> as [guest](http://evil.example)"
"""A name with markup: shown as text everywhere, never rendered."""
ANN = "ann@example.com"


def sign_in(at: Any, email: str | None = ANN) -> Any:
    """`at` with viewer sign-in configured and `email` signed in (None: nobody)."""
    from tests.dashboard.test_page_known import sign_in as signed

    return signed(at, {"email": email, "email_verified": True, "sub": "x"} if email else {})


def name_scenario(
    app: AppFactory, scenario: int, name: str, owner: str, *, email: str = ANN
) -> Any:
    """Give `scenario` of the hand-built plan `name` and `owner` through Scenario history's form,
    signed in as `email`; the page after saving."""
    from dashboard.data import cache_names

    cache_names.forget_all()  # names read by an earlier test's store are not this one's
    at = sign_in(app(SCENARIO, tz="UTC", plan=str(hand.PLAN_ID), scenario=str(scenario)), email)
    at.run()
    assert_no_failure(at)
    at.text_input(key=f"scenario.name.{scenario}.name").input(name)
    at.text_input(key=f"scenario.name.{scenario}.owner").input(owner)
    at.button(key=f"FormSubmitter:scenario.name.{scenario}-Save").click().run()
    assert_no_failure(at)
    return at


def test_a_signed_in_viewer_names_a_scenario_and_the_page_calls_it_so(
    app: AppFactory, hand_built: hand.HistoryService, tmp_path: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("QA_DASHBOARD_CACHE_DIR", str(tmp_path / "stores"))
    at = name_scenario(app, hand.FLAKY, NAMED, ANN)

    title = at.title[0].value
    # The title is markdown: the name's markup is escaped, so it reads as typed.
    assert "<b>" not in title
    assert "](" not in title
    assert title.replace("\\", "").replace("\u2060", "") == f"{NAMED} ({hand.FLAKY})"
    assert f"Saved: {NAMED} ({hand.FLAKY})." in plain_notes(at, "info").replace("\u2060", "")
    picker = at.selectbox(key="scenario.scenario")
    assert f"{NAMED} ({hand.FLAKY})" in [o.replace("\u2060", "") for o in picker.options]
    assert f"Scenario {hand.SPECIFIC}" in picker.options  # unnamed: as before
    assert at.query_params["scenario"] == str(hand.FLAKY)  # the link keeps the id
    # The form shows what is stored now.
    assert at.text_input(key=f"scenario.name.{hand.FLAKY}.owner").value == ANN


def test_a_bad_owner_is_refused_in_a_sentence_and_nothing_is_saved(
    app: AppFactory, hand_built: hand.HistoryService, tmp_path: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("QA_DASHBOARD_CACHE_DIR", str(tmp_path / "stores"))
    at = name_scenario(app, hand.FLAKY, "Checkout", "not an address")

    assert "owner" in plain_notes(at, "warning").lower()
    assert at.title[0].value == f"Scenario {hand.FLAKY}"


def test_nobody_signed_in_on_a_team_s_dashboard_may_not_change_a_name(
    hand_scenario: Callable[[int], AppTest],
) -> None:
    at = hand_scenario(hand.FLAKY)

    assert_no_failure(at)
    assert not [t for t in at.text_input if str(t.key).startswith("scenario.name")]
    assert scenario_words.NAMES_READ_ONLY in [str(t.value) for t in at.text]

"""Alerts call a scenario by the team's name and its owner (#38): "Login works (402, owner
ana@example.com)", an unnamed one "Scenario 402". A red alert names its failing scenarios; a
plan's broken or flaky scenarios, said in one message, keep their plan in the title however
their names read (" of " in a name included). Names are chat text: never markup, a link or a
mention."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from dashboard.analytics import alerts as alert_rules
from dashboard.analytics.alerts import BROKEN, FLAKY, RED, Change
from dashboard.data.store.alerts import Alert
from dashboard.present import alerts
from dashboard.present.alerts import NO_NAMES, ScenarioNames, scenario_words
from dashboard.present.formatting import WORD_JOINER
from tests.analytics import triage_frames as world

HOSTILE = "<b>x</b> @channel [a](http://e)"
NAMES = ScenarioNames(
    names={1: "Login works", 53: "Basket of the shop", 54: HOSTILE},
    owners={1: "ana@example.com", 2: "bo@example.com", 53: "cy@example.com"},
)
START = pd.Timestamp("2026-11-24 09:00", tz="UTC")


def unescaped(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown).replace(WORD_JOINER, "")


def scenario_change(kind: str, scenario_id: int, plan: str = "Checkout") -> Change:
    return Change(
        key=f"{kind}:plan 5:scenario {scenario_id}:execution 7", kind=kind, plan_id=5,
        project_id=1, plan=plan, execution_id=7, start=START, scenario_id=scenario_id,
        detail="failed 5 of its last 5 runs",
    )  # fmt: skip


def noted(change: Change, names: ScenarioNames) -> Alert:
    """The change as a pass notes it (title and body worded with the names)."""
    return Alert(
        key=change.key,
        kind=change.kind,
        plan_id=change.plan_id,
        project_id=change.project_id,
        title=alerts.alert_title(change, names),
        body=alerts.alert_body(change, None, names),
        link=None,
    )


def test_a_scenario_reads_by_its_name_and_owner_and_an_unnamed_one_by_its_number() -> None:
    assert unescaped(scenario_words(1, NAMES)) == "Login works (1, owner ana@example.com)"
    assert scenario_words(1, NAMES, owner=False) == "Login works (1)"
    assert unescaped(scenario_words(2, NAMES)) == "Scenario 2 (owner bo@example.com)"
    assert scenario_words(3, NAMES) == "Scenario 3"
    assert scenario_words(3, NAMES, first=False) == "scenario 3"
    assert scenario_words(402, NO_NAMES) == "Scenario 402"


def test_names_come_from_the_stores_frame_of_names() -> None:
    frame = pd.DataFrame(
        {
            "scenario_id": pd.array([402, 403], dtype="int64"),
            "name": pd.array(["Login works", "Logout"], dtype="str"),
            "owner": pd.array(["ana@example.com", None], dtype="str"),
            "tags": pd.array([None, None], dtype="str"),
        }
    )
    names = ScenarioNames.of(frame)
    assert unescaped(scenario_words(402, names)) == "Login works (402, owner ana@example.com)"
    assert scenario_words(403, names) == "Logout (403)"
    assert scenario_words(404, names) == "Scenario 404"


def test_a_red_alert_names_its_failing_scenarios_and_their_owners() -> None:
    # Plan 1's execution 10 fails scenarios 1 and 2 on Chrome after execution 9 passed.
    scenarios = {s: {"chrome": "P" * 10, "safari": "P" * 10} for s in range(1, 7)}
    scenarios[1] = {"chrome": "P" * 9 + "F", "safari": "P" * 9 + "F"}
    scenarios[2] = {"chrome": "P" * 9 + "F", "safari": "P" * 10}
    rows = world.world_results(scenarios)
    results = world.results(rows)
    executions = world.summaries(rows, starts={world.OUTAGE_ID: world.OUTAGE_START})
    (red,) = alert_rules.plan_changes(
        executions,
        world.NOW,
        horizon=pd.Timedelta(days=2).to_pytimedelta(),
        results=results,
        marks=world.NO_MARKS,
    )
    assert (red.kind, red.execution_id) == (RED, 10)

    failing = alerts.failing_scenarios(results, 10)
    body = alerts.alert_body(red, None, NAMES, failing)

    assert failing == (1, 2)  # scenario 1 once, though it failed on both browsers
    assert unescaped(body).endswith(
        "Failing: Login works (1, owner ana@example.com); Scenario 2 (owner bo@example.com)."
    )
    assert "ana@\u2060example\u2060.com" in body  # the address is text, not a mailto link
    # Without names, each reads by its number; without the failures read, none is named.
    assert alerts.alert_body(red, None, NO_NAMES, failing).endswith(
        "Failing: Scenario 1; Scenario 2."
    )
    assert "Failing" not in alerts.alert_body(red, None)


def test_a_red_alert_names_five_failing_scenarios_then_says_how_many_more() -> None:
    assert alerts.failing_words(range(1, 9), NAMES) == (
        f"Failing: {scenario_words(1, NAMES)}; {scenario_words(2, NAMES)}; Scenario 3; "
        "Scenario 4; Scenario 5; and 3 more."
    )


@pytest.mark.parametrize("kind", [BROKEN, FLAKY])
def test_a_broken_or_flaky_scenario_is_said_by_its_name(kind: str) -> None:
    change = scenario_change(kind, 1)
    assert (
        alerts.alert_title(change, NAMES) == f"{kind.title()}: Login works (1) of plan 5 “Checkout”"
    )
    assert unescaped(alerts.alert_body(change, None, NAMES)).startswith(
        f"Login works (1, owner ana@example.com) is {kind} as of execution 7"
    )
    unnamed = scenario_change(kind, 9)
    assert alerts.alert_title(unnamed, NAMES) == f"{kind.title()}: scenario 9 of plan 5 “Checkout”"
    assert alerts.alert_body(unnamed, None, NAMES).startswith(f"Scenario 9 is {kind}")


def test_a_hostile_name_reaches_the_chat_as_inert_text() -> None:
    change = scenario_change(BROKEN, 54)
    title, body = alerts.alert_title(change, NAMES), alerts.alert_body(change, None, NAMES)
    red = Change(
        key="r", kind=RED, plan_id=5, project_id=1, plan="Checkout", execution_id=7,
        start=START, previous_execution_id=6, detail="1 of 4 verdicts failed",
    )  # fmt: skip
    listed = alerts.alert_body(red, None, NAMES, (54,))
    for text in (title, body, listed):
        assert "<b>" not in text, text
        assert "@channel" not in text, text
        assert not re.search(r"(?<!\\)[<>\[\]]", text), text  # no tag, no Markdown link
        assert "http://e" not in text  # no bare link either
        assert HOSTILE in unescaped(text)  # and it reads as the team wrote it


def test_a_plans_scenarios_said_together_keep_their_plan_whatever_their_names() -> None:
    # "Basket of the shop" holds " of "; the hostile one a Markdown link; a third name copies
    # the very words of the plan that follow it.
    names = ScenarioNames(
        names={**NAMES.names, 55: "Pay of plan 5 “Checkout” (55) of plan 5 “Fake”"},
        owners=NAMES.owners,
    )
    members = [noted(scenario_change(BROKEN, s), names) for s in (53, 54, 55)]
    assert members[0].title == "Broken: Basket of the shop (53) of plan 5 “Checkout”"

    (message,) = alerts.alert_messages(members, absolute=str, home=None, most=10)

    assert message.title == "Broken: 3 scenarios of plan 5 “Checkout”"
    lines = [unescaped(line) for line in message.body.splitlines()]
    assert lines[0].startswith("- Basket of the shop (53, owner cy@example.com) is broken")
    assert lines[2].startswith("- Pay of plan 5 “Checkout” (55) of plan 5 “Fake” (55) is broken")


def test_a_plan_whose_name_holds_of_plan_keeps_its_whole_name() -> None:
    plan = "Shop of plan 5 “B"
    members = [noted(scenario_change(FLAKY, s, plan=plan), NAMES) for s in (1, 2)]
    (message,) = alerts.alert_messages(members, absolute=str, home=None, most=10)
    assert message.title == f"Flaky: 2 scenarios of plan 5 “{plan}”"


def test_titles_noted_before_names_existed_still_group_by_their_plan() -> None:
    members = [noted(scenario_change(BROKEN, s), NO_NAMES) for s in (100, 101)]
    (message,) = alerts.alert_messages(members, absolute=str, home=None, most=10)
    assert message.title == "Broken: 2 scenarios of plan 5 “Checkout”"


def test_a_scenarios_mark_that_expires_or_looks_fixed_is_said_by_its_name() -> None:
    found = Change(
        key="e", kind=alert_rules.EXPIRING, plan_id=5, project_id=None, plan=None,
        execution_id=None, start=None, scenario_id=54, mark_id="m1", ticket=None,
        target="scenario 54 of plan 5 on CHROME / Windows 10", detail="its last day is Sat",
    )  # fmt: skip
    title = alerts.alert_title(found, NAMES)
    body = alerts.alert_body(found, None, NAMES)
    assert (
        unescaped(title)
        == f"Known failure expires tomorrow: {HOSTILE} (54) of plan 5 on CHROME / Windows 10"
    )
    assert unescaped(body).startswith(f"The mark on {HOSTILE} (54) of plan 5 on CHROME")
    for text in (title, body):
        assert not re.search(r"(?<!\\)[<>\[\]]", text), text
        assert "@channel" not in text
    assert alerts.alert_title(found) == (
        "Known failure expires tomorrow: scenario 54 of plan 5 on CHROME / Windows 10"
    )


def test_a_failing_scenario_says_its_failures_categories_most_first() -> None:
    # Execution 10: scenario 1 fails three times (2 infrastructure, 1 product bug), scenario 2
    # once with no category; execution 11's failure is another execution's.
    results = pd.DataFrame(
        {
            "result_id": [1, 2, 3, 4, 5],
            "execution_id": [10, 10, 10, 10, 11],
            "scenario_id": pd.array([1, 1, 1, 2, 1], dtype="Int64"),
        }
    )
    ruled = pd.DataFrame(
        {
            "result_id": [1, 2, 3, 4, 5],
            "category": ["product bug", "infrastructure", "infrastructure", None, "automation"],
        }
    )

    categories = alerts.scenario_categories(results, ruled, 10)

    assert categories == {1: "infrastructure, product bug"}
    assert unescaped(alerts.failing_words((1, 2), NAMES, categories)) == (
        "Failing: Login works (1, owner ana@example.com): infrastructure, product bug; "
        "Scenario 2 (owner bo@example.com)."
    )
    assert alerts.scenario_categories(results, None, 10) == {}
    hostile = alerts.failing_words((1,), NO_NAMES, {1: "[a](http://e)"})
    assert not re.search(r"(?<!\\)[\[\]]", hostile), hostile  # escaped: no Markdown link
    assert "http://e" not in hostile

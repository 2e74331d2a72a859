"""The twelve daily questions (../shared/product.md), each answered by one or two tool calls on
the planted history (conftest.RUNS): question -> calls -> the planted answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from mcp_types import CallToolResult

from dashboard.analytics.environment_names import environment_label
from tests.assistant.conftest import (
    DASHBOARD_URL,
    FIRST_RED,
    LATEST,
    PREVIOUS,
    Call,
    History,
    ask_here,
    rows,
    whole,
)
from tests.cli.plan_service import ENV, PLAN_ID, PLAN_NAME

# The environment as every page names it (with or without the browser's version, #38).
ENVIRONMENT = environment_label(ENV["os_name"], ENV["browser"], ENV["version"], None, False)


def red_since(answers: list[CallToolResult]) -> None:
    (plan,) = rows(answers[0])
    assert plan["Plan"] == PLAN_NAME
    assert plan["Now"].startswith("✖ red")
    (stretch,) = rows(answers[1])
    assert stretch["Green again"] == "still red"
    assert f"execution={FIRST_RED}" in stretch["First red"]


def last_night(answers: list[CallToolResult]) -> None:
    failed = rows(answers[0])
    assert len(failed) == 6  # 52 four times, 53 twice, in the last 24 hours
    assert {(r["Scenario"], r["Environment"]) for r in failed} == {
        (52, ENVIRONMENT),
        (53, ENVIRONMENT),
    }
    assert all(r["Verdict"] for r in failed)  # each with its one verdict


def execution_messages(answers: list[CallToolResult]) -> None:
    (failed,) = rows(answers[0])
    assert failed["Scenario"] == 52
    assert failed["Message"].endswith(f"but it was {LATEST % 7}")
    assert failed["Node log"].startswith("https://")
    assert failed["Node log"].endswith("node.log")


def scenario_flaky(answers: list[CallToolResult]) -> None:
    history = rows(answers[0])
    assert [r["Execution"] for r in history] == [5006, 5005, 5004, 5003, 5002, 5001]
    assert [r["Outcome"].split()[-1] for r in history] == [
        "failed", "failed", "passed", "failed", "failed", "passed"
    ]  # fmt: skip
    state = answers[0].structured_content["state"]  # type: ignore[index]
    assert any("flaky" in line for line in state), state


def newly_failed_fixed(answers: list[CallToolResult]) -> None:
    content = answers[0].structured_content
    assert content is not None
    assert content["figures"]["New failures"] == "0"
    assert content["figures"]["Fixed"] == "1"
    assert content["figures"]["Still failing"] == "1"
    (changed,) = rows(answers[0])
    assert changed["Scenario"] == 53
    assert "fixed" in changed["Change"]
    assert (
        content["view_url"]
        == f"{DASHBOARD_URL}compare?plan={PLAN_ID}&before={PREVIOUS}&after={LATEST}"
    )


def one_environment(answers: list[CallToolResult]) -> None:
    assert rows(answers[0]) == []  # one environment: nothing fails only on some


def slower(answers: list[CallToolResult]) -> None:
    assert rows(answers[0]) == []  # every run took 30 s


def standup(answers: list[CallToolResult]) -> None:
    items = rows(answers[0])
    assert {(r["Section"], r["Plan"]) for r in items} == {("Still failing", PLAN_NAME)}


def shared_link(answers: list[CallToolResult]) -> None:
    content = answers[0].structured_content
    assert content is not None
    assert content["view_url"] == f"{DASHBOARD_URL}failures?range=24h"


def spreadsheet(answers: list[CallToolResult]) -> None:
    content = answers[0].structured_content
    assert content is not None
    assert len(content["rows"]) == content["total_rows"] == 6
    assert content["next_cursor"] is None
    assert {"Scenario", "Environment", "Message", "Results"} <= set(content["rows"][0])


def months(answers: list[CallToolResult]) -> None:
    content = answers[0].structured_content
    assert content is not None
    assert content["coverage"].startswith("computed from 6 of 6 executions")


QUESTIONS: list[tuple[str, list[Call], Callable[[list[CallToolResult]], None]]] = [
    (
        "1. Which plans are red right now, and since when?",
        [("red_plans", {}), ("time_to_green", {"plan": PLAN_ID})],
        red_since,
    ),
    ("2. What failed last night, on which environments?", [("failures", {})], last_night),
    (
        "3. A failing execution's messages and logs",
        [("execution_results", {"execution": LATEST})],
        execution_messages,
    ),
    (
        "4. Is this scenario flaky? Its history",
        [("scenario_history", {"plan": PLAN_ID, "scenario": 52, "window": 6})],
        scenario_flaky,
    ),
    (
        "5. The latest run against the previous: newly failed, fixed",
        [("compare_executions", {"plan": PLAN_ID})],
        newly_failed_fixed,
    ),
    (
        "6. Scenarios failing only on one environment",
        [("environment_failures", {"plan": PLAN_ID, "window": 6})],
        one_environment,
    ),
    ("7. What got slower", [("slower_scenarios", {"window": 6})], slower),
    ("8. The standup since yesterday", [("standup", {})], standup),
    ("9. Share this view by link", [("failures", {})], shared_link),
    ("10. Into a spreadsheet", [("failures", {"detail": "full"})], spreadsheet),
    # 11, the dark theme, is the dashboard's own: an assistant draws its own answers.
    ("12. On all of the history, saying what it read", [("failures", {})], months),
]


def test_every_daily_question_is_answered_by_one_or_two_calls(history: History) -> None:
    calls = [call for _, asked, _ in QUESTIONS for call in asked]
    answers = ask_here(history.env, calls)
    position = 0
    for question, asked, check in QUESTIONS:
        assert 1 <= len(asked) <= 2
        got = answers[position : position + len(asked)]
        position += len(asked)
        try:
            check(got)
        except AssertionError as error:
            shown = "\n".join(whole(answer)[:2000] for answer in got)
            raise AssertionError(f"{question}: {error}\n{shown}") from error


@pytest.mark.parametrize("tool", ["failures", "red_plans", "plan_health", "known_failures"])
def test_every_answer_says_what_it_was_computed_from_and_links_its_page(
    history: History, tool: str
) -> None:
    (answer,) = ask_here(history.env, [(tool, {})])
    content: dict[str, Any] = answer.structured_content  # type: ignore[assignment]
    assert content["coverage"].startswith("computed from ")
    assert content["view_url"].startswith(DASHBOARD_URL)
    assert content["coverage"] in answer.content[0].text  # type: ignore[union-attr]


def test_without_a_dashboard_address_no_link_is_made_up(history: History) -> None:
    (answer,) = ask_here(history.env, [("failures", {})], dashboard_url=None)
    assert answer.structured_content["view_url"] is None  # type: ignore[index]
    assert not any(
        isinstance(v, str) and v.startswith("http") and "qa.example.com" in v
        for row in rows(answer)
        for v in row.values()
    )


def test_the_gate_fails_the_latest_execution_and_passes_the_green_one(history: History) -> None:
    latest, green, allowed, floor = ask_here(
        history.env,
        [
            ("gate_verdict", {"plan": PLAN_ID}),
            ("gate_verdict", {"plan": PLAN_ID, "execution": 5001}),
            ("gate_verdict", {"plan": PLAN_ID, "max_unresolved": 1, "min_pass_rate": 70}),
            ("gate_verdict", {"plan": PLAN_ID, "max_unresolved": 1, "min_pass_rate": 80}),
        ],
    )
    figures = latest.structured_content["figures"]  # type: ignore[index]
    assert (figures["passed"], figures["exit_code"]) == (False, 1)
    assert (figures["unresolved"], figures["known"], figures["failed"]) == (1, 0, 1)
    assert figures["pass_rate_without_known"] == 75.0  # 3 of 4 verdicts
    # The failures it did not let through are rows of values, not lines of prose.
    (failure,) = rows(latest)
    assert (failure["Scenario"], failure["Level"]) == (52, "FAILURE")
    assert failure["Message"].endswith(f"but it was {LATEST % 7}")
    assert failure["Verdict"]
    assert failure["History"].startswith(DASHBOARD_URL)
    assert "lines" not in latest.structured_content  # type: ignore[operator]
    assert latest.structured_content["reasons"] == [  # type: ignore[index]
        "1 unresolved failure (at most 0 allowed)"
    ]
    assert green.structured_content["figures"]["passed"] is True  # type: ignore[index]
    assert rows(green) == []
    # min_pass_rate is a percentage, as the gate's --min-pass-rate.
    assert allowed.structured_content["figures"]["passed"] is True  # type: ignore[index]
    assert floor.structured_content["figures"]["passed"] is False  # type: ignore[index]
    assert floor.structured_content["reasons"] == [  # type: ignore[index]
        "pass rate 75.00% without known failures (at least 80.00% needed)"
    ]

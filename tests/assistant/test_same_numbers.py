"""Each tool's rows are its page's: the page is drawn (AppTest) over a history with known
answers and its table is compared, value for value, with the tool's answer over the same
history; then the answer is checked against what was planted (the page and the tool could
otherwise agree on a wrong figure). The gate, which has no page, is compared with what
`python -m dashboard gate` prints for the same execution."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from dashboard.assistant.answers import records
from dashboard.data.connection import resolve
from dashboard.data.store import open_for
from dashboard.data.store.group_rules import RuleDraft
from dashboard.data.store.marks import MarkDraft, MarkTarget
from tests.assistant.conftest import FIRST_RED, LATEST, History, ask_here, rows
from tests.cli.plan_service import PLAN_ID, PLAN_NAME
from tests.dashboard import history_service as hand
from tests.dashboard.apptest import (
    COMPARE,
    ENVIRONMENTS,
    FAILURES,
    FLAKY,
    HEALTH,
    RESULTS,
    SCENARIO,
    SLOWER,
    STANDUP,
    TIME_TO_GREEN,
)
from tests.dashboard.conftest import AppFactory, app, hand_built  # noqa: F401 - fixtures

Rows = list[dict[str, Any]]
KNOWN = "app_pages/known.py"
TICKET = "https://tracker.example.com/SHOP-123"


def _red_plans(found: Rows) -> None:
    # 5002 turned the plan red and every execution since failed: one stretch, still open.
    assert [(r["Plan"], r["Red stretches"]) for r in found] == [(PLAN_NAME, 1)]
    assert found[0]["Now"].startswith("\u2716 red for ")
    assert found[0]["Now"].endswith("(5 executions)")


def _failure_groups(found: Rows) -> None:
    # 52 failed in 5002, 5003, 5005 and 5006; 53 in 5004 and 5005.
    assert sorted((r["Scenario ids"], r["Failures"], r["Executions hit"]) for r in found) == [
        ("52", 4, 4),
        ("53", 2, 2),
    ]


def _execution_results(found: Rows) -> None:
    # The latest execution: 52 still failing, the three others passed.
    levels = {r["Scenario"]: r["Level"] for r in found}
    assert levels == {51: "SUCCESS", 52: "FAILURE", 53: "SUCCESS", 54: "SUCCESS"}
    verdicts = {r["Scenario"]: r["Verdict"] for r in found}
    assert verdicts[52]
    assert not any(verdicts[s] for s in (51, 53, 54))


def _standup(found: Rows) -> None:
    # Red since 5002 (before the window began), still red in 5006: still failing, nothing else.
    assert [(r["Section"], r["Plan"]) for r in found] == [("Still failing", PLAN_NAME)]
    assert "Executions: 5" in found[0]["Details"]
    assert f"#{LATEST}" in found[0]["Details"]
    assert f"execution={LATEST}" in found[0]["Link"]


def _environment_failures(found: Rows) -> None:
    assert [(r["Scenario"], r["Environment"]) for r in found] == [
        (hand.SPECIFIC, hand.SAFARI_LABEL)
    ]


def _slower(found: Rows) -> None:
    assert [(r["Plan"], r["Scenario"], r["Slower by"]) for r in found] == [
        (hand.PLAN_NAME, hand.SLOWING, "+100 %")
    ]
    assert found[0]["Evidence"] == (
        "median of its last 5 completed runs 1 min 00 s against 30 s over the 7 before"
    )


def _nothing_more(found: Rows) -> None:
    """Compared with the page only: the planted answers of these tools are checked by
    tests/assistant/test_questions.py."""


Known = Callable[[Rows], None]
PAGES: list[tuple[str, dict[str, str], str, dict[str, Any], Known]] = [
    # (page, its query, the tool, its arguments, the planted answer) over the gate's history
    (FAILURES, {"range": "24h"}, "failures", {"period": "last_24_hours"}, _nothing_more),
    (COMPARE, {"plan": str(PLAN_ID)}, "compare_executions", {"plan": PLAN_ID}, _nothing_more),
    (HEALTH, {}, "plan_health", {}, _nothing_more),
    (TIME_TO_GREEN, {}, "time_to_green", {}, _nothing_more),
    (FLAKY, {"window": "6"}, "flaky_scenarios", {"window": 6}, _nothing_more),
    (
        SCENARIO,
        {"plan": str(PLAN_ID), "scenario": "52", "window": "6"},
        "scenario_history",
        {"plan": PLAN_ID, "scenario": 52, "window": 6},
        _nothing_more,
    ),
    (TIME_TO_GREEN, {}, "red_plans", {"red_only": False}, _red_plans),
    (TIME_TO_GREEN, {}, "failure_groups", {}, _failure_groups),
    (
        RESULTS,
        {"execution": str(LATEST), "plan": str(PLAN_ID)},
        "execution_results",
        {"execution": LATEST, "failed_only": False},
        _execution_results,
    ),
    # The Copy for chat table: every item of the standup in one table.
    (STANDUP, {}, "standup", {}, _standup),
]
HAND_BUILT: list[tuple[str, dict[str, str], str, dict[str, Any], Known]] = [
    # the same, over the hand-built history of the analytics pages (tests/dashboard)
    (
        ENVIRONMENTS,
        {"plan": str(hand.PLAN_ID), "window": "12"},
        "environment_failures",
        {"plan": hand.PLAN_ID, "window": 12},
        _environment_failures,
    ),
    (SLOWER, {"window": "20"}, "slower_scenarios", {"window": 20}, _slower),
]


GATE = (sys.executable, "-m", "dashboard", "gate")
_UNTIL_NOW = re.compile(r"\b\d+ h \d+ min\b")


def _steady(found: Rows) -> Rows:
    """`found` with the durations that count to now ("still red, 19 h 01 min") made one: the
    page and the tool are computed moments apart, sometimes either side of a minute."""
    return [
        {k: _UNTIL_NOW.sub("N h N min", v) if isinstance(v, str) else v for k, v in row.items()}
        for row in found
    ]


def _execution_only(found: Rows) -> Rows:
    """`found` with each results link cut to the execution it opens: the standup page links an
    execution by its id alone, the tool with its plan and start too (which open it without
    looking for it); both open the same execution."""

    def cut(value: Any) -> Any:
        if not isinstance(value, str) or not value.startswith("results?"):
            return value
        return f"results?execution={parse_qs(urlsplit(value).query)['execution'][0]}"

    return [{k: cut(v) for k, v in row.items()} for row in found]


def _same_table(at: Any, answered: Rows, *, links_cut: bool) -> None:
    """`answered` is one of the tables `at` draws, value for value."""
    shape = _execution_only if links_cut else (lambda found: found)
    answered = shape(_steady(answered))
    tables = [shape(_steady(records(frame.value))) for frame in at.dataframe]
    same_columns = [t for t in tables if t and set(t[0]) == set(answered[0])]
    assert same_columns, f"no table of the page has the tool's columns {sorted(answered[0])}"
    if answered not in same_columns:
        differ = [
            (i, key, mine[key], theirs[key])
            for i, (mine, theirs) in enumerate(zip(answered, same_columns[0], strict=False))
            for key in mine
            if mine[key] != theirs[key]
        ]
        raise AssertionError(f"{len(answered)} vs {len(same_columns[0])} rows; {differ[:5]}")


def _point(app: AppFactory, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> AppFactory:  # noqa: F811
    for name in ("QA_DASHBOARD_BASE_URL", "QA_DASHBOARD_TOKEN", "QA_DASHBOARD_COMPANY_ID"):
        monkeypatch.setenv(name, env[name])
    return app


@pytest.fixture
def pointed(history: History, monkeypatch: pytest.MonkeyPatch, app: AppFactory) -> AppFactory:  # noqa: F811
    """The dashboard pointed at the planted history, as `history.env` points the server."""
    return _point(app, monkeypatch, history.env)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("page", "query", "tool", "arguments", "planted"), PAGES, ids=[p[2] for p in PAGES]
)
def test_a_tools_rows_are_its_pages_table(
    history: History,
    pointed: AppFactory,
    page: str,
    query: dict[str, str],
    tool: str,
    arguments: dict[str, Any],
    planted: Known,
) -> None:
    at = pointed(page, tz="UTC", **query).run()
    assert not at.exception, at.exception
    (answer,) = ask_here(history.env, [(tool, {**arguments, "detail": "full"})], dashboard_url=None)
    answered = rows(answer)
    assert answered, "the planted history gives every one of these pages rows"
    _same_table(at, answered, links_cut=tool == "standup")
    planted(answered)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("page", "query", "tool", "arguments", "planted"), HAND_BUILT, ids=[p[2] for p in HAND_BUILT]
)
def test_a_tools_rows_are_its_pages_table_on_the_hand_built_history(
    hand_built: hand.HistoryService,  # noqa: F811
    app: AppFactory,  # noqa: F811
    page: str,
    query: dict[str, str],
    tool: str,
    arguments: dict[str, Any],
    planted: Known,
) -> None:
    at = app(page, tz="UTC", **query).run()
    assert not at.exception, at.exception
    env = {k: v for k, v in os.environ.items() if k.startswith("QA_DASHBOARD_")}
    (answer,) = ask_here(env, [(tool, {**arguments, "detail": "full"})], dashboard_url=None)
    answered = rows(answer)
    assert answered, "the hand-built history gives every one of these pages rows"
    _same_table(at, answered, links_cut=False)
    planted(answered)


@pytest.mark.slow
@pytest.mark.parametrize(("execution", "unresolved"), [(LATEST, [52]), (FIRST_RED - 1, [])])
def test_the_gate_verdict_is_what_the_gate_prints(
    history: History, tmp_path: Path, execution: int, unresolved: list[int]
) -> None:
    """The gate has no page: its face is the CI log. The tool's fields and rows are what
    `python -m dashboard gate` prints and exits with for the same execution."""
    printed = subprocess.run(
        [*GATE, "--plan", str(PLAN_ID), "--execution", str(execution), "--wait", "0"],
        env=history.env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    (answer,) = ask_here(history.env, [("gate_verdict", {"plan": PLAN_ID, "execution": execution})])
    figures = answer.structured_content or {}
    found = rows(answer)
    assert printed.returncode == figures["figures"]["exit_code"], printed.stderr
    first = printed.stdout.splitlines()[0]
    counts = figures["figures"]
    assert first.startswith(
        f"{'PASS' if counts['passed'] else 'FAIL'}: plan {PLAN_ID} ({PLAN_NAME}), execution "
        f"{execution}: {counts['unresolved']} unresolved; {counts['known']} known; "
    ), first
    listed = [line for line in printed.stdout.splitlines() if line.startswith("- scenario ")]
    assert listed == [
        f"- scenario {r['Scenario']} on {r['Environment']}: {r['Level']}: {r['Message']} "
        f"(scenario?plan={PLAN_ID}&scenario={r['Scenario']})"
        for r in found
    ]
    # The planted answer: the latest execution fails on 52 alone, the first one passes.
    assert [r["Scenario"] for r in found] == unresolved
    assert counts["passed"] == (not unresolved)


@pytest.mark.slow
def test_the_known_failures_are_the_known_pages_marks(
    history: History,
    monkeypatch: pytest.MonkeyPatch,
    app: AppFactory,  # noqa: F811
) -> None:
    """A mark made on scenario 52 (a ticket link): the page and the tool list it alike, with
    its evidence (52 failed in the latest run: it does not look fixed)."""
    connection = resolve(session=None, secrets={}, env=history.env).connection
    assert connection is not None
    with open_for(connection, secrets={}, env=history.env) as store:
        store.add_mark(
            connection.company_id,
            MarkDraft(
                MarkTarget("scenario", plan_id=PLAN_ID, scenario_id=52),
                "known_issue",
                ticket=TICKET,
            ),
            by="ann",
        )
    pointed = _point(app, monkeypatch, history.env)
    monkeypatch.setenv("QA_DASHBOARD_CACHE_DIR", history.env["QA_DASHBOARD_CACHE_DIR"])
    at = pointed(KNOWN, tz="UTC").run()
    assert not at.exception, at.exception
    (answer,) = ask_here(
        history.env, [("known_failures", {"show": "open", "detail": "full"})], dashboard_url=None
    )
    answered = rows(answer)
    _same_table(at, answered, links_cut=False)
    (mark,) = answered
    assert mark["Ticket"] == TICKET
    assert "52" in mark["Target"]


@pytest.mark.slow
def test_the_failure_groups_carry_the_team_s_category_rule_as_the_page(
    history: History,
    monkeypatch: pytest.MonkeyPatch,
    app: AppFactory,  # noqa: F811
) -> None:
    """A category rule of the team (#38: the planted message is a product bug): the tool's
    failure groups are the Time to green page's, rule applied, each group in its category."""
    connection = resolve(session=None, secrets={}, env=history.env).connection
    assert connection is not None
    with open_for(connection, secrets={}, env=history.env) as store:
        store.add_group_rule(
            connection.company_id, RuleDraft("basket total", "product bug"), by="ann"
        )
    pointed = _point(app, monkeypatch, history.env)
    monkeypatch.setenv("QA_DASHBOARD_CACHE_DIR", history.env["QA_DASHBOARD_CACHE_DIR"])
    at = pointed(TIME_TO_GREEN, tz="UTC").run()
    assert not at.exception, at.exception
    (answer,) = ask_here(history.env, [("failure_groups", {"detail": "full"})], dashboard_url=None)
    answered = rows(answer)
    _same_table(at, answered, links_cut=False)
    _failure_groups(answered)  # the rule names a category: it merges nothing
    assert [r["Category"] for r in answered] == ["product bug", "product bug"]

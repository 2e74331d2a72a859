"""Each tool's rows are its page's: the page is drawn (AppTest) over the planted history and
its table is compared, value for value, with the tool's answer over the same history."""

from __future__ import annotations

import re
from typing import Any

import pytest

from dashboard.assistant.answers import records
from tests.assistant.conftest import History, ask_here, rows
from tests.cli.plan_service import PLAN_ID
from tests.dashboard.apptest import COMPARE, FAILURES, FLAKY, HEALTH, SCENARIO, TIME_TO_GREEN
from tests.dashboard.conftest import AppFactory, app  # noqa: F401 - the dashboard's AppTest

PAGES = [
    # (page, its query, the tool, its arguments)
    (FAILURES, {"range": "24h"}, "failures", {"period": "last_24_hours"}),
    (COMPARE, {"plan": str(PLAN_ID)}, "compare_executions", {"plan": PLAN_ID}),
    (HEALTH, {}, "plan_health", {}),
    (TIME_TO_GREEN, {}, "time_to_green", {}),
    (FLAKY, {"window": "6"}, "flaky_scenarios", {"window": 6}),
    (
        SCENARIO,
        {"plan": str(PLAN_ID), "scenario": "52", "window": "6"},
        "scenario_history",
        {"plan": PLAN_ID, "scenario": 52, "window": 6},
    ),
]


_UNTIL_NOW = re.compile(r"\b\d+ h \d+ min\b")


def _steady(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`found` with the durations that count to now ("still red, 19 h 01 min") made one: the
    page and the tool are computed moments apart, sometimes either side of a minute."""
    return [
        {k: _UNTIL_NOW.sub("N h N min", v) if isinstance(v, str) else v for k, v in row.items()}
        for row in found
    ]


@pytest.fixture
def pointed(history: History, monkeypatch: pytest.MonkeyPatch, app: AppFactory) -> AppFactory:  # noqa: F811
    """The dashboard pointed at the planted history, as `history.env` points the server."""
    for name in ("QA_DASHBOARD_BASE_URL", "QA_DASHBOARD_TOKEN", "QA_DASHBOARD_COMPANY_ID"):
        monkeypatch.setenv(name, history.env[name])
    return app


@pytest.mark.slow
@pytest.mark.parametrize(("page", "query", "tool", "arguments"), PAGES, ids=[p[2] for p in PAGES])
def test_a_tools_rows_are_its_pages_table(
    history: History,
    pointed: AppFactory,
    page: str,
    query: dict[str, str],
    tool: str,
    arguments: dict[str, Any],
) -> None:
    at = pointed(page, tz="UTC", **query).run()
    assert not at.exception, at.exception
    (answer,) = ask_here(history.env, [(tool, {**arguments, "detail": "full"})], dashboard_url=None)
    answered = _steady(rows(answer))
    assert answered, "the planted history gives every one of these pages rows"
    tables = [_steady(records(frame.value)) for frame in at.dataframe]
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

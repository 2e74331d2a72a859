"""Statuses are data, not errors, on every page: a service whose only execution stopped, has an
empty summary, or a status nobody knows (formula-shaped too) gets each page drawn without an
error box, and where a plan stands reads "no verdict".

Against the named service on loopback (tests/dashboard/named_service.py): one plan, one finished
execution with the summary chosen here, one result a scenario with the same status.
"""

from __future__ import annotations

from typing import Any

import pytest

from dashboard.present.tables import NO_VERDICT_LABEL
from tests.dashboard.apptest import (
    COMPARE,
    ENVIRONMENTS,
    EXECUTIONS,
    FLAKY,
    HEALTH,
    PLANS,
    RESULTS,
    SCENARIO,
    STANDUP,
    assert_no_failure,
    everything_shown,
    notes,
    table_with,
)
from tests.dashboard.conftest import AppFactory
from tests.dashboard.named_service import EXECUTION_ID, PLAN_ID, SCENARIOS, Names
from tests.dashboard.test_page_analytics_names import serve  # noqa: F401 (a fixture)

FORMULA = "=cmd|' /C calc'!A0"
SUMMARIES = {
    "stopped": Names(statuses=("STOPPED",), summary=(("STOPPED", 1),)),
    "empty": Names(statuses=("Unexecuted",), summary=()),
    "formula": Names(statuses=(FORMULA,), summary=((FORMULA, 1),)),
}
VIEWS = {
    "plans": (PLANS, {}),
    "executions": (EXECUTIONS, {"plan": str(PLAN_ID), "range": "30d"}),
    "results": (RESULTS, {"plan": str(PLAN_ID), "execution": str(EXECUTION_ID)}),
    "standup": (STANDUP, {}),
    "health": (HEALTH, {}),
    "flaky": (FLAKY, {}),
    "environments": (ENVIRONMENTS, {"plan": str(PLAN_ID)}),
    "compare": (COMPARE, {"plan": str(PLAN_ID)}),
    "scenario": (SCENARIO, {"plan": str(PLAN_ID), "scenario": str(SCENARIOS[0])}),
}


@pytest.mark.parametrize("summary", list(SUMMARIES))
@pytest.mark.parametrize("view", list(VIEWS))
def test_a_page_of_executions_without_a_verdict_is_drawn(
    app: AppFactory,
    serve: Any,  # noqa: F811
    view: str,
    summary: str,
) -> None:
    serve(SUMMARIES[summary])
    page, query = VIEWS[view]
    at = app(page, tz="UTC", **query)

    at.run()

    assert_no_failure(at)
    if view in ("plans", "health"):
        where = table_with(at, "Id", "Now").set_index("Id")
        assert where.loc[PLAN_ID, "Now"] == NO_VERDICT_LABEL
    if view == "standup":
        assert "could not be loaded" not in notes(at)
    if summary == "formula" and view in ("executions", "results"):
        assert FORMULA in everything_shown(at)  # a status is shown as itself

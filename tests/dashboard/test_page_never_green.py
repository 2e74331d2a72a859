"""Every page draws when no plan in scope was ever green: the hand-built red history
(tests/dashboard/red_history.py) scoped to plan 22 "Mobile smoke", which failed in each of its
executions on each scenario: no green execution and no pass to count back to."""

from __future__ import annotations

from typing import Any

import pytest

from tests.dashboard import red_history as red
from tests.dashboard.apptest import (
    FAILURES,
    FLAKY,
    HEALTH,
    STATES,
    TIME_TO_GREEN,
    assert_no_failure,
    table_with,
)
from tests.dashboard.conftest import AppFactory


def test_failures_draws_when_no_plan_in_scope_was_ever_green(
    app: AppFactory, red_built: red.RedHistory
) -> None:
    at = app(FAILURES, tz="UTC", plan=str(red.MOBILE))
    at.run()

    assert_no_failure(at)
    shown = table_with(at, "Failure group", "Failing since")
    assert set(shown["Plan"]) == {"Mobile smoke"}
    assert len(shown) == 6  # 2 scenarios in 3 executions, all failed
    assert all(str(s).startswith("at least ") for s in shown["Failing since"])


@pytest.mark.parametrize("page", [STATES, TIME_TO_GREEN, HEALTH, FLAKY])
def test_the_other_pages_draw_when_no_plan_in_scope_was_ever_green(
    page: str, app: AppFactory, red_built: red.RedHistory
) -> None:
    at: Any = app(page, tz="UTC", plan=str(red.MOBILE))
    at.run()

    assert_no_failure(at)

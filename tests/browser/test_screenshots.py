"""A screenshot of every page (every route of `dashboard.state.routes.ALL`) on the demo data.

Each browser run takes them, so a page that stopped drawing fails here, and keeps them under
artifacts/browser/screenshots/. With UPDATE_SCREENSHOTS=1 (`make screenshots`) they are also
written to docs/screenshots/, where the README shows them: a page added to `routes.ALL` is
captured with no change here (opened with no parameters unless `examples` names some; the
scenario analytics pages open on their planted cases and must show them, `PLANTED_TEXT`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from api_client import ApiClient, ExecutionQuery
from dashboard.state import routes
from sandbox import SandboxSettings
from sandbox.data import planted
from tests.browser import screen
from tests.browser.harness import ARTIFACTS, REPO_ROOT, StreamlitServer

pytestmark = pytest.mark.browser

DOCS = REPO_ROOT / "docs" / "screenshots"
UPDATE = os.environ.get("UPDATE_SCREENSHOTS", "").strip().lower() in ("1", "true", "yes")


def examples(oracle: ApiClient, now: datetime) -> dict[str, str]:
    """The query that shows each known page at its most telling on the demo: the plan that
    turned red, and its failing execution."""
    plan = planted.TURNED_RED_PLAN
    runs = oracle.all_executions(ExecutionQuery(plan_id=plan, date_from=now - timedelta(days=30)))
    failed = max(
        (e for e in runs if e.end_date is not None and not e.result_summary.get("WAITING")),
        key=lambda e: e.start_date,
    )
    return {
        routes.EXECUTIONS.url_path: f"plan={plan}&range=30d",
        routes.RESULTS.url_path: f"execution={failed.id}",
        routes.STANDUP.url_path: "tz=UTC",
        routes.HEALTH.url_path: "tz=UTC",
        # The scenario analytics, each on its planted case (sandbox/data/planted.py).
        routes.FLAKY.url_path: f"plan={planted.SCENARIO_CASES_PLAN}&tz=UTC",
        routes.ENVIRONMENTS.url_path: f"plan={planted.STILL_FAILING_PLAN}&tz=UTC",
        routes.COMPARE.url_path: f"plan={planted.TURNED_RED_PLAN}&tz=UTC",
        routes.SCENARIO.url_path: (
            f"plan={planted.SCENARIO_CASES_PLAN}&scenario={planted.SLOWING_SCENARIO}&tz=UTC"
        ),
        routes.STATES.url_path: "tz=UTC",
        routes.TIME_TO_GREEN.url_path: "tz=UTC",
        routes.FAILURES.url_path: "tz=UTC",
        routes.SLOWER.url_path: "tz=UTC",
    }


RUNS = planted.STILL_FAILING_RUNS
PLANTED_TEXT: dict[str, str] = {
    routes.FLAKY.url_path: "12 flips in 20 runs",  # scenario 4 over plan 2's last 20
    routes.ENVIRONMENTS.url_path: f"fails on SAFARI 18 / macOS in {RUNS} of {RUNS} runs",
    routes.COMPARE.url_path: "\u2716 new failure",  # scenario 8 in plan 1's latest
    routes.SCENARIO.url_path: "Runtime regression: ",  # scenario 12 slowed down
    routes.STATES.url_path: "12 flips in 19 chances",  # scenario 4, flaky
    routes.TIME_TO_GREEN.url_path: f"red for 4 d 21 h ({RUNS} executions)",  # plan 3
    routes.FAILURES.url_path: "in a row",  # each failure says since when
    routes.SLOWER.url_path: "median of its last 5 completed runs",  # scenario 12
}
"""What each example shows of its planted case, so a screenshot is never of an empty page (a
table's cells are read through its accessible table, which holds the rows in view)."""


def capture(page: Page, url: str, targets: list[Path], shows: str | None = None) -> None:
    """Open `url` and, once everything on it has drawn (and it `shows` that text, when
    given), save what the screen shows."""
    screen.open_app(page, url)
    main = screen.main(page)
    expect(main.get_by_role("heading", level=1)).to_be_visible()
    if shows is not None:
        expect(main).to_contain_text(shows)
    screen.wait_until_drawn(page)
    screen.expect_no_failure_shown(page)
    for target in targets:
        target.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(target))


@pytest.mark.parametrize("route", routes.ALL, ids=[r.url_path for r in routes.ALL])
def test_every_page_is_captured(
    route: routes.Route,
    new_page: Callable[[], Page],
    dashboard: StreamlitServer,
    oracle: ApiClient,
    demo_settings: SandboxSettings,
) -> None:
    query = examples(oracle, demo_settings.now).get(route.url_path, "")
    url = f"{dashboard.url}/{route.url_path}" + (f"?{query}" if query else "")
    name = f"{route.url_path}.png"
    targets = [ARTIFACTS / "screenshots" / name] + ([DOCS / name] if UPDATE else [])

    capture(new_page(), url, targets, PLANTED_TEXT.get(route.url_path))

    for target in targets:
        assert target.stat().st_size > 10_000, f"{target} is nearly empty"

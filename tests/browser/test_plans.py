"""Journey 1: open the dashboard fresh; the Plans page shows its KPIs and table, and no error."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from api_client import ApiClient
from tests.browser import screen
from tests.browser.harness import Secrets, StreamlitServer

pytestmark = pytest.mark.browser


def test_fresh_dashboard_shows_the_plans_table_and_kpis(
    page: Page, dashboard: StreamlitServer, oracle: ApiClient, secrets: Secrets
) -> None:
    screen.open_app(page, dashboard.url + "/")

    expect(page.get_by_role("heading", name="Test plans", level=1)).to_be_visible()
    kpis = screen.metrics(page)
    assert list(kpis) == ["Plans", "Enabled", "Scenarios", "With alerts"]

    active_plans = oracle.plans(active=True)
    grid = screen.Grid.only(page)
    grid.expect_rows(len(active_plans))
    assert kpis["Plans"] == f"{len(active_plans):,}"
    assert kpis["Scenarios"] == f"{sum(len(p.scenarios) for p in active_plans):,}"
    # Each plan leads with where it stands, then its settings.
    assert grid.headers()[:7] == [
        "Id",
        "Plan",
        "Now",
        "Latest finished",
        "Same since",
        "Executions since",
        "Type",
    ]
    assert sorted(grid.column("Plan")) == sorted(p.plan_name for p in active_plans)
    screen.caption_matching(page, rf"^{len(active_plans)} active plans in every project\b")

    # The default view keeps a clean address: the default page, no parameters.
    assert re.fullmatch(re.escape(dashboard.url) + r"/?", page.url), page.url
    expect(page.get_by_test_id("stSidebar")).to_contain_text("Demo data")
    screen.expect_no_failure_shown(page)
    secrets.assert_absent(page.content(), "the plans page")

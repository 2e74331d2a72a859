"""Journey 8: no credential ever reaches the browser or the server's log.

The bearer tokens of the demo users (the embedded demo logs in with one) and every
`user_info.access_token` the sandbox serves must not appear in the HTML of any page, in any
URL, in any downloaded CSV, or in the dashboard's log. The other journeys check the pages they
visit as well; this one walks every page of a results-rich view on purpose, and also signs in
through the sidebar's connection form.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from sandbox import RunningSandbox
from tests.browser import screen
from tests.browser.conftest import DemoPlan
from tests.browser.harness import Secrets, StreamlitServer

pytestmark = pytest.mark.browser


def check(page: Page, secrets: Secrets, where: str) -> None:
    secrets.assert_absent(page.content(), f"the HTML of {where}")
    secrets.assert_absent(page.url, f"the URL of {where}")


def test_no_token_in_pages_urls_downloads_or_logs(
    page: Page,
    dashboard: StreamlitServer,
    demo_plan: DemoPlan,
    downloads: Path,
    secrets: Secrets,
) -> None:
    screen.open_app(page, dashboard.url + "/")
    screen.expect_table_settled(page)
    check(page, secrets, "the plans page")
    _, plans_csv = screen.download_table(page, downloads)
    secrets.assert_absent(plans_csv, "the plans CSV")

    screen.open_app(page, f"{dashboard.url}/executions?plan={demo_plan.id}&range=30d")
    executions = screen.expect_table_settled(page)
    screen.expect_charts(page, 3)  # the closed "Per day" tab's chart is not sent
    check(page, secrets, "the executions page")
    _, executions_csv = screen.download_table(page, downloads)
    secrets.assert_absent(executions_csv, "the executions CSV")

    # Results carry user_info with another user's access_token: the riskiest page.
    executions.select_row(0)
    expect(page).to_have_url(re.compile(r"/results\?"))
    screen.wait_until_idle(page)
    screen.expect_table_settled(page)
    screen.expect_charts(page, 2)
    check(page, secrets, "the results page")
    _, results_csv = screen.download_table(page, downloads)
    assert "/storage/" in results_csv, "the results CSV should hold the log links"
    secrets.assert_absent(results_csv, "the results CSV")

    secrets.assert_absent(dashboard.log(), "the demo dashboard's log")
    screen.expect_no_failure_shown(page)


def test_a_token_typed_into_the_connection_form_stays_out_of_the_page(
    page: Page,
    dashboard: StreamlitServer,
    error_sandbox: RunningSandbox,
    secrets: Secrets,
) -> None:
    lead = next(user for user in error_sandbox.users if user.username == "acme.lead")
    screen.open_app(page, dashboard.url + "/")
    screen.expect_table_settled(page)

    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_test_id("stExpander").get_by_text("Connect to a service").click()
    sidebar.get_by_label("Base URL").fill(error_sandbox.base_url)
    sidebar.get_by_label("Token").fill(lead.token)
    sidebar.get_by_label("Company id").fill("1")
    sidebar.get_by_role("button", name="Connect").click()

    expect(sidebar).to_contain_text(f"Live: {error_sandbox.base_url.removeprefix('http://')}")
    screen.wait_until_idle(page)
    screen.expect_table_settled(page)
    expect(sidebar.get_by_label("Token")).to_have_value("")
    check(page, secrets, "the plans page after connecting")

    # Moving to another page keeps the session's connection and still shows no token.
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Executions", exact=True).click()
    expect(page).to_have_url(re.compile(r"/executions"))
    screen.wait_until_idle(page)
    expect(sidebar).to_contain_text("Live: ")
    screen.expect_no_failure_shown(page)
    check(page, secrets, "the executions page after connecting")
    secrets.assert_absent(dashboard.log(), "the demo dashboard's log")


def test_the_leak_check_sees_what_the_sandbox_serves(
    oracle_sandbox: RunningSandbox, secrets: Secrets
) -> None:
    """A control: the raw results JSON holds access tokens, and the check finds them there."""
    lead = oracle_sandbox.users[0]
    # Company 1's newest execution and a scenario of its plan (the demo's ids are not fixed).
    with httpx.Client(
        base_url=f"{oracle_sandbox.base_url}/api",
        headers={"Authorization": f"Bearer {lead.token}", "current-company-id": "1"},
        timeout=30,
    ) as api:
        execution = api.get("/executions/filter", params={"page": 1, "size": 1}).json()
        newest = execution["item_list"][0]
        plans = api.get("/plans/lazy", params={"active": "false"}).json()
        scenario = next(p for p in plans if p["id"] == newest["plan_id"])["scenarios"][0]
        response = api.get(f"/results/execution/{newest['id']}/scenario/{scenario}")
    assert response.status_code == 200
    assert secrets.leaks(response.text)
    assert secrets.leaks(f"Authorization: Bearer {lead.token}")

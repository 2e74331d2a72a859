"""A connection made through the sidebar's form never shows the previous connection's data
under its own name: while the new service is being asked (here it drips its answers, so the
page waits), the page holds nothing of the demo it showed before, in a real browser."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser import screen
from tests.browser.harness import StreamlitServer
from tests.hostile_service import hostile_service
from tests.waiting import wait_until

pytestmark = pytest.mark.browser


def test_a_new_form_connection_never_shows_the_previous_connections_data(
    start_dashboard: Callable[[str, dict[str, str]], StreamlitServer], page: Page
) -> None:
    server = start_dashboard("form-budget", {})  # the demo, with the form on
    screen.open_app(page, server.url + "/")
    screen.expect_table_settled(page)
    main = screen.main(page)
    demo_plans = main.get_by_test_id("stDataFrame")
    expect(demo_plans).to_have_count(1)

    with hostile_service(drip_interval=0.5) as service:
        sidebar = page.get_by_test_id("stSidebar")
        sidebar.get_by_test_id("stExpander").get_by_text("Connect to a service").click()
        sidebar.get_by_label("Base URL").fill(service.url("drip"))
        sidebar.get_by_label("Token").fill("a-token-the-service-takes")
        sidebar.get_by_label("Company id").fill("1")
        sidebar.get_by_role("button", name="Connect").click()

        # The sidebar names the new service while the page is still waiting for it (not yet
        # "Live": whether it takes the token is what it is being asked) ...
        expect(sidebar).to_contain_text(f"Connecting: {service.base_url.removeprefix('http://')}")
        wait_until(lambda: service.request_count("drip") >= 1, what="the service being asked")
        expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "running")
        # ... and the page shows nothing of the demo meanwhile.
        expect(demo_plans).to_have_count(0)
        assert "Demo" not in main.inner_text()

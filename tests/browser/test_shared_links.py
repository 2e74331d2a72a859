"""Journey 5: the link of each page, with its filters, opened in a brand-new browser context
shows the same view: no "Page not found" dialog, no filter lost."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from dashboard.present.colors import status_label
from tests.browser import screen
from tests.browser.conftest import DemoPlan
from tests.browser.harness import Secrets, StreamlitServer

pytestmark = pytest.mark.browser


def reopen(new_page: Callable[[], Page], url: str, secrets: Secrets) -> Page:
    """Open a copied link the way a colleague does: a fresh browser, the link pasted."""
    secrets.assert_absent(url, "a shared link")
    page = new_page()
    screen.open_app(page, url)
    return page


def test_each_pages_link_reopens_the_same_view_in_a_new_browser(
    new_page: Callable[[], Page],
    dashboard: StreamlitServer,
    demo_plan: DemoPlan,
    secrets: Secrets,
) -> None:
    page = new_page()
    screen.open_app(page, dashboard.url + "/")

    # Plans, filtered to the demo plan's project, disabled plans included.
    plans = screen.Grid.only(page)
    project = plans.column("Project")[plans.column("Plan").index(demo_plan.name)]
    screen.choose(page, "Project", project)
    expect(page).to_have_url(re.compile(r"[?&]project=\d+"))
    screen.wait_until_idle(page)
    page.get_by_test_id("stCheckbox").filter(has_text="Active plans only").click()
    expect(page).to_have_url(re.compile(r"[?&]active=false(&|$)"))
    screen.wait_until_idle(page)
    plans_view = screen.view(page)
    assert plans_view["selects"] == {"Project": project}
    assert plans_view["toggles"] == {"Active plans only": False}

    shared = reopen(new_page, page.url, secrets)
    assert screen.view(shared) == plans_view
    screen.expect_no_failure_shown(shared)

    # Executions of the demo plan, last 30 days, one status.
    plans = screen.Grid.only(page)
    plans.select_row(plans.column("Plan").index(demo_plan.name))
    expect(page).to_have_url(re.compile(r"/executions\?"))
    screen.wait_until_idle(page)
    screen.segment(page, "Started in the last", "30 d").click()
    expect(page).to_have_url(re.compile(r"[?&]range=30d(&|$)"))
    screen.wait_until_idle(page)
    screen.pick(page, "Status", status_label(demo_plan.status))
    expect(page).to_have_url(re.compile(rf"[?&]status={demo_plan.status}(&|$)"))
    screen.wait_until_idle(page)
    screen.Grid.only(page).expect_rows(demo_plan.executions_30d_status)
    screen.expect_charts(page, 3)  # the closed "Per day" tab's chart is not sent
    executions_view = screen.view(page)
    assert executions_view["selects"] == {"Project": project, "Plan": demo_plan.name}
    assert executions_view["picks"] == {"Status": [status_label(demo_plan.status)]}
    assert executions_view["segments"] == {"Started in the last": ["30 d"]}

    shared = reopen(new_page, page.url, secrets)
    assert screen.view(shared) == executions_view
    screen.expect_no_failure_shown(shared)

    # One execution's results.
    executions = screen.Grid.only(page)
    execution_id = executions.column("Id")[0]
    executions.select_row(0)
    expect(page).to_have_url(re.compile(rf"/results\?(.*&)?execution={execution_id}(&|$)"))
    screen.wait_until_idle(page)
    screen.expect_charts(page, 2)
    results_view = screen.view(page)
    assert results_view["title"] == f"Execution #{execution_id}"

    shared = reopen(new_page, page.url, secrets)
    assert screen.view(shared) == results_view
    screen.expect_no_failure_shown(shared)

    # From the shared results link, "Back to executions" restores every executions filter.
    shared.get_by_role("link", name="Back to executions").click()
    expect(shared).to_have_url(re.compile(r"/executions\?"))
    screen.wait_until_idle(shared)
    screen.Grid.only(shared).expect_rows(demo_plan.executions_30d_status)
    assert screen.view(shared) == executions_view
    screen.expect_no_failure_shown(shared)
    screen.expect_no_failure_shown(page)


def test_the_watch_sees_a_page_not_found_dialog(page: Page, dashboard: StreamlitServer) -> None:
    """A control: the "Page not found" dialog of an unknown page is noticed, so the journey's
    "no such dialog" means something (the dialog can vanish before an assertion looks).

    A browser's page load of an unknown path now gets the server's own 404 page (see
    test_unknown_paths.py), so the request is sent as a script's would be (no text/html in
    Accept): Streamlit then serves its app there and shows its dialog, as before."""
    page.route(
        "**/no-such-page",
        lambda route: route.continue_(headers={**route.request.headers, "accept": "*/*"}),
    )
    screen.open_app(page, dashboard.url + "/no-such-page")
    assert page.evaluate("() => window.__seen.pageNotFound") is True

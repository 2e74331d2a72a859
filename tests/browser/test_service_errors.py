"""Journey 7: when the service answers 401, 403 or 500, each page says so in words a viewer can
act on: an error box, no exception box, no traceback, no credential.

Each case starts a dashboard configured through QA_DASHBOARD_* (as a team would deploy it)
against a sandbox in this process, and opens the pages that case concerns.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from playwright.sync_api import Page, expect

from api_client import ApiClient
from sandbox import RunningSandbox
from tests.browser import screen
from tests.browser.conftest import WRONG_TOKEN
from tests.browser.harness import Secrets, StreamlitServer

pytestmark = pytest.mark.browser

PLANS, EXECUTIONS, RESULTS = "plans", "executions", "results"


@dataclass(frozen=True)
class Case:
    user: str | None  # a demo user of the sandbox; None: a token nobody has
    failing: bool  # the sandbox answers every API request with HTTP 500
    pages: dict[str, str]  # page -> the message it must show (a regular expression)
    badge: str = "Live"  # the sidebar's connection badge, before the host


CASES = {
    "401-wrong-token": Case(
        user=None,
        failing=False,
        # One cause, one message on every page, advice for a token set in the environment
        # with the form off; and the connection is not called live.
        pages=dict.fromkeys(
            (PLANS, EXECUTIONS, RESULTS),
            r"did not accept the token \(invalid_token\): it is missing, wrong or expired, so "
            r"nothing can be loaded\. This dashboard's operator sets a fresh token in "
            r"QA_DASHBOARD_TOKEN and restarts the dashboard\.$",
        ),
        badge="Token refused",
    ),
    "403-no-plan-view": Case(
        user="acme.no-plans",
        failing=False,
        pages={PLANS: r"Your token lacks the PLAN_VIEW authority, so the test plans cannot be"},
    ),
    "403-no-execution-view": Case(
        user="acme.no-executions",
        failing=False,
        pages={EXECUTIONS: r"Your token lacks the TEST_EXECUTION_VIEW authority"},
    ),
    "401-no-result-view": Case(
        user="acme.no-results",
        failing=False,
        pages={RESULTS: r"Your token lacks the TEST_RESULT_VIEW authority"},
    ),
    "500-service-failing": Case(
        user="acme.lead",
        failing=True,
        pages={
            PLANS: r"The service failed while loading the test plans \(HTTP 500",
            EXECUTIONS: r"The service failed while loading the executions \(HTTP 500",
            RESULTS: r"The service failed while loading execution \d+ \(HTTP 500",
        },
    ),
}


def an_execution(running: RunningSandbox) -> tuple[int, int]:
    """A (plan id, execution id) of company 1 in a healthy sandbox with the same data."""
    lead = next(user for user in running.users if user.username == "acme.lead")
    with ApiClient(base_url=running.base_url, token=lead.token, company_id=1) as client:
        execution = next(e for e in client.all_executions() if e.plan_id is not None)
    assert execution.plan_id is not None
    return execution.plan_id, execution.id


@pytest.mark.parametrize("case_id", list(CASES))
def test_service_errors_read_as_messages_not_tracebacks(
    case_id: str,
    start_dashboard: Callable[[str, dict[str, str]], StreamlitServer],
    new_page: Callable[[], Page],
    error_sandbox: RunningSandbox,
    failing_sandbox: RunningSandbox,
    secrets: Secrets,
) -> None:
    case = CASES[case_id]
    sandbox = failing_sandbox if case.failing else error_sandbox
    token = WRONG_TOKEN
    if case.user is not None:
        token = next(u.token for u in sandbox.users if u.username == case.user)
    server = start_dashboard(
        case_id,
        {
            "QA_DASHBOARD_BASE_URL": sandbox.base_url,
            "QA_DASHBOARD_TOKEN": token,
            "QA_DASHBOARD_COMPANY_ID": "1",
        },
    )
    plan_id, execution_id = an_execution(error_sandbox)  # same seed: same ids in both
    paths = {
        PLANS: "/",
        EXECUTIONS: "/executions",
        RESULTS: f"/results?plan={plan_id}&execution={execution_id}",
    }

    for page_name, message in case.pages.items():
        page = new_page()
        screen.open_app(page, server.url + paths[page_name])
        sidebar = page.get_by_test_id("stSidebar")
        host = sandbox.base_url.removeprefix("http://")
        expect(sidebar).to_contain_text(f"{case.badge}: {host}")

        errors = screen.main(page).locator(screen.ERROR_ALERT)
        expect(errors.first).to_be_visible()
        expect(errors.filter(has_text=re.compile(message))).to_have_count(1)
        if case.badge != "Live":
            expect(sidebar).not_to_contain_text("Live")
            expect(errors).to_have_count(1)
        screen.expect_no_crash(page)
        assert token not in page.content()
        secrets.assert_absent(page.content(), f"the {page_name} page ({case_id})")
        secrets.assert_absent(page.url, f"the {page_name} page's URL ({case_id})")


def test_an_error_names_the_sidebar_form_the_viewer_can_see(
    start_dashboard: Callable[[str, dict[str, str]], StreamlitServer],
    page: Page,
    error_sandbox: RunningSandbox,
) -> None:
    """A message that sends the viewer to a sidebar form names it as the sidebar labels it."""
    server = start_dashboard(
        "401-form-name",
        {
            "QA_DASHBOARD_BASE_URL": error_sandbox.base_url,
            "QA_DASHBOARD_TOKEN": WRONG_TOKEN,
            "QA_DASHBOARD_COMPANY_ID": "1",
            # A configured dashboard offers the form only when its operator allows it.
            "QA_DASHBOARD_ALLOW_CONNECTION_FORM": "true",
        },
    )
    screen.open_app(page, server.url + "/")
    error = screen.main(page).locator(screen.ERROR_ALERT).filter(has_text="sidebar's")
    expect(error).to_have_count(1)
    form_name = error.locator("em").first.inner_text().strip()
    expanders = page.get_by_test_id("stSidebar").get_by_test_id("stExpander")
    labels = [
        label.strip()
        for label in expanders.locator("summary")
        .get_by_test_id("stMarkdownContainer")
        .all_inner_texts()
    ]
    assert form_name in labels, f"the message names {form_name!r}; the sidebar has {labels}"

"""Names from the service are text in a real browser: a plan, project or user named like a URL
or an e-mail address is never a link (Streamlit's markdown would autolink it), and a bidi
override cannot reorder what is shown."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.browser import screen
from tests.browser.harness import StreamlitServer
from tests.dashboard.named_service import EXECUTION_ID, PLAN_ID, NamedService, Names, serve_names

pytestmark = pytest.mark.browser

NAMES = Names(
    plan="https://evil.example/login",
    project="www.evil-shop.example",
    user="phish@evil.example",
    message="Reset at https://evil.example/reset",
    statuses=("SUCCESS", "FAIL\u202eERUL"),
)
PATHS = {
    "plans": "/?active=false&project=2",
    "executions": f"/executions?plan={PLAN_ID}&range=30d",
    "results": f"/results?plan={PLAN_ID}&execution={EXECUTION_ID}",
}


@pytest.fixture(scope="module")
def named_service() -> Iterator[NamedService]:
    with serve_names(NAMES) as service:
        yield service


@pytest.mark.parametrize("view", list(PATHS))
def test_names_that_look_like_links_are_not_links(
    view: str,
    named_service: NamedService,
    start_dashboard: Callable[[str, dict[str, str]], StreamlitServer],
    page: Page,
) -> None:
    server = start_dashboard(
        f"names-{view}",
        {
            "QA_DASHBOARD_BASE_URL": named_service.base_url,
            "QA_DASHBOARD_TOKEN": "sbx-named-service-token",
            "QA_DASHBOARD_COMPANY_ID": "7",
        },
    )

    screen.open_app(page, server.url + PATHS[view])

    screen.expect_no_failure_shown(page)
    main = screen.main(page)
    if view == "results":
        expect(main).to_contain_text("Plan: https://evil.example/login")
        expect(main).to_contain_text("Started by: phish@evil.example")
        expect(main).to_contain_text("Summary: SUCCESS 1, FAIL\ufffdERUL 1")
    elif view == "executions":
        expect(main).to_contain_text("1 execution of plan https://evil.example/login")
    else:
        expect(main).to_contain_text("in project www.evil-shop.example")
    links = page.locator("a").evaluate_all("links => links.map(a => a.href + ' ' + a.innerText)")
    assert not [link for link in links if "evil" in link], links
    assert "\u202e" not in page.locator("body").inner_text()

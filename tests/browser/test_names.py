"""Names from the service are text in a real browser, on every page and in "Copy for chat": a
plan, project, user or message shaped like a URL or an e-mail address is never a link
(Streamlit's markdown would autolink it, even escaped), a bidi override cannot reorder what is
shown, and the chat digest mentions nobody."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Page, expect

from dashboard.present.formatting import WORD_JOINER
from tests.browser import screen
from tests.browser.harness import StreamlitServer
from tests.dashboard import standup_history
from tests.dashboard.named_service import (
    EXECUTION_ID,
    PLAN_ID,
    SCENARIOS,
    NamedService,
    Names,
    serve_names,
)
from tests.dashboard.test_page_names import CHAT_HOSTILE

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


# The analytics pages read the same names from a service whose second scenario failed, with a
# message full of link shapes: every way Streamlit's Markdown (and a chat) would make a link.
FAILING = dataclasses.replace(
    NAMES,
    message="Reset at https://evil.example/reset, www.evil.example or mailto:phish@evil.example",
    statuses=("SUCCESS", "FAILURE"),
)
ANALYTICS_PATHS = {
    "health": "/health?tz=UTC",
    "flaky": "/flaky?tz=UTC",
    "environments": f"/environments?plan={PLAN_ID}&tz=UTC",
    "compare": f"/compare?plan={PLAN_ID}&tz=UTC",
    "scenario": f"/scenario?plan={PLAN_ID}&scenario={SCENARIOS[1]}&tz=UTC",
}


def links_to_evil(page: Page) -> list[str]:
    links = page.locator("a").evaluate_all("links => links.map(a => a.href + ' ' + a.innerText)")
    return [link for link in links if "evil" in link]


def test_names_and_messages_are_not_links_on_the_analytics_pages(
    start_dashboard: Callable[[str, dict[str, str]], StreamlitServer], page: Page
) -> None:
    with serve_names(FAILING) as service:
        server = start_dashboard(
            "names-analytics",
            {
                "QA_DASHBOARD_BASE_URL": service.base_url,
                "QA_DASHBOARD_TOKEN": "sbx-named-service-token",
                "QA_DASHBOARD_COMPANY_ID": "7",
            },
        )
        for view, path in ANALYTICS_PATHS.items():
            screen.open_app(page, server.url + path)

            screen.expect_no_failure_shown(page)
            assert not links_to_evil(page), (view, links_to_evil(page))
            if view == "flaky":  # the failure group's title reads as the message
                title = page.get_by_test_id("stExpander").filter(has_text="1 failure in")
                expect(title).to_have_count(1)
                read = title.inner_text().replace(WORD_JOINER, "")
                assert "Reset at https://evil.example/reset, www.evil.example or " in read
                assert "mailto:phish@evil.example" in read


def test_standup_and_copy_for_chat_show_names_as_text_mentioning_nobody(
    start_dashboard: Callable[[str, dict[str, str]], StreamlitServer], page: Page
) -> None:
    with standup_history.serve_history(names=CHAT_HOSTILE) as service:
        server = start_dashboard("names-standup", standup_history.dashboard_env(service))
        screen.open_app(page, f"{server.url}/standup?{urlencode(standup_history.VIEW)}")
        screen.expect_no_failure_shown(page)
        expect(page.get_by_role("heading", name="Turned red", exact=True)).to_be_visible()
        screen.main(page).get_by_role("button", name=re.compile("Copy for chat")).click()
        code = page.get_by_test_id("stCode").locator("code")
        expect(code).to_contain_text("Turned red")
        chat = code.inner_text()

    assert not links_to_evil(page), links_to_evil(page)
    assert "\u202e" not in page.locator("body").inner_text()
    read = re.sub(r"\\(.)", r"\1", chat).replace(WORD_JOINER, "")
    assert "[@channel https://evil.example/login](" in read
    for unbroken in ("@channel", "@here", "@all", "@everyone", "<!here>", "https://", "evil.ex"):
        assert unbroken not in chat, unbroken

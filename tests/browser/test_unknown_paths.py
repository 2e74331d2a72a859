"""An address that is no page of the dashboard says so, with a link home, at any depth: never a
blank page (Streamlit's own answer at `/results/extra`) or a flash of "Page not found"."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser import screen
from tests.browser.harness import StreamlitServer

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("path", ["/results/extra", "/nope/a/b", "/nope", "/executions/1/2?x=1"])
def test_an_unknown_path_shows_page_not_found_and_a_link_home(
    path: str, dashboard: StreamlitServer, page: Page
) -> None:
    response = page.goto(dashboard.url + path)

    assert response is not None
    assert response.status == 404
    expect(page.get_by_role("heading", name="Page not found")).to_be_visible()
    home = page.get_by_role("link", name="Go to the dashboard's home page")
    expect(home).to_be_visible()

    home.click()

    screen.wait_until_idle(page, screen.FIRST_LOAD_TIMEOUT_MS)
    assert screen.path(page) == "/"
    expect(screen.main(page).get_by_role("heading", level=1)).to_have_text("Test plans")
    screen.expect_no_failure_shown(page)


@pytest.mark.parametrize(
    ("path", "lands_on", "title"),
    [
        ("/results/?execution=nope", "/results", "Execution results"),
        ("/executions/", "/executions", "Executions"),
        ("/plans?active=false", "/", "Test plans"),
    ],
)
def test_another_spelling_of_a_page_opens_that_page(
    path: str, lands_on: str, title: str, dashboard: StreamlitServer, page: Page
) -> None:
    screen.open_app(page, dashboard.url + path)

    assert screen.path(page) == lands_on
    expect(screen.main(page).get_by_role("heading", level=1)).to_have_text(title)
    screen.expect_no_crash(page)
    if path.startswith("/plans"):
        assert screen.query(page) == {"active": "false"}

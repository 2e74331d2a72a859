"""The theme a viewer picks holds on every page, and a shared link can carry one."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser import screen
from tests.browser.conftest import Visit
from tests.browser.harness import StreamlitServer

pytestmark = pytest.mark.browser

# The backgrounds of .streamlit/config.toml's two themes, as the browser computes them.
DARK = "rgb(18, 20, 24)"
LIGHT = "rgb(255, 255, 255)"


def app_background(page: Page):  # type: ignore[no-untyped-def]
    return expect(page.get_by_test_id("stApp"))


def pick_theme(page: Page, name: str) -> None:
    """The theme in Streamlit's main menu (System, Light, Dark), as a viewer picks it."""
    page.get_by_test_id("stMainMenu").click()
    page.get_by_role("menuitemradio", name=name, exact=True).click()


def test_a_theme_picked_on_one_page_holds_when_another_page_is_opened(
    page: Page, dashboard: StreamlitServer, visit: Visit
) -> None:
    screen.open_app(page, f"{dashboard.url}/executions")
    app_background(page).to_have_css("background-color", LIGHT)

    pick_theme(page, "Dark")
    app_background(page).to_have_css("background-color", DARK)
    screen.wait_until_idle(page)
    page.reload()  # the page's script sees the choice when the page next runs
    screen.wait_until_idle(page)
    app_background(page).to_have_css("background-color", DARK)

    # A link to another page, opened in a new tab of the same browser.
    for path in ("/results", "/", "/health"):
        other = page.context.new_page()
        visit.pages.append(other)
        screen.open_app(other, f"{dashboard.url}{path}")
        app_background(other).to_have_css("background-color", DARK)
        screen.expect_no_crash(other)

    # Back to light on the results page: the executions page follows.
    other = visit.pages[-3]
    pick_theme(other, "Light")
    other.reload()
    screen.wait_until_idle(other)
    again = page.context.new_page()
    visit.pages.append(again)
    screen.open_app(again, f"{dashboard.url}/executions")
    app_background(again).to_have_css("background-color", LIGHT)


def test_a_shared_link_can_carry_the_dark_theme(page: Page, dashboard: StreamlitServer) -> None:
    screen.open_app(page, f"{dashboard.url}/executions?range=30d&embed_options=dark_theme")

    app_background(page).to_have_css("background-color", DARK)
    # The page rewrites its URL to its own state and keeps the theme in it.
    assert "embed_options=dark_theme" in page.url
    assert "range=30d" in page.url
    screen.expect_no_failure_shown(page)

"""The navigation on arrival: every page's link is in view in the sidebar, in the order of
`dashboard.state.routes.SECTIONS`, none behind Streamlit's "View N more", and one click on it
opens its page (#39: Environments, Compare, Scenario history and Known failures were behind
"View 4 more")."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from dashboard.state import routes
from tests.browser import screen
from tests.browser.harness import StreamlitServer

LAPTOP = {"width": 1440, "height": 900}


def test_every_route_is_in_exactly_one_section() -> None:
    """A new page is declared in routes.py and listed in one section; none is left out."""
    declared = [value for value in vars(routes).values() if isinstance(value, routes.Route)]
    listed = [route for _, section in routes.SECTIONS for route in section]
    assert sorted(r.url_path for r in listed) == sorted(r.url_path for r in declared)
    assert tuple(listed) == routes.ALL
    labels = [label for label, _ in routes.SECTIONS]
    assert len(set(labels)) == len(labels)


@pytest.mark.browser
def test_on_arrival_every_page_is_in_view_and_one_click_away(
    new_page: Callable[[], Page], dashboard: StreamlitServer
) -> None:
    page = new_page()
    page.set_viewport_size(LAPTOP)
    screen.open_app(page, dashboard.url)
    nav = page.get_by_test_id("stSidebarNav")

    # Each link shows its title in a Markdown container, beside a Material icon (whose
    # ligature is text too).
    label_of = "stMarkdownContainer"
    links = nav.get_by_test_id("stSidebarNavLink")
    expect(links.get_by_test_id(label_of)).to_have_text([route.title for route in routes.ALL])
    expect(nav.get_by_text(re.compile(r"View \d+ more"))).to_have_count(0)
    for link in links.all():
        expect(link).to_be_in_viewport()

    for route in routes.ALL:
        nav.get_by_role("link", name=route.title, exact=True).click()
        expected = "/" if route.default else f"/{route.url_path}"
        expect(page).to_have_url(re.compile(rf"^{re.escape(dashboard.url)}{expected}(\?.*)?$"))
        expect(nav.locator("[aria-current=page]").get_by_test_id(label_of)).to_have_text(
            route.title
        )
        screen.wait_until_idle(page)
        expect(screen.main(page).get_by_role("heading", level=1)).to_be_visible()
        screen.expect_no_failure_shown(page)

"""Known failures in a real browser, on a demo dashboard with a store of its own: a failure group
marked known on /flaky is still known after a reload, the standup folds the plan it turned red
into one line with its ticket, and closing the mark on the Known failures page brings the plan
back to Turned red."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser import screen
from tests.browser.harness import StreamlitServer

pytestmark = pytest.mark.browser

TICKET = "https://jira.example.com/browse/SHOP-123"
GROUP = re.compile(r'^Failures "SessionNotCreatedException: .*" in every plan$')
KNOWN_LINE = "Known: Web Shop smoke: 1 scenario known \u2014 SHOP-123"


@pytest.fixture
def own_demo(
    start_dashboard: Callable[[str, dict[str, str]], StreamlitServer], tmp_path: Path
) -> StreamlitServer:
    """The demo, its marks in a store folder of this test's own (the session's demo server
    keeps none of them)."""
    return start_dashboard("known", {"QA_DASHBOARD_CACHE_DIR": str(tmp_path / "stores")})


def turned_red_plans(page: Page) -> list[str]:
    block = (
        screen.main(page)
        .locator('[data-testid="stVerticalBlock"]')
        .filter(has=page.get_by_role("heading", name="Turned red", exact=True))
        .last
    )
    frames = block.locator(screen.DATAFRAME)
    if not frames.count():
        return []
    return screen.Grid(frames.first).wait().column("Plan")


def open_standup(page: Page, server: StreamlitServer) -> None:
    screen.open_app(page, server.url + "/standup?tz=UTC")
    expect(page.get_by_role("heading", name="Turned red", exact=True)).to_be_visible()
    screen.wait_until_idle(page)
    screen.expect_no_failure_shown(page)


def test_a_group_marked_on_flaky_is_folded_on_the_standup_until_closed(
    page: Page, own_demo: StreamlitServer
) -> None:
    open_standup(page, own_demo)
    assert turned_red_plans(page) == ["Web Shop smoke"]
    expect(screen.main(page).get_by_text("Known failures and outages: none")).to_be_visible()

    # Mark the group known where it is seen: /flaky's failure groups.
    screen.open_app(page, own_demo.url + "/flaky?tz=UTC")
    expect(page.get_by_role("heading", name="Failure groups", exact=True)).to_be_visible()
    screen.main(page).get_by_role("button", name=re.compile("Mark as known")).click()
    screen.selectbox(page, "What").click()
    page.get_by_role("option", name=GROUP).click()
    page.get_by_role("textbox", name="Ticket link", exact=True).fill(TICKET)
    page.get_by_role("textbox", name="Your name", exact=True).fill("Ann")
    page.get_by_role("button", name="Save mark").click()
    screen.wait_until_idle(page)
    expect(screen.main(page).get_by_text(re.compile(r"^Marked Failures"))).to_be_visible()

    # A reload is a new session: the mark is in the store, not in the page.
    page.reload()
    screen.wait_until_idle(page)
    screen.caption_matching(page, r"of the [\d,]+ failures are known \(marked\)")
    assert not screen.caption_matching(page, r"failures are known \(marked\)").startswith("0 of")

    open_standup(page, own_demo)
    assert turned_red_plans(page) == []
    folded = screen.main(page).get_by_text("Known: 1 mark, 1 scenario")
    expect(folded).to_be_visible()
    folded.click()
    expect(screen.main(page).get_by_text(KNOWN_LINE)).to_be_visible()

    # Close it on the Known failures page.
    screen.open_app(page, own_demo.url + "/known?tz=UTC")
    # The mark's own block (its heading names its target), not the table's cell.
    screen.main(page).locator('[data-testid="stExpander"] summary').filter(
        has_text="SessionNotCreatedException"
    ).first.click()
    closer = page.get_by_role("textbox", name="Your name (to close it)", exact=True)
    closer.fill("Ann")
    closer.press("Tab")
    screen.wait_until_idle(page)
    page.get_by_role("button", name="Close", exact=True).click()
    screen.wait_until_idle(page)
    expect(screen.main(page).get_by_text(re.compile(r"^Closed mark "))).to_be_visible()

    open_standup(page, own_demo)
    assert turned_red_plans(page) == ["Web Shop smoke"]
    expect(screen.main(page).get_by_text("Known failures and outages: none")).to_be_visible()

"""A lead reaches a failing execution's log from the standup with the keyboard alone: Tab to
move, Shift+Space to select a table's row, Enter to follow a link. No click, no mouse."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser import screen
from tests.browser.harness import StreamlitServer

pytestmark = pytest.mark.browser

MOST_TABS = 120
"""A bound on the Tab presses from one control to the next one wanted (the sidebar's links and
every table's toolbar come first)."""


def tab_to(page: Page, target: Locator) -> None:
    """Press Tab until `target` has the focus, as a keyboard user moves through the page."""
    expect(target).to_be_attached()
    for _ in range(MOST_TABS):
        if target.evaluate(
            "el => el === document.activeElement || el.contains(document.activeElement)"
        ):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{MOST_TABS} presses of Tab never reached {target}")


def test_from_the_standup_to_a_failing_executions_log_with_the_keyboard(
    page: Page, dashboard: StreamlitServer
) -> None:
    screen.open_app(page, f"{dashboard.url}/standup?tz=UTC")
    screen.wait_until_drawn(page)
    main = screen.main(page)

    # The standup: the plan that turned red, its failing execution as evidence.
    turned_red = main.get_by_test_id("stColumn").filter(
        has=page.get_by_role("heading", name="Turned red", level=2)
    )
    grid = screen.Grid(turned_red.get_by_test_id("stDataFrame"))
    assert grid.row_count() >= 1, "the demo has a plan that turned red"
    tab_to(page, grid.root.get_by_test_id("data-grid-canvas"))
    page.keyboard.press("Shift+Space")  # its first row

    # The failing execution's results.
    expect(page).to_have_url(re.compile(r"/results\?(.*&)?execution=\d+"))
    screen.wait_until_drawn(page)
    results = screen.Grid.only(page)
    levels = results.column("Level")
    failing = next(i for i, level in enumerate(levels) if re.search("FAILURE|ERROR", level))
    tab_to(page, results.root.get_by_test_id("data-grid-canvas"))
    for _ in range(failing):
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Shift+Space")

    # Its message, and the link to its node log, reached and followed with the keyboard.
    log_link = main.get_by_role("link", name="Open the node log")
    tab_to(page, log_link)
    with page.context.expect_page() as opened:
        page.keyboard.press("Enter")
    log_tab = opened.value
    log_tab.wait_for_load_state()
    assert log_tab.url == log_link.get_attribute("href")
    expect(log_tab.locator("body")).to_contain_text("[node] New session")
    log_tab.close()
    screen.expect_no_failure_shown(page)

"""Compare on a browser upgrade, in a real browser (#38): the hand-built red history
(tests/dashboard/red_history.py) turned red the night Firefox went from 128 to 129 on Linux and
scenario 1 started failing there. An environment is its OS and browser, whatever the version,
so the page shows one new failure on "FIREFOX / Linux (128 -> 129)", counts it as started with a
browser upgrade, and lists no "missing before" / "missing after" rows for the version move."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.browser import screen
from tests.browser.harness import StreamlitServer
from tests.browser.test_analytics_pages import grid_with
from tests.dashboard import red_history as red

pytestmark = pytest.mark.browser

NEW = "\u2716 new failure"


@pytest.fixture(scope="module")
def upgrade_night() -> Iterator[red.RedHistory]:
    with red.serve_red_history() as service:
        yield service


@pytest.fixture
def red_dashboard(
    start_dashboard: Callable[[str, dict[str, str]], StreamlitServer],
    upgrade_night: red.RedHistory,
) -> StreamlitServer:
    return start_dashboard(
        "upgrade",
        {
            "QA_DASHBOARD_BASE_URL": upgrade_night.base_url,
            "QA_DASHBOARD_TOKEN": "red-history-token",
            "QA_DASHBOARD_COMPANY_ID": "7",
        },
    )


def test_compare_counts_the_new_failure_that_started_with_the_upgrade(
    page: Page, red_dashboard: StreamlitServer
) -> None:
    screen.open_app(page, f"{red_dashboard.url}/compare?plan={red.CHECKOUT}&tz=UTC")
    expect(page).to_have_url(re.compile(rf"[?&]before={red.GREEN}(&|$)"))
    expect(page).to_have_url(re.compile(rf"[?&]after={red.RED}(&|$)"))

    table = grid_with(page, "Change")
    table.expect_rows(1)  # before #38: 0 new failures and 4 "missing" rows for the move
    assert table.column("Scenario") == ["1"]
    assert table.column("Environment") == ["FIREFOX / Linux (128 -> 129)"]
    assert table.column("Change") == [NEW]
    expect(screen.metric(page, "New failures")).to_have_text("1")
    expect(screen.metric(page, "After a browser upgrade")).to_have_text("1")
    area = screen.main(page)
    expect(
        area.get_by_text("1 new failure started with a browser upgrade.", exact=True)
    ).to_be_visible()
    expect(
        area.get_by_text("New failure on FIREFOX / Linux (128 -> 129): scenario 1.", exact=True)
    ).to_be_visible()
    screen.expect_no_failure_shown(page)

"""The Group rules page in a real browser, on the demo (one person's own dashboard: sign-in off,
a name typed once): a rule is written, its preview counts the failures it would cover, it is
saved (the saved note repeats that count) and listed with its author."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser import screen
from tests.browser.harness import StreamlitServer

pytestmark = pytest.mark.browser

PREVIEW = re.compile(r"^This rule would cover ([\d,]+) failures? in ([\d,]+) groups?\.$")


@pytest.fixture
def own_demo(
    start_dashboard: Callable[[str, dict[str, str]], StreamlitServer], tmp_path: Path
) -> StreamlitServer:
    """The demo, its rules in a store folder of this test's own."""
    return start_dashboard("rules", {"QA_DASHBOARD_CACHE_DIR": str(tmp_path / "stores")})


def test_a_rule_is_previewed_saved_and_listed(page: Page, own_demo: StreamlitServer) -> None:
    screen.open_app(page, own_demo.url + "/rules?tz=UTC")
    expect(page.get_by_role("heading", name="Write a rule", exact=True)).to_be_visible()
    screen.expect_no_failure_shown(page)
    screen.caption_matching(page, r"^0 rules in force\.")

    page.get_by_role("textbox", name="Message pattern", exact=True).fill("SessionNotCreated")
    page.get_by_role("textbox", name="Your name", exact=True).fill("Ann")
    page.get_by_role("button", name="Preview").click()
    screen.wait_until_idle(page)
    sentence = screen.main(page).get_by_text(PREVIEW)
    expect(sentence).to_be_visible()
    found = PREVIEW.match(sentence.inner_text().strip())
    assert found is not None
    failures = int(found.group(1).replace(",", ""))
    assert failures > 0

    page.get_by_role("button", name="Save rule").click()
    screen.wait_until_idle(page)
    saved = screen.main(page).get_by_text(re.compile(r"^Saved rule [0-9a-f]{12}\. "))
    expect(saved).to_be_visible()
    assert f"would cover {found.group(1)} failure" in saved.inner_text()
    screen.caption_matching(page, r"^1 rule in force\.")
    # The preview's examples are gone with the reload: the rules' table is the page's one.
    grid = screen.Grid(screen.main(page).locator(screen.DATAFRAME).last).wait()
    assert grid.column("Message pattern") == ["SessionNotCreated"]
    assert grid.column("Category or group") == ["product bug"]
    assert grid.column("By") == ["Ann"]
    screen.expect_no_failure_shown(page)

"""Every widget's label and text whole on a 1440x900 laptop: on every page of the navigation
(opened on the demo at its most telling, `every_page.examples`, with the browser's time zone, in
a browser whose zone has one of the longest names), no control's label, option or chosen value
is cut ("environmen…", "Custo", "Your browser's ("): a cut label is a control a lead cannot read.

A text is cut when it reaches past the edge of a box that clips it: its own with an ellipsis, a
picker's input, or the column a control group overflows (`every_page.CUT_LABELS_JS`).

Two cuts are the pages' own top lines, which their owners are changing now: they are expected
here, strictly, so the test fails (XPASS) once they are fixed and the mark is to come off."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, expect

from api_client import ApiClient
from dashboard.state import routes
from sandbox import SandboxSettings
from tests.browser import every_page, screen
from tests.browser.conftest import LOOPBACK, WATCH_SCRIPT, Visit
from tests.browser.harness import StreamlitServer

pytestmark = pytest.mark.browser

WIDTH, HEIGHT = 1440, 900
LONG_ZONE = "America/North_Dakota/New_Salem"
"""A browser zone with one of the longest names (30 characters)."""


def route_param(route: routes.Route) -> object:
    return pytest.param(route, id=route.url_path)


@pytest.fixture(scope="module")
def urls(oracle: ApiClient, demo_settings: SandboxSettings) -> dict[str, str]:
    return every_page.urls(oracle, demo_settings.now)


@pytest.mark.parametrize("route", [route_param(r) for r in routes.ALL])
def test_no_label_is_cut_at_1440x900(
    route: routes.Route,
    browser: Browser,
    visit: Visit,
    dashboard: StreamlitServer,
    urls: dict[str, str],
) -> None:
    context = browser.new_context(
        viewport={"width": WIDTH, "height": HEIGHT}, timezone_id=LONG_ZONE, locale="en-GB"
    )
    context.add_init_script(WATCH_SCRIPT)
    context.route(lambda url: urlsplit(url).hostname not in LOOPBACK, lambda r: r.abort())
    page = context.new_page()
    visit.pages.append(page)
    # The browser's zone unchosen: the zone picker shows "Your browser's (<zone>)".
    url = urls[route.url_path].replace("tz=UTC", "").replace("?&", "?").rstrip("?&")
    screen.open_app(page, dashboard.url + url)
    expect(screen.main(page).get_by_role("heading", level=1)).to_be_visible()
    screen.wait_until_drawn(page)
    screen.expect_no_failure_shown(page)

    cut = page.evaluate(every_page.CUT_LABELS_JS)

    assert cut == [], f"/{route.url_path} at {WIDTH}x{HEIGHT} cuts: {cut}"

"""axe-core on every page of the navigation, in the light and the dark theme, and on the standup
in presenter mode: no serious or critical violation, and headings in order (`axe.blocking`).

Every route of `dashboard.state.routes.ALL` is opened once per theme, a new page included, on
the query that shows it at its most telling on the demo (`test_screenshots.examples`), and
checked once everything on it has drawn. What axe cannot judge, and the checks made by hand,
are in docs/accessibility.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

import pytest
from playwright.sync_api import Page

from api_client import ApiClient
from dashboard.state import routes
from sandbox import SandboxSettings
from tests.browser import axe, screen
from tests.browser.axe import THEMES
from tests.browser.harness import ARTIFACTS, StreamlitServer
from tests.browser.test_screenshots import examples

pytestmark = pytest.mark.browser

PRESENTER = "standup-present"  # the standup on a shared screen: ?present=1


def page_url(
    name: str, theme: str, dashboard: StreamlitServer, oracle: ApiClient, now: datetime
) -> str:
    queries = examples(oracle, now)
    if name == PRESENTER:
        path, query = routes.STANDUP.url_path, f"{queries[routes.STANDUP.url_path]}&present=1"
    else:
        path, query = name, queries.get(name, "")
    return axe.themed(f"{dashboard.url}/{path}" + (f"?{query}" if query else ""), theme)


PAGES = [route.url_path for route in routes.ALL] + [PRESENTER]

# Chart text (axes, their titles, legends) that is not drawn in the page's text colour: axe
# cannot judge text in SVG, so the chart's text must be the text whose contrast is known.
OFF_COLOUR_CHART_TEXT = """() => {
  const text = getComputedStyle(document.querySelector('[data-testid="stMain"]')).color;
  return [...document.querySelectorAll(
    '.stPlotlyChart :is(.xtick, .ytick, .g-xtitle, .g-ytitle) text, .stPlotlyChart text.legendtext'
  )].filter(t => getComputedStyle(t).fill !== text).map(t => t.textContent).slice(0, 5);
}"""


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("name", PAGES)
def test_no_serious_accessibility_violation(
    name: str,
    theme: str,
    axe_script: str,
    new_page: Callable[[], Page],
    dashboard: StreamlitServer,
    oracle: ApiClient,
    demo_settings: SandboxSettings,
) -> None:
    page = new_page()
    screen.open_app(page, page_url(name, theme, dashboard, oracle, demo_settings.now))
    screen.wait_until_drawn(page)
    screen.expect_no_failure_shown(page)

    result = axe.audit(page, axe_script)
    axe.save(result, ARTIFACTS / "axe" / f"{name}-{theme}.json")

    assert result.version == axe.pinned_version()
    if result.blocking:
        pytest.fail(f"axe-core {result.version} on {name} ({theme} theme):\n{result.report()}")
    assert page.evaluate(OFF_COLOUR_CHART_TEXT) == [], "chart text not in the theme's text colour"


def test_the_audit_fails_a_page_with_faint_text_and_skipped_headings(
    axe_script: str, new_page: Callable[[], Page]
) -> None:
    """The engine is loaded and its findings are read: a page with grey-on-white text and an h3
    straight after the h1 is failed, for exactly those two reasons."""
    page = new_page()
    page.set_content(
        "<html lang='en'><head><title>t</title></head><body><main>"
        "<h1>Title</h1><h3>Skipped a level</h3>"
        "<p style='color:#aaaaaa;background:#ffffff'>Faint caption</p>"
        "</main></body></html>"
    )

    result = axe.audit(page, axe_script)

    assert sorted(v.rule for v in result.blocking) == ["color-contrast", "heading-order"]
    assert re.search(r"Faint caption", result.report())

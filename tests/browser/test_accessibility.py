"""axe-core on what the per-page run does not open: the standup in presenter mode, in the light
and the dark theme, and the audit itself on a page made to fail it.

Every page of the navigation is audited in both themes by tests/browser/test_every_page.py (with
its columns in view and its screenshot, in the same page load), and the sign-in doors by
tests/browser/test_signin.py. What axe cannot judge, and the checks made by hand, are in
docs/accessibility.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page

from api_client import ApiClient
from dashboard.state import routes
from sandbox import SandboxSettings
from tests.browser import axe, every_page, screen
from tests.browser.axe import THEMES
from tests.browser.harness import ARTIFACTS, StreamlitServer

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("theme", THEMES)
def test_presenter_mode_has_no_serious_accessibility_violation(
    theme: str,
    axe_script: str,
    new_page: Callable[[], Page],
    dashboard: StreamlitServer,
    oracle: ApiClient,
    demo_settings: SandboxSettings,
) -> None:
    query = every_page.examples(oracle, demo_settings.now)[routes.STANDUP.url_path]
    url = f"{dashboard.url}/{routes.STANDUP.url_path}?{query}&present=1"
    page = new_page()
    screen.open_app(page, axe.themed(url, theme))
    screen.wait_until_drawn(page)
    screen.expect_no_failure_shown(page)

    result = axe.audit(page, axe_script)
    axe.save(result, ARTIFACTS / "axe" / f"standup-present-{theme}.json")

    assert result.version == axe.pinned_version()
    if result.blocking:
        pytest.fail(f"axe-core {result.version} on presenter mode ({theme}):\n{result.report()}")
    assert page.evaluate(every_page.OFF_COLOUR_CHART_TEXT) == [], "chart text off the theme"


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

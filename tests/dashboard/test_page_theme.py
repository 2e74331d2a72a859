"""Every page carries the script that keeps the viewer's theme across pages (the browser test
tests/browser/test_theme.py checks what it does)."""

from __future__ import annotations

import pytest

from dashboard.ui import theme
from tests.dashboard.apptest import EXECUTIONS, HEALTH, PLANS, RESULTS, STANDUP
from tests.dashboard.conftest import AppFactory


@pytest.mark.parametrize("page", [PLANS, EXECUTIONS, RESULTS, STANDUP, HEALTH])
def test_every_page_keeps_the_theme(app: AppFactory, page: str) -> None:
    at = app(page)
    at.run()

    scripts = [str(element.proto) for element in at.get("html")]
    kept = [s for s in scripts if theme.SHARED_KEY in s and "stActiveTheme-" in s]
    assert len(kept) == 1, scripts
    assert "unsafe_allow_javascript: true" in kept[0]

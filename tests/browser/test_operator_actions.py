"""The red team's reproduction, on real processes: a dashboard with an operator's connection
and `QA_DASHBOARD_STORE_URL` offers its viewers no *Clear stored history*, and two viewers
pressing *Refresh data* leave the shared PostgreSQL store as the sync left it.

The store is filled by `python -m dashboard store sync` (a process of its own) and read back
through the store itself; the dashboard is a `streamlit run` process driven by chromium.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from dashboard.data.connection import resolve
from dashboard.data.store import open_url
from sandbox import RunningSandbox
from tests.browser import harness, screen
from tests.browser.harness import ARTIFACTS, StreamlitServer
from tests.cli.conftest import cli_env
from tests.store.conftest import REPO, lead_of

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def held(settings: dict[str, str], store_url: str) -> tuple[int, int, int, dict[str, str]]:
    """What the shared store holds for the configured connection: results, executions,
    fetched pairs and its recorded facts (last sync)."""
    connection = resolve(session=None, secrets={}, env=settings).connection
    assert connection is not None
    with open_url(store_url, connection, read_only=True, wait=30) as store:
        info = store.info()
        return info.results, info.executions, info.fetched_pairs, store.meta()


def test_a_team_dashboard_offers_no_clear_and_refresh_keeps_the_shared_history(
    pg_url: str, live_sandbox: RunningSandbox, new_page: Callable[[], Page], tmp_path: Path
) -> None:
    who = lead_of(live_sandbox)
    settings = {
        "QA_DASHBOARD_BASE_URL": live_sandbox.base_url,
        "QA_DASHBOARD_TOKEN": who.token,
        "QA_DASHBOARD_COMPANY_ID": str(who.company_id),
        "QA_DASHBOARD_STORE_URL": pg_url,
    }
    synced = subprocess.run(
        [sys.executable, "-m", "dashboard", "store", "sync", "--days", "30", "--quiet"],
        env=cli_env(tmp_path / "sync-cache", settings),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert synced.returncode == 0, synced.stderr
    before = held(settings, pg_url)
    assert before[0] > 0, "the sync stored results"

    home = tmp_path / "home"
    home.mkdir()
    dashboard = StreamlitServer(
        name="operator-actions",
        env=harness.dashboard_env(home, dict(settings, QA_DASHBOARD_CACHE_DIR=str(home / "c"))),
        log_path=ARTIFACTS / "operator-actions.log",
    ).start()
    try:
        for _viewer in ("a TV in presenter mode", "a colleague"):
            page = new_page()
            screen.open_app(page, dashboard.url + "/")
            screen.expect_no_failure_shown(page)
            sidebar = page.get_by_test_id("stSidebar")
            refresh = sidebar.get_by_role("button", name="Refresh data")
            expect(refresh).to_be_visible()
            expect(sidebar.get_by_text("Clear stored history")).to_have_count(0)

            refresh.click()
            screen.wait_until_idle(page)
            screen.expect_no_failure_shown(page)
    finally:
        dashboard.stop()

    assert held(settings, pg_url) == before

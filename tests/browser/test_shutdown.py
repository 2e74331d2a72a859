"""SIGTERM stops the dashboard promptly, whatever it is loading.

A walk over many pages of executions runs on a thread pool; Python waits for such threads at
exit, and each of them waits for the service. Against a sandbox that answers every request
slowly, a page is left loading its executions (pages in flight, more queued) when the
dashboard is told to stop: it must be gone well before those requests could finish.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Page, expect

from sandbox import FaultSettings, RunningSandbox, SandboxSettings, serve_in_thread
from tests.browser import screen
from tests.browser.harness import StreamlitServer

pytestmark = pytest.mark.browser

SLOW_S = 6.0  # each answer of the service; the client's timeout (30 s) lets it through
PAGES = 50  # of 100 executions: at 8 in flight, 7 rounds of SLOW_S (42 s) after the first page
EXIT_BOUND_S = 15.0  # generous: the dashboard stops in a few seconds


@pytest.fixture(scope="module")
def slow_sandbox() -> Iterator[RunningSandbox]:
    settings = SandboxSettings(
        executions=PAGES * 100, faults=FaultSettings(slow_rate=1.0, slow_seconds=SLOW_S)
    )
    with serve_in_thread(settings) as running:
        yield running


def test_sigterm_stops_the_dashboard_while_a_page_is_loading(
    slow_sandbox: RunningSandbox,
    start_dashboard: Callable[[str, dict[str, str]], StreamlitServer],
    page: Page,
) -> None:
    lead = slow_sandbox.users[0]
    server = start_dashboard(
        "sigterm",
        {
            "QA_DASHBOARD_BASE_URL": slow_sandbox.base_url,
            "QA_DASHBOARD_TOKEN": lead.token,
            "QA_DASHBOARD_COMPANY_ID": str(lead.company_id),
        },
    )
    # Every execution of the sandbox's fixed 90 days, whatever today's date.
    page.goto(f"{server.url}/executions?range=custom&from=2026-08-01&to=2026-11-20")
    # The first page is in: the rest of the walk is in flight on the pool.
    expect(page.get_by_text("Loading executions: page 1 of")).to_be_visible(timeout=120_000)
    assert page.locator(screen.APP).get_attribute("data-test-script-state") == "running"

    sent = time.monotonic()
    server.terminate()
    status = server.wait_for_exit(timeout=EXIT_BOUND_S)
    took = time.monotonic() - sent

    assert status is not None, f"the dashboard still ran {EXIT_BOUND_S:.0f} s after SIGTERM"
    assert took < EXIT_BOUND_S

"""A team's setup, end to end: one PostgreSQL store, one sync worker, two dashboard processes.

The worker (`python -m dashboard store sync --every ...`) and two `streamlit run` processes on
two free ports all point at one PostgreSQL database (`QA_DASHBOARD_STORE_URL`) and at the
sandbox through a counting reverse proxy, which counts every request any of them sends. Both
dashboards show the history the worker stored (its freshness line, the same results), and the
results page of a finished execution opened on each sends no results request to the service.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from api_client import ApiClient
from sandbox import RunningSandbox, serve_in_thread
from tests.browser import harness, screen
from tests.browser.harness import ARTIFACTS, StreamlitServer
from tests.cli.conftest import cli_env
from tests.cli.worker_process import Worker
from tests.counting_proxy import CountingProxy, counting_proxy
from tests.store.conftest import lead_of
from tests.today import today_settings

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WORKER_NAME = "the team worker"


@pytest.fixture(scope="module")
def team_sandbox() -> Iterator[RunningSandbox]:
    with serve_in_thread(today_settings()) as running:
        yield running


@pytest.fixture
def proxy(team_sandbox: RunningSandbox) -> Iterator[CountingProxy]:
    with counting_proxy(team_sandbox.base_url) as running:
        yield running


def service(proxy: CountingProxy, running: RunningSandbox, store_url: str) -> dict[str, str]:
    who = lead_of(running)
    return {
        "QA_DASHBOARD_BASE_URL": proxy.base_url,
        "QA_DASHBOARD_TOKEN": who.token,
        "QA_DASHBOARD_COMPANY_ID": str(who.company_id),
        "QA_DASHBOARD_STORE_URL": store_url,
    }


def finished_execution(running: RunningSandbox) -> tuple[int, int, str]:
    """The newest finished execution of the sandbox: (execution id, plan id, start)."""
    with ApiClient(base_url=running.base_url, token=lead_of(running).token, company_id=1) as client:
        plans = {plan.id for plan in client.plans(active=False)}
        execution = next(
            e
            for e in sorted(client.all_executions(), key=lambda e: e.start_date, reverse=True)
            if e.plan_id in plans
            and e.end_date is not None
            and e.result_summary
            and not {"WAITING", "PROCESSING", "REPORTING", "TERMINATING"} & set(e.result_summary)
        )
    assert execution.plan_id is not None
    assert execution.start_date is not None
    started = execution.start_date.strftime("%Y-%m-%dT%H:%M:%SZ")
    return execution.id, execution.plan_id, started


def results_shown(page: Page) -> list[str]:
    grid = screen.expect_table_settled(page)
    return sorted(grid.column("Scenario"))


def test_two_dashboards_and_one_worker_share_one_postgresql_store(
    pg_url: str,
    team_sandbox: RunningSandbox,
    proxy: CountingProxy,
    new_page: Callable[[], Page],
    tmp_path: Path,
) -> None:
    settings = service(proxy, team_sandbox, pg_url)
    worker = Worker(
        ["--every", "1h", "--days", "90", "--name", WORKER_NAME],
        cli_env(tmp_path / "worker-cache", settings),
        tmp_path,
    )
    dashboards: list[StreamlitServer] = []
    try:
        (line,) = worker.wait_for(" sync default (")
        assert "failed:" not in line
        assert line.split("; ")[1].endswith(" 0 failed"), line
        for name in ("one", "two"):
            home = tmp_path / name
            home.mkdir()
            overrides = dict(settings, QA_DASHBOARD_CACHE_DIR=str(home / "cache"))
            dashboards.append(
                StreamlitServer(
                    name=f"team-{name}",
                    env=harness.dashboard_env(home, overrides),
                    log_path=ARTIFACTS / f"team-{name}.log",
                ).start()
            )
        assert dashboards[0].port != dashboards[1].port

        execution_id, plan_id, started = finished_execution(team_sandbox)
        link = f"/results?plan={plan_id}&execution={execution_id}&started={started}"
        proxy.reset()
        shown: list[list[str]] = []
        for dashboard in dashboards:
            page = new_page()
            screen.open_app(page, dashboard.url + link)
            screen.expect_no_failure_shown(page)
            expect(page.get_by_role("heading", name=f"Execution #{execution_id}")).to_be_visible()
            sidebar = page.get_by_test_id("stSidebar")
            expect(sidebar).to_contain_text(re.compile(rf"History synced .* by {WORKER_NAME}"))
            shown.append(results_shown(page))

        assert shown[0], "the results page shows the stored results"
        assert shown[0] == shown[1], "both dashboards show the same stored history"
        assert proxy.count("results") == 0, proxy.paths
        # The service was still asked what the store cannot know (which execution, and access).
        assert proxy.count("executions") > 0
        code, _ = worker.stop()
        assert code == 0
    finally:
        worker.kill()
        for dashboard in dashboards:
            dashboard.stop()

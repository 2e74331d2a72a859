"""Journey 4: select an execution; its results page lists every scenario's results, with the
environment each ran on and log links that open."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, Route, expect

from api_client import ApiClient, TestResult
from tests.browser import screen
from tests.browser.conftest import LOOPBACK, DemoPlan
from tests.browser.harness import Secrets, StreamlitServer

pytestmark = pytest.mark.browser

LOG_COLUMNS = ["Node log", "Executor log"]
# The demo's logs are served by the sandbox itself, at its own origin
# (docs/spec-decisions.md, decision 22).
LOG_URL = re.compile(
    r"^https?://[^/\s]+(/[^\s]*)?/storage/\d+/\d{4}/\d{2}/\d{2}/[0-9A-Za-z-]+/(node|testResult)\.log$"
)
STUB_LOG = "stub log served by the browser test"


def results_of(oracle: ApiClient, plan_id: int, execution_id: int) -> list[TestResult]:
    plan = next(p for p in oracle.plans(active=False) if p.id == plan_id)
    return [r for scenario in plan.scenarios for r in oracle.test_results(execution_id, scenario)]


def test_selecting_an_execution_lists_its_results_with_environments_and_logs(
    page: Page,
    dashboard: StreamlitServer,
    demo_plan: DemoPlan,
    oracle: ApiClient,
    secrets: Secrets,
) -> None:
    # Anything off this machine gets a stub, so a log link that left it would be seen; the
    # demo's log links lead to the sandbox, which serves the real log.
    outside_requests: list[str] = []

    def serve_stub(route: Route) -> None:
        outside_requests.append(route.request.url)
        route.fulfill(status=200, content_type="text/plain", body=STUB_LOG)

    page.context.route(lambda url: urlsplit(url).hostname not in LOOPBACK, serve_stub)

    # A finished execution with failures: the screen a QA lead opens results for.
    screen.open_app(
        page,
        f"{dashboard.url}/executions?plan={demo_plan.id}&range=30d&status={demo_plan.status}",
    )
    executions = screen.Grid.only(page)
    executions.expect_rows(demo_plan.executions_30d_status)
    execution_id = int(executions.column("Id")[0])

    executions.select_row(0)

    expect(page).to_have_url(re.compile(rf"/results\?(.*&)?execution={execution_id}(&|$)"))
    screen.wait_until_idle(page)
    expect(page.get_by_role("heading", name=f"Execution #{execution_id}", level=1)).to_be_visible()
    # The link keeps the executions filters and names the execution (it may say more).
    assert (
        screen.query(page).items()
        >= {
            "plan": str(demo_plan.id),
            "range": "30d",
            "status": demo_plan.status,
            "execution": str(execution_id),
        }.items()
    )

    expected = results_of(oracle, demo_plan.id, execution_id)
    assert expected, "the demo execution has no results to show"
    grid = screen.Grid.only(page)
    grid.expect_rows(len(expected))
    screen.caption_matching(page, rf"^{len(expected)} results from ")

    # Environments: each row names the OS, browser and version it ran on, as the service says.
    environments = {
        (
            r.environment.operating_system_clean_name,
            r.environment.browser_type,
            r.environment.environment_version,
        )
        for r in expected
        if r.environment is not None
    }
    shown = list(
        zip(grid.column("OS"), grid.column("Browser"), grid.column("Version"), strict=True)
    )
    assert shown, "no result rows in view"
    assert all(all(part for part in env) for env in shown), shown
    assert set(shown) <= environments

    # Log links: absolute http(s) URLs of the service's logs, and they open in a new tab.
    grid.scroll_to("Executor log")
    # The dashboard's embedded sandbox and the oracle's listen on different ports, and each
    # serves the demo's logs at its own origin: the paths agree.
    expected_logs = {
        urlsplit(path).path
        for r in expected
        for path in (r.node_log_path, r.executor_log_path)
        if path is not None
    }
    for column in LOG_COLUMNS:
        links = grid.column(column)
        assert links, column
        assert all(LOG_URL.match(link) for link in links), links
        assert {urlsplit(link).path for link in links} <= expected_logs
    node_log = grid.column("Node log")[0]
    where = grid.link_positions(0, LOG_COLUMNS)
    with page.context.expect_page() as opened:
        page.mouse.click(*where["Node log"])
    log_tab = opened.value
    log_tab.wait_for_load_state()
    assert log_tab.url == node_log
    session_id = node_log.rsplit("/", 2)[1]
    expect(log_tab.locator("body")).to_contain_text(f"[node] New session {session_id}")
    assert [url for url in outside_requests if url.endswith(".log")] == []
    log_tab.close()

    screen.expect_charts(page, 2)  # levels, environments
    screen.expect_no_failure_shown(page)
    secrets.assert_absent(page.content(), "the results page")

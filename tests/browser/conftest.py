"""Fixtures of the browser tests: chromium, the dashboard servers, the sandbox as an oracle.

One dashboard server on the embedded demo and one browser serve the whole session; every test
gets fresh browser contexts (fresh cookies, storage and websocket sessions). The error journeys
start their own dashboard servers, configured through QA_DASHBOARD_* to point at sandboxes in
this process. Each test's pages are screenshotted when it ends, pass or fail, under
artifacts/browser/.
"""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from api_client import ApiClient, ExecutionQuery
from sandbox import RunningSandbox, SandboxSettings, serve_in_thread
from sandbox.auth import USER_INFO_ACCESS_TOKEN_PREFIX, bearer_token, user_info_access_token
from sandbox.data.catalog import PEOPLE
from tests.browser import axe, harness, screen
from tests.browser.harness import ARTIFACTS, Secrets, StreamlitServer
from tests.today import today_settings

VIEWPORT = {"width": 1600, "height": 1000}
SCREENSHOT_MAX_HEIGHT = 6000
LOOPBACK = ("127.0.0.1", "localhost")

# Assertions wait for the app on its own state; this is how long they may wait. Generous, as
# CI shares two cores among the dashboard, the sandbox, chromium and pytest.
expect.set_options(timeout=20_000)

# Records, from the first byte of every page, whether the app ever showed an exception box or a
# "Page not found" dialog, even for a moment (Streamlit shows that dialog, then redirects).
WATCH_SCRIPT = """
(() => {
  const seen = {exception: false, pageNotFound: false};
  window.__seen = seen;
  const inspect = (node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      if (node.data.includes("Page not found")) seen.pageNotFound = true;
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    const exception = '[data-testid="stException"]';
    if (node.matches(exception) || node.querySelector(exception)) seen.exception = true;
    if ((node.textContent || "").includes("Page not found")) seen.pageNotFound = true;
  };
  new MutationObserver((records) => {
    for (const record of records) {
      record.addedNodes.forEach(inspect);
      if (record.type === "characterData") inspect(record.target);
    }
  }).observe(document, {subtree: true, childList: true, characterData: true});
})();
"""


# -- chromium and the browser -------------------------------------------------------------------


@pytest.fixture(scope="session")
def axe_script() -> str:
    """The text of axe-core's axe.min.js, for `axe.audit`; required in CI."""
    if not axe.SCRIPT.exists():
        if harness.in_ci():
            pytest.fail(f"axe-core is required in CI: {axe.INSTALL_HINT}")
        pytest.skip(f"the accessibility tests need axe-core; {axe.INSTALL_HINT}")
    return axe.SCRIPT.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def chromium_executable() -> str:
    found = harness.find_chromium()
    if found is None:
        if harness.in_ci():
            pytest.fail("chromium is required in CI: apt-get install chromium")
        pytest.skip(f"the browser tests need Debian's chromium; {harness.INSTALL_HINT}")
    return found


@pytest.fixture(scope="session")
def browser(chromium_executable: str) -> Iterator[Browser]:
    with harness.launched_chromium(chromium_executable) as launched:
        yield launched


@dataclass
class Visit:
    """What a test's browser saw, for the screenshot and the credential checks."""

    pages: list[Page] = field(default_factory=list)
    texts: list[tuple[str, str]] = field(default_factory=list)  # (where, text)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Each phase's report kept on the test (`failed_here`)."""
    report = yield
    item.stash.setdefault(REPORTS, {})[report.when] = report
    return report


REPORTS = pytest.StashKey[dict[str, pytest.TestReport]]()


def failed_here(node: pytest.Item) -> bool:
    """Whether the test's set-up or its own run failed."""
    return any(report.failed for report in node.stash.get(REPORTS, {}).values())


@pytest.fixture
def visit(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Visit]:
    record = Visit()
    yield record
    # The final screens of a failed test, its evidence; a passing one's cost a settle and a
    # full-page capture each (about a second on a loaded machine) and were never looked at.
    # The README's screenshots are the every-page test's own (`make screenshots`).
    if failed_here(request.node):
        _screenshot(record.pages, request.node.name)
    for page in record.pages:
        page.context.close()


@pytest.fixture
def new_page(browser: Browser, visit: Visit) -> Callable[[], Page]:
    """A page in a brand-new browser context: no cookies, no storage, a new app session; the
    browser's time zone is UTC unless `new_page(timezone_id=...)` names another."""

    def make(timezone_id: str = "UTC") -> Page:
        context: BrowserContext = browser.new_context(
            viewport=VIEWPORT, accept_downloads=True, timezone_id=timezone_id, locale="en-GB"
        )
        context.add_init_script(WATCH_SCRIPT)
        # Nothing leaves this machine (Streamlit's favicon for a material icon comes from
        # fonts.gstatic.com): the tests do not depend on the network. A test may route more.
        context.route(lambda url: urlsplit(url).hostname not in LOOPBACK, lambda r: r.abort())
        page = context.new_page()
        visit.pages.append(page)
        return page

    return make


@pytest.fixture
def page(new_page: Callable[[], Page]) -> Page:
    return new_page()


def _screenshot(pages: list[Page], test_name: str) -> None:
    """The final screen of each page the test opened; the last one is the journey's end."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", test_name).strip("_")
    for index, page in enumerate(pages, start=1):
        name = safe if index == len(pages) else f"{safe}.{index}"
        # A page that never settles is worth its screenshot all the more; one whose dashboard
        # the test has stopped will not settle, and is taken as it is.
        if _served(page):
            with contextlib.suppress(AssertionError):
                screen.wait_until_idle(page, timeout=15_000)
        try:
            # Streamlit scrolls inside its main container, so a "full page" screenshot is only
            # the viewport: grow the viewport to the content first.
            height = page.evaluate(
                "() => Math.max(...[...document.querySelectorAll('[data-testid=stMain], "
                "[data-testid=stAppViewContainer], section, body')].map(e => e.scrollHeight))"
            )
            tall = {"width": VIEWPORT["width"], "height": min(int(height), SCREENSHOT_MAX_HEIGHT)}
            if tall["height"] > VIEWPORT["height"]:
                page.set_viewport_size(tall)
            page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
        except Exception as error:  # a failed screenshot must not hide the test's own result
            (ARTIFACTS / f"{name}.screenshot-error.txt").write_text(repr(error))


def _served(page: Page) -> bool:
    """Whether a dashboard server still running serves `page`."""
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(page.url))
    return any(server.url == origin and server.alive for server in harness.RUNNING)


@pytest.fixture(autouse=True)
def servers_log_no_exception(secrets: Secrets) -> Iterator[None]:
    """No dashboard server logs an exception or a credential while a test runs.

    The page shows a short notice for an unexpected exception (showErrorDetails = "none");
    the traceback goes to the server's log, so that is where a hidden crash is found.
    """
    offsets = {id(server): server.log_size() for server in harness.RUNNING}
    yield
    for server in list(harness.RUNNING):
        check_log(server, server.log_since(offsets.get(id(server), 0)), secrets)


def check_log(server: StreamlitServer, logged: str, secrets: Secrets) -> None:
    assert "Traceback (most recent call last)" not in logged, (
        f"dashboard {server.name!r} logged an exception (see {server.log_path}):\n{logged[-3000:]}"
    )
    secrets.assert_absent(logged, f"the log of dashboard {server.name!r}")


# -- the sandbox, as the oracle of what the dashboard should show -------------------------------


@pytest.fixture(scope="session")
def demo_settings() -> SandboxSettings:
    """The settings of the dashboard's embedded demo (dashboard/demo.py uses the defaults)."""
    return SandboxSettings()


@pytest.fixture(scope="session")
def oracle_sandbox(demo_settings: SandboxSettings) -> Iterator[RunningSandbox]:
    """A sandbox with the demo's data, in this process: same settings, same answers."""
    with serve_in_thread(demo_settings) as running:
        yield running


@pytest.fixture(scope="session")
def oracle(oracle_sandbox: RunningSandbox) -> Iterator[ApiClient]:
    lead = oracle_sandbox.users[0]
    with ApiClient(
        base_url=oracle_sandbox.base_url, token=lead.token, company_id=lead.company_id
    ) as client:
        yield client


# -- credentials that must never show -----------------------------------------------------------


@pytest.fixture(scope="session")
def secrets(oracle_sandbox: RunningSandbox, demo_settings: SandboxSettings) -> Secrets:
    """Every bearer token of the demo users and every `access_token` the sandbox serves."""
    guard = Secrets(prefixes=(USER_INFO_ACCESS_TOKEN_PREFIX,))
    for seed in {demo_settings.seed, ERROR_SANDBOX_SEED}:
        guard.add(bearer_token(seed, person.username) for person in PEOPLE)
        guard.add(user_info_access_token(seed, person.username) for person in PEOPLE)
    # What the service really serves in results' user_info, so the list above is not a guess.
    served = _served_access_tokens(oracle_sandbox)
    assert served, "the sandbox served no user_info access_token: the leak checks would be empty"
    unknown = served - guard.values
    assert not unknown, "the sandbox serves access tokens the leak checks do not know"
    guard.add([WRONG_TOKEN])
    return guard


def _served_access_tokens(running: RunningSandbox) -> set[str]:
    lead = running.users[0]
    headers = {"Authorization": f"Bearer {lead.token}", "current-company-id": "1"}
    tokens: set[str] = set()
    with httpx.Client(base_url=running.base_url + "/api", headers=headers, timeout=30) as http:
        plans = http.get("/plans/lazy", params={"active": "false"}).json()
        executions = http.get("/executions/filter", params={"page": 1, "size": 20}).json()
        scenarios = {plan["id"]: plan["scenarios"] for plan in plans}
        for execution in executions["item_list"][:10]:
            for scenario in scenarios.get(execution["plan_id"], [])[:3]:
                response = http.get(f"/results/execution/{execution['id']}/scenario/{scenario}")
                if response.status_code == 200:
                    tokens.update(r["user_info"]["access_token"] for r in response.json())
    return tokens


# -- dashboard servers --------------------------------------------------------------------------

ERROR_SANDBOX_SEED = 11
WRONG_TOKEN = "sbx-" + "0" * 40  # shaped like a sandbox token, accepted by nobody


@pytest.fixture(scope="session")
def server_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("streamlit-home")


@pytest.fixture(scope="session")
def dashboard(
    chromium_executable: str, server_home: Path, secrets: Secrets
) -> Iterator[StreamlitServer]:
    """The dashboard on its embedded demo sandbox: nothing configured, as after `make run`."""
    server = StreamlitServer(
        "demo", harness.dashboard_env(server_home), harness.server_log("demo")
    ).start()
    try:
        yield server
    finally:
        server.stop()
    check_log(server, server.log(), secrets)


@pytest.fixture
def start_dashboard(
    chromium_executable: str, server_home: Path, secrets: Secrets
) -> Iterator[Callable[[str, dict[str, str]], StreamlitServer]]:
    """Start a dashboard configured by QA_DASHBOARD_* `config`; stopped when the test ends."""
    started: list[StreamlitServer] = []

    def start(name: str, config: dict[str, str]) -> StreamlitServer:
        server = StreamlitServer(
            name, harness.dashboard_env(server_home, config), harness.server_log(name)
        )
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.stop()
    for server in started:
        check_log(server, server.log(), secrets)


@pytest.fixture(scope="session")
def error_sandbox() -> Iterator[RunningSandbox]:
    """A healthy sandbox for the 401/403 journeys (its own seed: its tokens are its own)."""
    with serve_in_thread(today_settings(seed=ERROR_SANDBOX_SEED, executions=60)) as running:
        yield running


@pytest.fixture(scope="session")
def failing_sandbox() -> Iterator[RunningSandbox]:
    """A sandbox whose every API request fails with HTTP 500."""
    from sandbox import FaultSettings

    settings = today_settings(
        seed=ERROR_SANDBOX_SEED,
        executions=60,
        faults=FaultSettings(error_rate=1.0, error_statuses=(500,)),
    )
    with serve_in_thread(settings) as running:
        yield running


# -- the demo data the journeys walk through ---------------------------------------------------


@dataclass(frozen=True)
class DemoPlan:
    """A plan of the demo with executions in the default 7-day window, and what to expect."""

    id: int
    name: str
    project_id: int | None
    executions_7d: int
    executions_30d: int
    status: str  # a status filter that keeps some, not all, of the 30-day executions
    executions_30d_status: int


@pytest.fixture(scope="session")
def demo_plan(oracle: ApiClient, demo_settings: SandboxSettings) -> DemoPlan:
    now = demo_settings.now
    assert now.timestamp() % 300 == 0, "the demo clock is not on the dashboard's 5-minute grid"
    week = oracle.all_executions(ExecutionQuery(date_from=now - timedelta(days=7)))
    counts = Counter(execution.plan_id for execution in week)
    plan_id, executions_7d = counts.most_common(1)[0]
    plan = next(p for p in oracle.plans(active=False) if p.id == plan_id)
    month = oracle.all_executions(
        ExecutionQuery(plan_id=plan_id, date_from=now - timedelta(days=30))
    )
    assert len(month) > executions_7d, "the 30-day window should hold more than the 7-day one"
    by_status = {
        status: len(
            oracle.all_executions(
                ExecutionQuery(plan_id=plan_id, date_from=now - timedelta(days=30), status=status)
            )
        )
        for status in ("FAILURE", "ERROR", "WARNING", "SUCCESS")
    }
    status = next(s for s, n in by_status.items() if 0 < n < len(month))
    return DemoPlan(
        id=plan.id,
        name=plan.plan_name,
        project_id=plan.project_id,
        executions_7d=executions_7d,
        executions_30d=len(month),
        status=status,
        executions_30d_status=by_status[status],
    )


@pytest.fixture
def downloads(request: pytest.FixtureRequest) -> Path:
    """Where the test keeps the files it downloads (an artefact beside its screenshot)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name).strip("_")
    return ARTIFACTS / "downloads" / safe

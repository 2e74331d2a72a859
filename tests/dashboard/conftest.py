"""Fixtures of the dashboard tests: a sandbox on a loopback port, its users, the app under test.

The dashboard reads its connection from QA_DASHBOARD_* (dashboard/connection.py), so the app
under test is pointed at a sandbox exactly as an operator would point it at a real service.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from api_client import ApiClient
from sandbox import DemoUser, FaultSettings, RunningSandbox, serve_in_thread
from tests.dashboard.apptest import APP as APP
from tests.dashboard.apptest import app_test
from tests.today import today_settings

ENV_NAMES = (
    "QA_DASHBOARD_BASE_URL",
    "QA_DASHBOARD_TOKEN",
    "QA_DASHBOARD_COMPANY_ID",
    "QA_DASHBOARD_EMAIL",
)


@pytest.fixture(scope="session")
def sandbox(live_sandbox: RunningSandbox) -> RunningSandbox:
    """The demo data, ending today, on a loopback port: tests/conftest.py's, shared."""
    return live_sandbox


@pytest.fixture(scope="session")
def faulty_sandbox() -> Iterator[RunningSandbox]:
    """The demo data, with one malformed record in every list the service sends."""
    settings = today_settings(faults=FaultSettings(seed=3, malformed_record_rate=1.0))
    with serve_in_thread(settings) as running:
        yield running


@pytest.fixture(scope="session")
def failing_sandbox() -> Iterator[RunningSandbox]:
    """A sandbox whose every API request answers 503, however often it is retried."""
    settings = today_settings(faults=FaultSettings(error_rate=1.0, error_statuses=(503,)))
    with serve_in_thread(settings) as running:
        yield running


def user(running: RunningSandbox, *, lacking: str | None = None, company_id: int = 1) -> DemoUser:
    """The company's full-authority user, or the one lacking one authority."""
    return next(
        u
        for u in running.users
        if u.company_id == company_id
        and (
            len(u.authorities) == 3
            if lacking is None
            else lacking not in u.authorities and len(u.authorities) == 2
        )
    )


@pytest.fixture(scope="session")
def oracle(sandbox: RunningSandbox) -> Iterator[ApiClient]:
    """The full-authority user's client: what the dashboard should show, asked directly."""
    lead = user(sandbox)
    with ApiClient(
        base_url=sandbox.base_url, token=lead.token, company_id=lead.company_id
    ) as client:
        yield client


Connect = Callable[..., DemoUser]


@pytest.fixture
def connect(monkeypatch: pytest.MonkeyPatch, sandbox: RunningSandbox) -> Connect:
    """Point the dashboard at a sandbox as `who` (default: the full-authority user)."""

    def point(
        running: RunningSandbox | None = None,
        *,
        who: DemoUser | None = None,
        email: str | None = "",
    ) -> DemoUser:
        running = running or sandbox
        who = who or user(running)
        monkeypatch.setenv("QA_DASHBOARD_BASE_URL", running.base_url)
        monkeypatch.setenv("QA_DASHBOARD_TOKEN", who.token)
        monkeypatch.setenv("QA_DASHBOARD_COMPANY_ID", str(who.company_id))
        monkeypatch.setenv("QA_DASHBOARD_EMAIL", who.email if email == "" else (email or ""))
        return who

    return point


Requests = Callable[[], list[str]]

# The one request of a session's first page that is not the page's own: the history store asks
# once per connection whether its credential is accepted (`store.access.ask_service`).
ACCESS_CHECK = "/api/executions/filter?page=1&size=1"


class _AccessLog(logging.Handler):
    """Collects the request targets (path and query) of uvicorn's access log records."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.targets: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if isinstance(record.args, tuple) and len(record.args) > 2:
            self.targets.append(str(record.args[2]))


@pytest.fixture
def service_requests(sandbox: RunningSandbox) -> Iterator[Requests]:
    """The API requests the sandboxes answered (path and query, in order) since the last call.

    Read from the sandbox's own access log: what went over the wire, not what a test assumes.
    A sandbox starting up empties that log's handlers, so the default one is started first;
    uvicorn decides per connection whether to log, so the dashboard's clients (and their
    kept-alive connections) are replaced once the log is listened to.
    """
    from dashboard.data import cache

    logger = logging.getLogger("uvicorn.access")
    handler, level = _AccessLog(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    cache.client.clear()
    seen = 0

    def since_last_call() -> list[str]:
        nonlocal seen
        new, seen = handler.targets[seen:], len(handler.targets)
        return [target for target in new if "/api/" in target]

    try:
        yield since_last_call
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


AppFactory = Callable[..., AppTest]


@pytest.fixture(scope="module")
def opened() -> dict[Any, AppTest]:
    """Pages a test module has already run, by a key of its own: a view that several tests
    only read is run once per module (#36). A test that changes a page makes its own."""
    return {}


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> AppFactory:
    """A fresh app under test, with no connection configured unless `connect` is used, and its
    history stores in a folder of the test session (never the developer's own cache)."""
    from dashboard.data.store import readers

    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("QA_DASHBOARD_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "stores"))
    # A store's first reader is remembered as scrypt at OWASP's cost, about 0.17 s of CPU once
    # per store and viewer (tests/store/test_readers.py holds the store to those parameters).
    # Each hand-built service is a new store, so the page tests derive at a token cost: who
    # may read stored results is decided, and remembered, exactly as before (#36).
    monkeypatch.setattr(readers, "N", 2**4)

    def make(page: str | None = None, **query: str) -> AppTest:
        from dashboard.data import cache

        cache.clear_all()  # every test starts from the service, not an earlier test's data
        return app_test(page, **query)

    return make


@pytest.fixture
def hand_built(app: AppFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The hand-built history (tests/dashboard/history_service.py) on loopback, the dashboard
    pointed at it as an operator would (after `app`, which clears the connection)."""
    from tests.dashboard.history_service import serve_history

    with serve_history() as service:
        monkeypatch.setenv("QA_DASHBOARD_BASE_URL", service.base_url)
        monkeypatch.setenv("QA_DASHBOARD_TOKEN", "hand-built-history-token")
        monkeypatch.setenv("QA_DASHBOARD_COMPANY_ID", "7")
        yield service


@pytest.fixture
def red_built(app: AppFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The hand-built history of red stretches and what changed when a plan turned red
    (tests/dashboard/red_history.py) on loopback, the dashboard pointed at it."""
    from tests.dashboard.red_history import serve_red_history

    with serve_red_history() as service:
        monkeypatch.setenv("QA_DASHBOARD_BASE_URL", service.base_url)
        monkeypatch.setenv("QA_DASHBOARD_TOKEN", "red-history-token")
        monkeypatch.setenv("QA_DASHBOARD_COMPANY_ID", "7")
        yield service

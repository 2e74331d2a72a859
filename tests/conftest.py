"""Fixtures shared by every test folder: the demo sandbox over real HTTP, and its users."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import settings

from sandbox import Authority, DemoUser, RunningSandbox, serve_in_thread
from tests.today import today_settings

# A real PostgreSQL server for the store tests: fixtures `pg_server` and `pg_url`.
pytest_plugins = ["tests.pg_server"]

UserPicker = Callable[..., DemoUser]

# No time limit per example (Hypothesis's default is 200 ms): on a loaded two-core machine a fast
# property's example can take longer, and the run would fail on the load, not on a bug. Later
# profiles (tests/client/conftest.py's "ci") inherit it.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")


BROWSER_TESTS = "tests/browser/"
"""Where the browser tests live (every module there is marked `browser`)."""
PAGE_APPTESTS = "tests/dashboard/test_page_"
"""The pages' AppTest modules: several of their tests read one page run kept for the module."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules with tests marked slow (up to a minute and a half each) are handed out first:
    a slow test started last would keep the run going while the other worker had nothing left to
    do. The sort is stable: each module's tests keep their order."""
    slow = {
        item.module
        for item in items
        if item.get_closest_marker("slow") and not item.get_closest_marker("browser")
    }
    items.sort(key=lambda item: item.module not in slow)  # stable: the order otherwise kept


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadgroup` (`make test`): each browser test module and each page AppTest module
    goes to one worker, whole; every other test is handed out on its own.

    A browser module's module-scoped dashboards, sandboxes and identity provider are then made
    once, and its tests never run at the same time as each other; a page AppTest module's page
    runs kept for several of its tests (`opened`) are run once, not once per worker. Different
    browser modules run on both workers at once: each worker has its own chromium, its own demo
    dashboard (its history store under its own HOME) and its own server logs
    (`harness.server_log`). The largest groups are handed out first, so the long browser
    modules start early and the two workers end together.

    This is a scheduler of our own because pytest-xdist's `xdist_group` marks do nothing under
    pytest 9: xdist 3.8 renames the grouped tests through `item._nodeid`, which pytest 9 no longer
    reads, so every test was handed out on its own (the browser tests were never together on one
    worker, as this file used to say)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class BrowserModules(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.startswith((BROWSER_TESTS, PAGE_APPTESTS)):
                return nodeid.split("::", 1)[0]
            return nodeid

    return BrowserModules(config, log)


@pytest.fixture(scope="session")
def live_sandbox() -> Iterator[RunningSandbox]:
    """The demo data, served on a free loopback port for the whole session, ending today (see
    tests/today.py: dashboards pointed at it count their windows back from the wall clock)."""
    with serve_in_thread(today_settings()) as running:
        yield running


@pytest.fixture(scope="session")
def demo_user(live_sandbox: RunningSandbox) -> UserPicker:
    """Picks a demo user: `demo_user()` is company 1's full-authority user,
    `demo_user(company_id=2, lacking=Authority.PLAN_VIEW)` the one of company 2 without it."""

    def pick(company_id: int = 1, lacking: Authority | None = None) -> DemoUser:
        wanted = {a for a in Authority if a is not lacking}
        return next(
            user
            for user in live_sandbox.users
            if user.company_id == company_id and set(user.authorities) == wanted
        )

    return pick


@pytest.fixture(scope="session")
def orphan_user(live_sandbox: RunningSandbox) -> DemoUser:
    """The demo user whose company does not exist (its results requests fail with a 500)."""
    return live_sandbox.users[-1]

"""Whether the pages use the stored history, said on the page, and never kept past its time.

- A store that cannot be opened (its DuckDB file held by another process, as a sync holds it)
  is said in one line with the reason, and the next run tries again: once the holder lets go,
  the store is used, without a restart (an open that failed used to be cached for good).
- A token revoked between two runs sees no results from the next access slot on: the cached
  data is keyed by the slot of the check that let it be shown.
- Withheld history (a token the service does not let see the executions, a service that cannot
  be asked, a form connection) is said in one calm line, never with the token.
- Refresh asks the service again; "Clear stored history" drops the last-sync line at once;
  `cache.clear_all` forgets the kept stores.

Real parts: the sandbox on loopback, a real DuckDB file, another process holding it.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import SecretStr

from api_client import ApiClient, Execution
from dashboard.analytics.verdicts import execution_finished
from dashboard.data import cache, cache_connection, cache_history, store
from dashboard.data.connection import Connection, resolve
from dashboard.data.store.access import CHECK_INTERVAL, AccessChecks
from dashboard.data.store.location import private_folder, store_path
from dashboard.data.store.records import execution_frames, plan_frames
from dashboard.data.store.status import RETRY_AFTER, OpenFailures
from dashboard.ui import notices
from sandbox import DemoUser, RunningSandbox
from sandbox.auth import Authenticator
from tests.dashboard import records
from tests.dashboard.apptest import (
    PLANS,
    RESULTS,
    assert_no_failure,
    captions,
    everything_shown,
    joined,
)
from tests.dashboard.conftest import AppFactory, Connect, user
from tests.dashboard.test_page_viewers import connect_with_form
from tests.store.holder import holding


class Clock:
    """A clock a test moves on by hand."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def configured() -> Connection:
    """The connection the app resolves from QA_DASHBOARD_* (as `connect` set them)."""
    connection = resolve(session=None, secrets={}, env=os.environ).connection
    assert connection is not None
    return connection


def history_lines(at: object) -> list[str]:
    return [line for line in captions(at).splitlines() if line.startswith("Stored history")]


@pytest.fixture(scope="module")
def finished(oracle: ApiClient) -> Execution:
    plans = {p.id for p in oracle.plans(active=False)}
    return next(
        e
        for e in oracle.all_executions()
        if e.plan_id in plans and execution_finished(e.end_date, e.result_summary)
    )


@pytest.fixture
def access_clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The store's access checks on a clock the test moves (the slot is the wall clock's)."""
    clock = Clock(datetime.now(UTC).timestamp())
    monkeypatch.setattr(
        cache_connection,
        "STORE_ACCESS",
        AccessChecks(cache_connection._ask_service, clock=clock),
    )
    return clock


@pytest.fixture
def fresh_generations(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refresh generations of this test's own: an earlier test's Refresh (less than
    `REFRESH_INTERVAL` ago, same connection) would hold this test's Refresh back."""
    fresh = cache_connection.Generations(interval=cache.REFRESH_INTERVAL, ttl=cache.DATA_TTL)
    monkeypatch.setattr(cache_connection, "GENERATIONS", fresh)


@pytest.fixture
def revoke(sandbox: RunningSandbox) -> Iterator[object]:
    """`revoke(who)`: the sandbox stops accepting `who`'s token (put back after the test)."""
    original = sandbox.app.state.authenticator

    def revoked(who: DemoUser) -> None:
        sandbox.app.state.authenticator = Authenticator(
            u for u in sandbox.users if u.token != who.token
        )

    yield revoked
    sandbox.app.state.authenticator = original


# -- a store that cannot be opened ---------------------------------------------------------------


@pytest.fixture
def held_store(
    app: AppFactory, connect: Connect, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[subprocess.Popen[str]]:
    """The configured connection's DuckDB store, held open by another process (its write lock),
    in a folder of this test; the process lets go when a line reaches its standard input."""
    monkeypatch.setenv("QA_DASHBOARD_CACHE_DIR", str(tmp_path / "stores"))
    connect()
    path = store_path(configured(), secrets={}, env=os.environ)
    private_folder(path.parent)
    with holding(path) as process:
        yield process


def test_a_store_held_by_another_process_is_said_then_used_once_it_is_free(
    held_store: subprocess.Popen[str],
    app: AppFactory,
    finished: Execution,
    monkeypatch: pytest.MonkeyPatch,
    fresh_generations: None,
) -> None:
    clock = Clock(1000.0)
    monkeypatch.setattr(cache_history, "OPEN_FAILURES", OpenFailures(clock=clock))
    at = app(RESULTS, execution=str(finished.id), plan=str(finished.plan_id))
    at.run()

    assert_no_failure(at)
    assert at.dataframe, "the results are fetched from the service meanwhile"
    (line,) = history_lines(at)
    assert line.startswith("Stored history is off for now: The history store ")
    assert "is in use by another process" in line
    assert "tried again on the next page load" in line
    assert cache.history_store(configured()) is None  # within the retry delay: not tried

    assert held_store.stdin is not None
    held_store.stdin.write("go\n")
    held_store.stdin.flush()
    assert held_store.wait(timeout=30) == 0
    clock.now += RETRY_AFTER
    at.run()

    assert_no_failure(at)
    assert history_lines(at) == []
    kept = cache.history_store(configured())
    assert kept is not None, "the failed open was kept: the store stays off until a restart"
    next(b for b in at.sidebar.button if b.label == "Refresh data").click().run()
    assert_no_failure(at)
    assert not kept.results([finished.id]).empty, "the results are kept in the store now"


def test_an_unreachable_postgresql_server_is_said_without_its_password(
    app: AppFactory, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    connect()
    monkeypatch.setenv("QA_DASHBOARD_STORE_URL", "postgresql://qa:s3cret@127.0.0.1:1/qa")
    at = app(PLANS)
    at.run()

    assert_no_failure(at)
    (line,) = history_lines(at)
    assert "postgresql://qa@127.0.0.1:1/qa" in line  # the server, named without the password
    assert "s3cret" not in everything_shown(at)


# -- a revoked token -----------------------------------------------------------------------------


def test_a_token_revoked_between_two_runs_sees_no_cached_results_from_the_next_slot(
    app: AppFactory,
    connect: Connect,
    finished: Execution,
    access_clock: Clock,
    revoke: object,
) -> None:
    lead = connect()
    at = app(RESULTS, execution=str(finished.id), plan=str(finished.plan_id))
    at.run()
    assert_no_failure(at)
    assert at.dataframe
    assert history_lines(at) == []

    revoke(lead)  # type: ignore[operator]
    access_clock.now += CHECK_INTERVAL  # the next slot: the access check is asked again
    at.run()

    assert not at.dataframe, "results cached before the revocation are still shown"
    assert "did not accept the token" in joined(at.error)
    assert history_lines(at) == [
        "Stored history is not used: the service refused this connection's token, so "
        "everything on this page is asked of the service; it is asked again within 15 "
        "minutes, or at Refresh."
    ]
    assert lead.token not in everything_shown(at)


def test_refresh_asks_the_service_again_whether_the_token_may_see_the_history(
    app: AppFactory,
    connect: Connect,
    access_clock: Clock,
    revoke: object,
    fresh_generations: None,
) -> None:
    lead = connect()
    at = app(PLANS)
    at.run()
    assert cache.history_status(configured()).state == "on"

    revoke(lead)  # type: ignore[operator]
    next(b for b in at.sidebar.button if b.label == "Refresh data").click().run()

    assert cache.history_status(configured()).state == "withheld"
    assert cache.history_store(configured()) is None
    assert "refused this connection's token" in "\n".join(history_lines(at))


# -- withheld history, said in one calm line ------------------------------------------------------


def test_a_token_that_may_not_see_executions_is_told_why_the_history_is_not_used(
    app: AppFactory, connect: Connect, sandbox: RunningSandbox
) -> None:
    reader = connect(who=user(sandbox, lacking="TEST_EXECUTION_VIEW"))
    at = app(PLANS)
    at.run()

    assert not at.exception
    assert at.dataframe, "the plans are shown: they need no execution"
    assert history_lines(at) == [
        "Stored history is not used: the service does not let this token see this company's "
        "executions, so everything on this page is asked of the service; it is asked again "
        "within 15 minutes, or at Refresh."
    ]
    assert reader.token not in everything_shown(at)


def test_a_service_that_cannot_be_asked_is_said_and_asked_again_soon(
    app: AppFactory, connect: Connect, failing_sandbox: RunningSandbox
) -> None:
    connect(failing_sandbox)
    at = app(PLANS)
    at.run()

    (line,) = history_lines(at)
    assert line.startswith("Stored history is not used for now: the service could not be asked")
    assert line.endswith("it is asked again in 30 s.")


def test_a_form_connection_is_told_no_reason(
    app: AppFactory, sandbox: RunningSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(notices, "FORM_FAILURE_SECONDS", 0.0)
    at = app()
    at.run()
    connect_with_form(at, sandbox.base_url, "sbx-not-a-token-of-this-service", "1")

    assert history_lines(at) == [
        "Stored history is not used: the service did not confirm this connection's "
        "credential, so everything on this page is asked of the service."
    ]
    assert "refused" not in captions(at)


# -- Clear stored history, clear_all --------------------------------------------------------------


def test_clearing_the_stored_history_drops_its_last_sync_line_at_once(
    app: AppFactory, sandbox: RunningSandbox
) -> None:
    # Through the sidebar form of a dashboard without configuration: the one kind of dashboard
    # that offers *Clear stored history* (`store.operators`).
    lead = user(sandbox)
    session = Connection(
        base_url=sandbox.base_url,
        token=SecretStr(lead.token),
        company_id=lead.company_id,
        source="session",
    )
    with store.open_for(session, secrets={}, env=os.environ) as kept:
        kept.record(last_sync=datetime.now(UTC), last_sync_by="the worker on qa-1")
    at = app(PLANS)
    at.run()
    connect_with_form(at, sandbox.base_url, lead.token, str(lead.company_id))
    assert "History synced just now by the worker on qa-1." in captions(at.sidebar)

    at.sidebar.button(key="history.clear.confirm").click().run()

    assert_no_failure(at)
    assert "Stored history cleared (" in captions(at.sidebar)
    assert "History synced" not in captions(at.sidebar)


def test_clear_all_forgets_the_kept_stores(app: AppFactory, connect: Connect) -> None:
    connect()
    app()
    kept = cache.history_store(configured())
    assert kept is not None
    assert cache.history_store(configured()) is kept

    cache.clear_all()

    again = cache.history_store(configured())
    assert again is not None
    assert again is not kept


def test_the_sidebar_says_what_the_store_kept_when_the_service_answered_otherwise(
    app: AppFactory, connect: Connect
) -> None:
    """An empty plans answer and finished executions sent again changed: the store keeps what it
    had (tests/store/test_store.py) and every page's sidebar says so."""
    connect()
    with store.open_for(configured(), secrets={}, env=os.environ) as kept:
        kept.replace_plans(plan_frames([records.plan(3)]))
        kept.add_executions(execution_frames([records.execution(900)]))
        kept.replace_plans(plan_frames([]))
        kept.add_executions(execution_frames([records.execution(900, plan_name="Renamed")]))
    at = app(PLANS)
    at.run()

    assert_no_failure(at)
    shown = captions(at.sidebar)
    assert "The service answered no plans just now; the stored plans are kept." in shown
    assert (
        "1 finished execution came back from the service changed (#900), shown as first "
        "stored: the service's data contradicts itself."
    ) in shown

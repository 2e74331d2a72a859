"""A slow service costs a page one time budget: a check that took longer than a failure is kept
is not asked again at once, and a connection that just timed out sends nothing for a while."""

from __future__ import annotations

from pydantic import SecretStr

from api_client import ApiTimeoutError
from api_client.operations import Operation
from dashboard.data.connection import Connection
from dashboard.data.service_budget import RecentTimeouts, timed_out
from dashboard.data.store.access import RETRY_AFTER, Access, AccessChecks
from tests.dashboard.test_page_history_status import Clock

VIEWER = Connection(base_url="https://svc.example.test/Api", token=SecretStr("t"), company_id=1)
UNANSWERED = Access(False, "unchecked", definitive=False, timed_out=True)


def test_a_check_that_timed_out_is_kept_from_when_it_ended() -> None:
    clock = Clock(15 * 60 * 1000)
    calls: list[Connection] = []

    def check(connection: Connection) -> Access:
        calls.append(connection)
        clock.now += 4 * RETRY_AFTER  # the service dripped its answer for two minutes
        return UNANSWERED

    checks = AccessChecks(check, clock=clock)

    assert checks.access(VIEWER) == UNANSWERED
    clock.now += RETRY_AFTER - 1
    assert checks.access(VIEWER) == UNANSWERED  # the same page's next read: not asked again
    assert len(calls) == 1
    clock.now += 1
    checks.access(VIEWER)
    assert len(calls) == 2  # asked again once the failure is RETRY_AFTER old


def test_a_connection_that_timed_out_waits_then_is_asked_again() -> None:
    clock = Clock(1000.0)
    timeouts = RecentTimeouts(keep=30.0, clock=clock)
    assert timeouts.retry_in(VIEWER.fingerprint) is None

    timeouts.note(VIEWER.fingerprint)
    clock.now += 10
    assert timeouts.retry_in(VIEWER.fingerprint) == 20.0
    assert timeouts.retry_in("another connection") is None
    clock.now += 20
    assert timeouts.retry_in(VIEWER.fingerprint) is None

    timeouts.note(VIEWER.fingerprint)
    timeouts.forget(VIEWER.fingerprint)  # Refresh
    assert timeouts.retry_in(VIEWER.fingerprint) is None


def test_a_request_not_sent_says_so_as_a_timeout() -> None:
    error = timed_out(Operation.PLANS, 12.4)

    assert isinstance(error, ApiTimeoutError)
    assert error.operation is Operation.PLANS
    assert "not sent" in error.message
    assert "asked again in 12 s" in error.message

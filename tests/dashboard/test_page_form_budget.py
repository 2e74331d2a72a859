"""A page connected through the sidebar's form to a service that drips its answers waits one
time budget in all, not one per request: once the service did not answer in time, the access
check is not asked again and the page's own requests are not sent, until `RETRY_AFTER`.

Against the hostile service on loopback (`drip`: every answer one byte every 0.2 s). The
dashboard's client is given a budget of a few seconds (`BUDGET`) so the test is quick; a page
took three budgets (check, check again, plans) before.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator

import pytest

from api_client import RetryPolicy
from dashboard.data import cache, cache_connection, connection
from dashboard.data.store import access as store_access
from dashboard.present.messages import form_connection_failed
from dashboard.ui import notices
from tests.dashboard.apptest import joined
from tests.dashboard.conftest import AppFactory
from tests.dashboard.test_page_viewers import connect_with_form
from tests.hostile_service import HostileService, hostile_service

BUDGET = 4.0


@pytest.fixture
def dripping(monkeypatch: pytest.MonkeyPatch) -> Iterator[HostileService]:
    monkeypatch.setattr(
        cache_connection,
        "api_client",
        functools.partial(
            connection.api_client,
            response_deadline=BUDGET,
            retry_policy=RetryPolicy(max_retries=3, deadline=BUDGET),
        ),
    )
    monkeypatch.setattr(notices, "FORM_FAILURE_SECONDS", 0.0)
    # As with the real budget (two minutes) against `RETRY_AFTER` (30 s): a failed check is
    # kept for less time than the check took.
    checks = store_access.AccessChecks(cache_connection._ask_service, retry_after=BUDGET / 2)
    monkeypatch.setattr(cache_connection, "STORE_ACCESS", checks)
    cache.client.clear()
    with hostile_service(drip_interval=0.2) as service:
        yield service
    cache.client.clear()


def test_a_dripping_form_connection_costs_one_budget_and_one_held_request(
    app: AppFactory, dripping: HostileService
) -> None:
    at = app()
    at.run()
    started = time.monotonic()

    connect_with_form(at, dripping.url("drip"), "a-token-the-service-takes", "1")

    took = time.monotonic() - started
    assert joined(at.main.error) == form_connection_failed("the test plans").text
    assert dripping.request_count("drip") == 1, [s.path for s in dripping.requests]
    assert took < 2 * BUDGET, f"took {took:.1f} s"

    at.run()  # the next run, within RETRY_AFTER: nothing is asked again

    assert dripping.request_count("drip") == 1
    assert joined(at.main.error) == form_connection_failed("the test plans").text

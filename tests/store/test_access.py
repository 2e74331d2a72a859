"""Who may see the shared history: two companies synced into one PostgreSQL store, then read
through connections the sandbox accepts, refuses, or accepts for another company.

Real parts throughout: the sandbox over loopback HTTP, a real PostgreSQL server, the store
opened as a page opens it (`store.access.open_if_allowed` on `QA_DASHBOARD_STORE_URL`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from pydantic import SecretStr

from api_client import ApiClient
from dashboard.data.connection import Connection
from dashboard.data.store import open_for
from dashboard.data.store.access import (
    ACCEPTED,
    RETRY_AFTER,
    Access,
    AccessChecks,
    ask_service,
    open_if_allowed,
)
from dashboard.data.store.location import store_schema
from dashboard.data.store.pg_pool import close_pool
from dashboard.data.sync import sync_history
from sandbox import Authority, RunningSandbox
from sandbox.auth import Authenticator
from tests.store.conftest import lacking, lead_of, pg_dump_rows, secret_bytes


@dataclass
class SharedStore:
    url: str
    env: dict[str, str]
    executions: dict[int, set[int]]  # company -> stored execution ids


def connection(running: RunningSandbox, token: str, company_id: int) -> Connection:
    return Connection(base_url=running.base_url, token=SecretStr(token), company_id=company_id)


@pytest.fixture
def shared(live_sandbox: RunningSandbox, pg_url: str) -> Iterator[SharedStore]:
    """Companies 1 and 2 of the sandbox synced into one PostgreSQL database."""
    env = {"QA_DASHBOARD_STORE_URL": pg_url}
    stored: dict[int, set[int]] = {}
    for company in (1, 2):
        lead = lead_of(live_sandbox, company)
        with (
            ApiClient(base_url=live_sandbox.base_url, token=lead.token, company_id=company) as api,
            open_for(connection(live_sandbox, lead.token, company), secrets={}, env=env) as store,
        ):
            sync_history(api, store, days=30, now=live_sandbox.settings.now)
            stored[company] = set(store.executions()["execution_id"])
    yield SharedStore(url=pg_url, env=env, executions=stored)
    close_pool(pg_url)


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def counted(calls: list[Connection]) -> AccessChecks:
    def check(c: Connection) -> Access:
        calls.append(c)
        return ask_service(c)

    return AccessChecks(check, clock=Clock(15 * 60 * 1000))


def test_two_companies_share_one_database_in_schemas_of_their_own(
    live_sandbox: RunningSandbox, shared: SharedStore
) -> None:
    first = connection(live_sandbox, lead_of(live_sandbox, 1).token, 1)
    second = connection(live_sandbox, lead_of(live_sandbox, 2).token, 2)
    assert shared.executions[1]
    assert shared.executions[2]
    assert not shared.executions[1] & shared.executions[2]
    assert store_schema(first) != store_schema(second)
    dump = pg_dump_rows(shared.url)
    assert f"{store_schema(first)}.results".encode() in dump
    assert f"{store_schema(second)}.results".encode() in dump


def test_an_accepted_credential_sees_its_own_companys_history_only(
    live_sandbox: RunningSandbox, shared: SharedStore
) -> None:
    calls: list[Connection] = []
    checks = counted(calls)
    for company in (1, 2):
        viewer = connection(live_sandbox, lead_of(live_sandbox, company).token, company)
        store = open_if_allowed(viewer, checks, secrets={}, env=shared.env)
        assert store is not None
        with store:
            assert set(store.executions()["execution_id"]) == shared.executions[company]
            assert store.info().company_id == company
    # A viewer with fewer authorities is still this company's: the check asks for executions.
    reader = lacking(live_sandbox, Authority.TEST_RESULT_VIEW, 1)
    assert checks.access(connection(live_sandbox, reader.token, 1)).allowed
    assert len(calls) == 3


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        ("no credential", "no credential"),
        ("wrong token", "refused"),
        ("another company's token", "denied"),
        ("this token, another company's id", "denied"),
    ],
)
def test_a_credential_the_service_does_not_accept_sees_none_of_it(
    live_sandbox: RunningSandbox, shared: SharedStore, case: str, reason: str
) -> None:
    lead1, lead2 = lead_of(live_sandbox, 1), lead_of(live_sandbox, 2)
    viewer = {
        "no credential": connection(live_sandbox, "", 1),
        "wrong token": connection(live_sandbox, "sbx-" + "0" * 40, 1),
        "another company's token": connection(live_sandbox, lead2.token, 1),
        "this token, another company's id": connection(live_sandbox, lead1.token, 2),
    }[case]
    checks = AccessChecks()

    assert open_if_allowed(viewer, checks, secrets={}, env=shared.env) is None
    assert checks.access(viewer) == Access(False, reason)


def test_a_credential_that_expires_loses_the_history_within_15_minutes(
    live_sandbox: RunningSandbox, shared: SharedStore
) -> None:
    lead = lead_of(live_sandbox, 1)
    viewer = connection(live_sandbox, lead.token, 1)
    calls: list[Connection] = []
    checks = counted(calls)
    clock = checks._clock
    assert isinstance(clock, Clock)

    assert checks.access(viewer).allowed
    clock.now += 14 * 60
    assert checks.access(viewer).allowed  # the slot's answer: not asked again
    assert len(calls) == 1

    original = live_sandbox.app.state.authenticator
    live_sandbox.app.state.authenticator = Authenticator(
        u for u in live_sandbox.users if u.token != lead.token
    )
    try:
        clock.now += 60  # the next 15-minute slot: asked again, and refused
        assert checks.access(viewer) == Access(False, "refused")
        assert open_if_allowed(viewer, checks, secrets={}, env=shared.env) is None
    finally:
        live_sandbox.app.state.authenticator = original
    assert len(calls) == 2


def test_an_unreachable_service_shows_none_and_is_asked_again(
    live_sandbox: RunningSandbox, shared: SharedStore
) -> None:
    gone = Connection(
        base_url="http://127.0.0.1:9/Api",
        token=SecretStr(lead_of(live_sandbox).token),
        company_id=1,
    )
    calls: list[Connection] = []
    checks = counted(calls)
    clock = checks._clock
    assert isinstance(clock, Clock)
    assert checks.access(gone) == Access(False, "unchecked", definitive=False)
    clock.now += RETRY_AFTER - 1
    assert not checks.access(gone).allowed
    assert len(calls) == 1  # kept a little while: a page's many reads ask once
    clock.now += 1
    assert not checks.access(gone).allowed
    assert len(calls) == 2  # not kept for the slot: asked again soon after


def test_an_answer_the_service_could_not_give_is_kept_30_seconds_only() -> None:
    """The service fails, then recovers: asked once while it fails (every fan-out would ask
    otherwise), asked again after RETRY_AFTER seconds, and the definitive answer then kept for
    the slot; Refresh (`forget`) asks again at once."""
    answers = [
        Access(False, "unchecked", definitive=False),
        ACCEPTED,
        Access(False, "unchecked", definitive=False),
    ]
    calls: list[Connection] = []

    def check(c: Connection) -> Access:
        calls.append(c)
        return answers[len(calls) - 1]

    clock = Clock(15 * 60 * 1000)
    checks = AccessChecks(check, clock=clock)
    viewer = Connection(base_url="https://svc.example.test/Api", token=SecretStr("t"), company_id=1)
    other = Connection(base_url="https://svc.example.test/Api", token=SecretStr("u"), company_id=1)

    for _ in range(20):  # a fan-out's reads while the service fails
        assert checks.access(viewer) == answers[0]
    assert len(calls) == 1
    clock.now += RETRY_AFTER
    assert checks.access(viewer) == ACCEPTED
    clock.now += RETRY_AFTER * 10
    assert checks.access(viewer) == ACCEPTED  # the slot's definitive answer
    assert len(calls) == 2

    assert checks.access(other) == answers[2]  # kept by fingerprint: another viewer is asked
    assert len(calls) == 3
    checks.forget(other)
    with pytest.raises(IndexError):  # asked again at once after forget (no answer left)
        checks.access(other)


def test_no_token_or_access_token_in_any_table(
    live_sandbox: RunningSandbox, shared: SharedStore
) -> None:
    dump = pg_dump_rows(shared.url)
    assert b"result_id" in dump  # the scan reads the stored rows
    for secret in secret_bytes(live_sandbox):
        assert secret not in dump

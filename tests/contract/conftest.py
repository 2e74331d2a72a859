"""The real client against a real sandbox, over HTTP on a loopback port."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from api_client import ApiClient, RetryPolicy
from sandbox import RunningSandbox, SandboxSettings, demo_users, serve_in_thread
from sandbox.auth import DemoUser

# The real service sits behind a path prefix; so does this sandbox, so the client's handling of
# a base URL with a path is exercised on every contract test.
PREFIX = "/Api"
NO_WAITING = RetryPolicy(max_retries=0, max_server_error_retries=0)


@pytest.fixture(scope="session")
def contract_sandbox() -> Iterator[RunningSandbox]:
    with serve_in_thread(SandboxSettings(path_prefix=PREFIX)) as running:
        yield running


def full_user(running: RunningSandbox, company_id: int = 1) -> DemoUser:
    return next(
        user
        for user in demo_users(running.settings)
        if user.company_id == company_id and len(user.authorities) == 3
    )


def user_lacking(running: RunningSandbox, authority: str, company_id: int = 1) -> DemoUser:
    return next(
        user
        for user in demo_users(running.settings)
        if user.company_id == company_id
        and authority not in user.authorities
        and len(user.authorities) == 2
    )


ClientFactory = Callable[..., ApiClient]


@pytest.fixture
def client_for(contract_sandbox: RunningSandbox) -> Iterator[ClientFactory]:
    """Builds strict clients (drift fails the test) for a demo user of the contract sandbox."""
    made: list[ApiClient] = []

    def make(user: DemoUser | None = None, **options: object) -> ApiClient:
        user = user or full_user(contract_sandbox)
        settings: dict[str, object] = {
            "base_url": contract_sandbox.base_url,
            "token": user.token,
            "company_id": user.company_id,
            "strict": True,
            "retry_policy": NO_WAITING,
        }
        settings.update(options)
        client = ApiClient(**settings)  # type: ignore[arg-type]
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()

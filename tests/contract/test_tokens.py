"""Walks that outlive their token, against the sandbox's token endpoint (tokens of one second,
an API that answers each page 100 ms late): they go on where they were and return what a walk
with a token that never expires returns."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from api_client import ApiClient, RetryPolicy, TokenError
from api_client.tokens import TokenCommand, TokenEndpoint
from sandbox import RunningSandbox, SandboxSettings, serve_in_thread
from sandbox.tokens import IssuedTokens
from tests.contract.conftest import PREFIX, full_user
from tests.service_tokens import token_command

PAGE_SIZE = 10  # 30 pages of the 300 executions, two at a time: well over a second


@pytest.fixture(scope="module")
def short_lived() -> Iterator[RunningSandbox]:
    settings = SandboxSettings(path_prefix=PREFIX, token_ttl=1.0, latency_ms=100)
    with serve_in_thread(settings) as running:
        yield running


def issued(running: RunningSandbox) -> int:
    tokens = running.app.state.tokens
    assert isinstance(tokens, IssuedTokens)
    return tokens.count


def walk(running: RunningSandbox, token: object) -> list[int]:
    with ApiClient(
        base_url=running.base_url,
        token=token,  # type: ignore[arg-type]
        company_id=1,
        max_concurrency=2,
        retry_policy=RetryPolicy(max_retries=0, max_server_error_retries=0),
    ) as client:
        return [e.id for e in client.all_executions(page_size=PAGE_SIZE)]


def test_a_walk_renews_its_endpoint_token_before_it_expires_and_goes_on(
    short_lived: RunningSandbox,
) -> None:
    user = full_user(short_lived)
    expected = walk(short_lived, user.token)  # the demo user's own token never expires
    before = issued(short_lived)
    source = TokenEndpoint(
        token_url=f"{short_lived.base_url}/oauth/token",
        grant="password",
        client_id=user.client_id,
        client_secret=user.client_secret,
        username=user.username,
        password=user.password,
    )

    assert walk(short_lived, source) == expected
    assert issued(short_lived) - before >= 2  # renewed during the walk, by refresh


def test_a_walk_whose_command_token_expires_is_refused_runs_the_command_again_and_goes_on(
    short_lived: RunningSandbox, tmp_path: Path
) -> None:
    user = full_user(short_lived)
    expected = walk(short_lived, user.token)
    command = token_command(tmp_path, f"{short_lived.base_url}/oauth/token", user)
    before = issued(short_lived)

    assert walk(short_lived, TokenCommand(command)) == expected
    assert issued(short_lived) - before >= 2  # refused once expired, so run again


@pytest.mark.parametrize(
    ("wrong", "said"),
    [
        ("password", "invalid_grant: the username or password was not accepted"),
        ("client_secret", "invalid_client: the client_id or client_secret was not accepted"),
    ],
)
def test_the_sandbox_endpoint_refusing_is_its_code_and_our_sentence(
    short_lived: RunningSandbox, wrong: str, said: str
) -> None:
    """The endpoint's own description ("Bad credentials") is its free text: not shown."""
    user = full_user(short_lived)
    source = TokenEndpoint(
        token_url=f"{short_lived.base_url}/oauth/token",
        grant="password",
        client_id=user.client_id,
        client_secret="wrong-SECRET-4d2f" if wrong == "client_secret" else user.client_secret,
        username=user.username,
        password="wrong-SECRET-4d2f" if wrong == "password" else user.password,
    )
    host = short_lived.base_url.removeprefix("http://").split("/")[0]

    with pytest.raises(TokenError) as caught:
        source.token()

    assert caught.value.message == (
        f"The token endpoint at {host} refused the password grant ({said})."
    )

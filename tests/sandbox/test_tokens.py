"""The sandbox's OAuth2 token endpoint (POST /oauth/token) and the expiry of what it issues."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from sandbox import DemoUser, RunningSandbox, SandboxSettings, demo_users, serve_in_thread
from sandbox.__main__ import parser, settings_from
from sandbox.tokens import IssuedTokens, TokenExpired
from tests.sandbox.helpers import PLANS, UserPicker
from tests.service_tokens import Clock, sandbox_process
from tests.waiting import PATIENT_S, wait_until

TOKEN = "/oauth/token"


def ask(http: httpx.Client, client: DemoUser | None, **form: str) -> httpx.Response:
    auth = (client.client_id, client.client_secret) if client else None
    return http.post(TOKEN, data=form, auth=auth)


def plans_with(http: httpx.Client, token: str, company_id: int = 1) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}", "current-company-id": str(company_id)}
    return http.get(PLANS, headers=headers)


def test_the_password_grant_gives_a_bearer_token_of_the_user_that_reads_the_api(
    http: httpx.Client, demo_user: UserPicker
) -> None:
    lead, other = demo_user(), demo_user(company_id=2)

    # The client (here another company's user) authenticates; the token is the user's.
    answer = ask(http, other, grant_type="password", username=lead.username, password=lead.password)

    assert answer.status_code == 200
    assert answer.headers["Cache-Control"] == "no-store"
    body = answer.json()
    assert set(body) == {"access_token", "token_type", "expires_in", "refresh_token", "scope"}
    assert (body["token_type"], body["expires_in"], body["scope"]) == ("bearer", 3600, "read")
    assert plans_with(http, body["access_token"], lead.company_id).status_code == 200


def test_the_client_credentials_grant_gives_the_clients_own_token_and_no_refresh_token(
    http: httpx.Client, demo_user: UserPicker
) -> None:
    lead = demo_user()

    body = ask(http, lead, grant_type="client_credentials", scope="read").json()

    assert "refresh_token" not in body
    assert plans_with(http, body["access_token"]).status_code == 200


def test_a_refresh_token_gives_a_new_access_token_to_the_client_it_was_issued_to(
    http: httpx.Client, demo_user: UserPicker
) -> None:
    lead, other = demo_user(), demo_user(company_id=2)
    first = ask(http, lead, grant_type="password", username=lead.username, password=lead.password)
    refresh = first.json()["refresh_token"]

    again = ask(http, lead, grant_type="refresh_token", refresh_token=refresh)
    stolen = ask(http, other, grant_type="refresh_token", refresh_token=refresh)

    assert again.status_code == 200
    assert again.json()["access_token"] != first.json()["access_token"]
    assert again.json()["refresh_token"] == refresh  # kept, as Spring does by default
    assert (stolen.status_code, stolen.json()["error"]) == (400, "invalid_grant")


@pytest.mark.parametrize(
    ("client", "form", "status", "error"),
    [
        (None, {"grant_type": "client_credentials"}, 401, "invalid_client"),
        ("wrong secret", {"grant_type": "client_credentials"}, 401, "invalid_client"),
        ("lead", {}, 400, "invalid_request"),
        ("lead", {"grant_type": "implicit"}, 400, "unsupported_grant_type"),
        ("lead", {"grant_type": "password", "username": "acme.lead"}, 400, "invalid_request"),
        ("lead", {"grant_type": "password", "username": "acme.lead", "password": "x"}, 400,
         "invalid_grant"),
        ("lead", {"grant_type": "refresh_token"}, 400, "invalid_request"),
        ("lead", {"grant_type": "refresh_token", "refresh_token": "sbx-rt-0"}, 400,
         "invalid_grant"),
        ("lead", {"grant_type": "client_credentials", "scope": "write"}, 400, "invalid_scope"),
    ],
)  # fmt: skip
def test_a_refused_request_gets_the_oauth2_error_body(
    http: httpx.Client,
    demo_user: UserPicker,
    client: str | None,
    form: dict[str, str],
    status: int,
    error: str,
) -> None:
    lead = demo_user()
    auth: Any = None
    if client == "lead":
        auth = (lead.client_id, lead.client_secret)
    elif client == "wrong secret":
        auth = (lead.client_id, lead.client_secret + "0")

    answer = http.post(TOKEN, data=form, auth=auth)

    assert answer.status_code == status
    assert set(answer.json()) == {"error", "error_description"}
    assert answer.json()["error"] == error
    assert answer.headers["Cache-Control"] == "no-store"
    if status == 401:
        assert answer.headers["WWW-Authenticate"] == 'Basic realm="sandbox"'


def test_an_issued_token_expires_after_its_lifetime_and_is_forgotten_later() -> None:
    clock = Clock(now=0.0)
    tokens = IssuedTokens(token_ttl=30, refresh_token_ttl=600, clock=clock)
    lead = demo_users(7)[0]
    grant = tokens.issue(lead, lead, with_refresh=True)
    assert grant.refresh_token is not None

    clock.now = 29.9
    assert tokens.user_of(grant.access_token) == lead
    clock.now = 30
    with pytest.raises(TokenExpired):
        tokens.user_of(grant.access_token)
    refreshed = tokens.refresh(grant.refresh_token, lead)
    assert refreshed is not None
    assert tokens.user_of(refreshed.access_token) == lead
    clock.now = 600  # the refresh token too
    assert tokens.refresh(grant.refresh_token, lead) is None
    tokens.issue(lead, lead, with_refresh=False)  # issuing forgets what expired long ago
    assert tokens.user_of(grant.access_token) is None
    assert tokens.count == 3


@pytest.fixture(scope="module")
def short_lived() -> Iterator[RunningSandbox]:
    with serve_in_thread(SandboxSettings(executions=20, token_ttl=0.5)) as running:
        yield running


def test_an_expired_token_is_answered_with_the_security_layers_401(
    short_lived: RunningSandbox,
) -> None:
    lead = short_lived.users[0]
    with httpx.Client(base_url=short_lived.base_url, timeout=PATIENT_S) as http:
        token = ask(http, lead, grant_type="client_credentials").json()["access_token"]
        assert plans_with(http, token).status_code == 200

        def refused() -> httpx.Response | None:
            answer = plans_with(http, token)
            return None if answer.status_code == 200 else answer

        # Until it has expired (after half a second): no deadline of our own (pytest-timeout's).
        answer = wait_until(refused, what="the token expired")
        own = plans_with(http, lead.token)  # the demo user's own token never expires

    assert answer.status_code == 401
    assert answer.json() == {
        "error": "invalid_token",
        "error_description": f"Access token expired: {token}",  # as Spring words it
    }
    assert 'error="invalid_token"' in answer.headers["WWW-Authenticate"]
    assert own.status_code == 200


def test_token_ttl_on_the_command_line() -> None:
    for text, seconds in (("30s", 30.0), ("5m", 300.0), ("1h", 3600.0), ("45", 45.0)):
        args = parser().parse_args(["serve", "--token-ttl", text])
        assert settings_from(args).token_ttl == seconds
    assert settings_from(parser().parse_args(["serve"])).token_ttl == 3600.0
    for bad in ("0s", "soon", "-5"):
        with pytest.raises(SystemExit):
            parser().parse_args(["serve", "--token-ttl", bad])


def test_serve_names_the_token_endpoint_and_its_lifetime_and_prints_no_credential() -> None:
    with sandbox_process("30s", executions=5) as running:
        printed = running.banner

    assert f"Token endpoint: {running.token_url} (tokens expire after 30 s)" in printed
    for secret in running.secrets():
        assert secret not in printed

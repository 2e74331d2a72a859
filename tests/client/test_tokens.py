"""Token sources: the client asks its source for a token and tells it when one was refused.

The service side is an `httpx.MockTransport` that accepts the tokens a test says; token
endpoints are a stand-in over real HTTP on loopback (`token_endpoint`) or the sandbox's own.
Expiry is driven by a clock the test moves, never by waiting.
"""

from __future__ import annotations

import base64
import logging
import threading
from collections.abc import Callable, Iterator

import httpx
import pytest
from pydantic import SecretStr

from api_client import NO_RETRIES, ApiClient, AuthenticationError, TokenError
from api_client.tokens import TokenEndpoint
from tests.client.conftest import BASE_URL, COMPANY_ID
from tests.client.samples import TEST_PLAN
from tests.client.token_endpoint import TokenEndpointStub, token_endpoint
from tests.service_tokens import Clock

CLIENT_ID = "qa-dashboard"
CLIENT_SECRET = "cs-SECRET-5b8e1d"
USERNAME = "ada"
PASSWORD = "pw-SECRET-77c2a0"


@pytest.fixture
def endpoint() -> Iterator[TokenEndpointStub]:
    with token_endpoint(expires_in=100) as stub:
        yield stub


@pytest.fixture
def clock() -> Clock:
    return Clock()


class Service:
    """The read API: answers 200 to the tokens in `accepted` (all when None), else 401; keeps
    the token each request carried."""

    def __init__(self, accepted: Callable[[str], bool] = lambda token: True) -> None:
        self.accepted = accepted
        self.tokens: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        token = request.headers.get("Authorization", "").removeprefix("Bearer ")
        self.tokens.append(token)
        if self.accepted(token):
            return httpx.Response(200, json=[TEST_PLAN])
        body = {"error": "invalid_token", "error_description": f"Access token expired: {token}"}
        return httpx.Response(401, json=body)


def client_of(source: object, service: Service) -> ApiClient:
    return ApiClient(
        base_url=BASE_URL,
        token=source,  # type: ignore[arg-type]
        company_id=COMPANY_ID,
        retry_policy=NO_RETRIES,
        http_client=httpx.Client(transport=httpx.MockTransport(service)),
    )


def password_source(url: str, clock: Clock, **options: object) -> TokenEndpoint:
    return TokenEndpoint(
        token_url=url,
        grant="password",
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
        username=USERNAME,
        password=PASSWORD,
        clock=clock,
        **options,  # type: ignore[arg-type]
    )


# -- the token endpoint ---------------------------------------------------------------------------


def test_a_password_grant_token_is_renewed_with_its_refresh_token_shortly_before_it_expires(
    endpoint: TokenEndpointStub, clock: Clock
) -> None:
    service = Service()
    client = client_of(password_source(endpoint.url("good"), clock), service)

    client.plans()
    clock.now += 74  # a 100-second token is renewed at 75 s (a quarter of its life before)
    client.plans()
    clock.now += 2
    client.plans()

    first, renewal = endpoint.asked("good")
    basic = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
    assert first.headers["Authorization"] == f"Basic {basic}"  # the client key as Basic
    assert first.form == {"grant_type": "password", "username": USERNAME, "password": PASSWORD}
    assert renewal.form == {"grant_type": "refresh_token", "refresh_token": endpoint.issued[0][1]}
    assert service.tokens == [endpoint.issued[0][0]] * 2 + [endpoint.issued[1][0]]


def test_a_client_credentials_grant_sends_the_client_key_as_basic_and_nothing_else(
    endpoint: TokenEndpointStub, clock: Clock
) -> None:
    source = TokenEndpoint(
        token_url=endpoint.url("good"),
        grant="client_credentials",
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
        scope="read",
        clock=clock,
    )

    assert source.token().get_secret_value() == endpoint.issued[0][0]
    (asked,) = endpoint.asked("good")
    assert asked.form == {"grant_type": "client_credentials", "scope": "read"}
    assert asked.headers["Authorization"].startswith("Basic ")


def test_a_refused_token_is_renewed_once_and_the_request_sent_again(
    endpoint: TokenEndpointStub, clock: Clock
) -> None:
    service = Service(accepted=lambda token: token != endpoint.issued[0][0])
    client = client_of(password_source(endpoint.url("good"), clock), service)

    assert client.plans()  # refused with the first token, answered with the second

    assert service.tokens == [endpoint.issued[0][0], endpoint.issued[1][0]]
    assert len(endpoint.asked("good")) == 2


def test_a_refusal_of_the_renewed_token_too_is_final(
    endpoint: TokenEndpointStub, clock: Clock
) -> None:
    service = Service(accepted=lambda token: False)
    client = client_of(password_source(endpoint.url("good"), clock), service)

    with pytest.raises(AuthenticationError) as caught:
        client.plans()

    assert len(service.tokens) == 2  # once, and once more with a renewed token: no loop
    assert len(endpoint.asked("good")) == 2
    for token, refresh in endpoint.issued:
        assert token not in caught.value.message  # the service echoed it; it is masked
        assert refresh not in caught.value.message


def test_threads_that_need_a_token_at_once_cause_one_request_to_the_endpoint(
    endpoint: TokenEndpointStub, clock: Clock
) -> None:
    source = password_source(endpoint.url("slow"), clock)
    ready = threading.Barrier(16)
    got: list[SecretStr] = []

    def ask() -> None:
        ready.wait()
        got.append(source.token())

    threads = [threading.Thread(target=ask) for _ in range(16)]
    for thread in threads:
        thread.start()
    endpoint.wait_for_requests("slow", 1)
    endpoint.release.set()
    for thread in threads:
        thread.join()  # no limit of its own: pytest-timeout ends a hang

    assert len(endpoint.asked("slow")) == 1
    assert {token.get_secret_value() for token in got} == {endpoint.issued[0][0]}
    assert len(got) == 16


def test_when_renewal_fails_the_last_good_token_is_used_until_it_expires(
    endpoint: TokenEndpointStub, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="api_client")
    source = password_source(endpoint.url("good-then-down"), clock)
    first = source.token()

    clock.now += 80  # due for renewal; the endpoint now answers 503
    assert source.token() == first
    clock.now += 10  # past the pause between attempts: asked again, fails again
    assert source.token() == first
    clock.now += 11  # expired
    with pytest.raises(TokenError) as caught:
        source.token()

    assert len(endpoint.asked("good-then-down")) == 4
    host = endpoint.base_url.removeprefix("http://")
    assert caught.value.message == (
        f"The token endpoint at {host} failed (HTTP 503) while asked for the refresh token."
    )
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [  # said once, not on every request while it lasts
        f"{caught.value.message} The last good token is used until it expires, for 20 s."
    ]


def test_a_refused_refresh_token_falls_back_on_the_grant(
    endpoint: TokenEndpointStub, clock: Clock
) -> None:
    source = password_source(endpoint.url("refresh-refused"), clock)
    source.token()
    clock.now += 80

    assert source.token().get_secret_value() == endpoint.issued[1][0]
    grants = [asked.form["grant_type"] for asked in endpoint.asked("refresh-refused")]
    assert grants == ["password", "refresh_token", "password"]


def test_a_token_without_expires_in_is_kept_until_the_service_refuses_it(
    endpoint: TokenEndpointStub, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="api_client")
    service = Service(accepted=lambda token: token != endpoint.issued[0][0] or clock.now < 5000)
    client = client_of(password_source(endpoint.url("no-expiry"), clock), service)

    client.plans()
    clock.now = 4999  # hours later: no expiry was said, so none is assumed
    client.plans()
    clock.now = 5000  # the service refuses it: renewed once, the request sent again
    client.plans()

    assert len(endpoint.asked("no-expiry")) == 2
    assert service.tokens[-1] == endpoint.issued[1][0]
    host = endpoint.base_url.removeprefix("http://")
    assert (
        f"The token endpoint at {host} gave a token without expires_in; it is renewed when the "
        "service refuses it." in caplog.messages
    )


@pytest.mark.parametrize(
    ("behaviour", "sentence"),
    [
        ("slow", "The token endpoint at {host} did not answer within 0.5 s while asked for the "
         "password grant."),
        ("html", "The token endpoint at {host} answered the password grant with something that "
         "is not JSON (HTTP 200, text/html); is token_url the endpoint's own address?"),
        ("refuse", "The token endpoint at {host} refused the password grant (invalid_grant: the "
         "username or password was not accepted)."),
    ],
    ids=["slow", "html", "refuses"],
)  # fmt: skip
def test_a_failing_endpoint_is_one_sentence_naming_its_host_and_the_cause(
    endpoint: TokenEndpointStub,
    clock: Clock,
    caplog: pytest.LogCaptureFixture,
    behaviour: str,
    sentence: str,
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, httpx's and Authlib's too
    # The slow endpoint never answers in time; the others get a timeout no loaded machine reaches.
    timeout = 0.5 if behaviour == "slow" else 120.0
    client = client_of(password_source(endpoint.url(behaviour), clock, timeout=timeout), Service())

    with pytest.raises(TokenError) as caught:
        client.plans()

    host = endpoint.base_url.removeprefix("http://")
    assert caught.value.message == sentence.format(host=host)
    seen = caught.value.message + repr(caught.value) + caplog.text
    for secret in (
        PASSWORD,
        CLIENT_SECRET,
        base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode(),
    ):
        assert secret not in seen


def test_secrets_reach_no_log_line_and_no_exception_text(
    endpoint: TokenEndpointStub, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    """A whole life: a grant, a refresh, a refusal by the service and a renewal after it, and an
    endpoint that refuses (echoing the password)."""
    caplog.set_level(logging.DEBUG)
    refused_once = {"done": False}

    def accepted(token: str) -> bool:
        if len(endpoint.issued) > 1 and token == endpoint.issued[1][0] and not refused_once["done"]:
            refused_once["done"] = True
            return False
        return True

    service = Service(accepted)
    source = password_source(endpoint.url("good"), clock)
    client = client_of(source, service)
    texts: list[str] = []
    client.plans()
    clock.now += 80
    client.plans()  # refreshed, then refused by the service, renewed and sent again
    broken = password_source(endpoint.url("refuse"), clock)
    with pytest.raises(TokenError) as caught:
        client_of(broken, Service()).plans()
    texts += [caught.value.message, str(caught.value), repr(caught.value), repr(source)]

    seen = "\n".join([*texts, caplog.text])
    secrets = [PASSWORD, CLIENT_SECRET] + [value for pair in endpoint.issued for value in pair]
    assert len(endpoint.issued) >= 3
    for secret in secrets:
        assert secret not in seen


def test_a_token_endpoint_is_checked_before_any_request() -> None:
    from api_client import RequestValidationError

    with pytest.raises(RequestValidationError) as caught:
        TokenEndpoint(token_url="https://user:pw@auth.example.test/token", grant="password",
                      client_id="c", username="u", password="p")  # fmt: skip
    assert caught.value.argument == "token_url"
    assert "pw" not in caught.value.message
    with pytest.raises(RequestValidationError) as caught:
        TokenEndpoint(token_url="https://auth.example.test/token", grant="password",
                      client_id="c", username="u")  # fmt: skip
    assert caught.value.argument == "password"
    with pytest.raises(RequestValidationError) as caught:
        TokenEndpoint(token_url="https://auth.example.test/token", grant="implicit",  # type: ignore[arg-type]
                      client_id="c")  # fmt: skip
    assert caught.value.argument == "grant"

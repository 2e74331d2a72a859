"""Secrets in every encoding: a careless token endpoint or service that repeats a credential
back (the `Authorization` header it was sent, a secret in base64) has it masked wherever its
words are shown or logged, and a token endpoint's free text is never shown at all.

The masking is one function (`api_client.redaction.redact`) used by error messages, the token
endpoint and the log filter; these tests drive it through the client as a page would, and
directly for the encodings.
"""

from __future__ import annotations

import base64
import logging

import httpx
import pytest

from api_client import NO_RETRIES, ApiClient, AuthenticationError, RedactBearerFilter, TokenError
from api_client.redaction import redact
from tests.client.conftest import BASE_URL, COMPANY_ID
from tests.client.test_tokens import (
    CLIENT_ID,
    CLIENT_SECRET,
    PASSWORD,
    USERNAME,
    Service,
    client_of,
    password_source,
)
from tests.client.token_endpoint import encodings, token_endpoint
from tests.service_tokens import Clock


def every_form(secret: str) -> list[str]:
    """`secret` as it is and in base64: standard and URL-safe, with and without padding."""
    raw = secret.encode()
    forms = [base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()]
    return [secret, *forms, *(form.rstrip("=") for form in forms)]


PAIR = f"{CLIENT_ID}:{CLIENT_SECRET}"
SECRET_FORMS = [
    *every_form(PAIR),
    *every_form(CLIENT_SECRET),
    *every_form(PASSWORD),
    *every_form(f"{USERNAME}:{PASSWORD}"),
]


def assert_nothing_secret(seen: str) -> None:
    for form in SECRET_FORMS:
        assert form not in seen, f"{form!r} was shown or logged"


@pytest.mark.parametrize("grant", ["password", "client_credentials"])
def test_an_endpoint_echoing_the_authorization_header_is_shown_by_its_error_code_only(
    grant: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, httpx's and Authlib's too
    with token_endpoint() as stub:
        source = password_source(stub.url("echo"), Clock())
        if grant == "client_credentials":
            from api_client.tokens import TokenEndpoint

            source = TokenEndpoint(token_url=stub.url("echo"), grant="client_credentials",
                                   client_id=CLIENT_ID, client_secret=CLIENT_SECRET)  # fmt: skip
        with pytest.raises(TokenError) as caught:
            client_of(source, Service()).plans()
        sent = stub.asked("echo")[0].headers["Authorization"]
    host = stub.base_url.removeprefix("http://")

    what = "the password grant" if grant == "password" else "the client_credentials grant"
    assert caught.value.message == (
        f"The token endpoint at {host} refused {what} (invalid_client: the client_id or "
        "client_secret was not accepted)."
    )
    assert sent.startswith("Basic ")  # what the endpoint repeated is what is masked
    assert set(encodings(sent)) <= set(SECRET_FORMS)
    assert_nothing_secret(
        "\n".join([caught.value.message, str(caught.value), repr(caught.value), caplog.text])
    )
    assert "is not known" not in caught.value.message  # the endpoint's free text is not shown


@pytest.mark.parametrize(
    ("behaviour", "said"),
    [
        ("echo-code", "an unnamed error"),
        ("code-invalid_dpop_proof", "invalid_dpop_proof"),
        ("code-Invalid Client", "an unnamed error"),
        ("code-invalid_grant", "invalid_grant: the username or password was not accepted"),
    ],
    ids=["credential-as-code", "unknown-code", "not-a-code", "invalid-grant"],
)
def test_only_an_error_code_shaped_as_oauth2_codes_are_is_shown(
    behaviour: str, said: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with token_endpoint() as stub, pytest.raises(TokenError) as caught:
        client_of(password_source(stub.url(behaviour), Clock()), Service()).plans()
    host = stub.base_url.removeprefix("http://")

    assert caught.value.message == (
        f"The token endpoint at {host} refused the password grant ({said})."
    )
    assert_nothing_secret("\n".join([caught.value.message, repr(caught.value), caplog.text]))


def test_an_endpoint_echoing_the_header_in_plain_text_is_not_repeated(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    with token_endpoint() as stub, pytest.raises(TokenError) as caught:
        client_of(password_source(stub.url("echo-text"), Clock()), Service()).plans()
    host = stub.base_url.removeprefix("http://")

    assert caught.value.message == (
        f"The token endpoint at {host} answered the password grant with something that is not "
        "JSON (HTTP 401, text/plain); is token_url the endpoint's own address?"
    )
    assert_nothing_secret(
        "\n".join([caught.value.message, str(caught.value), repr(caught.value), caplog.text])
    )


def test_a_service_echoing_the_token_in_base64_has_it_masked(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    token = "sbx-TOKEN-b2c8e4a1f7"

    def service(request: httpx.Request) -> httpx.Response:
        sent = request.headers["Authorization"]
        said = f"Not accepted: {sent} ({' '.join(every_form(token)[1:])}); Basic {_b64('a:b')}"
        return httpx.Response(401, json={"error": "invalid_token", "message": said})

    client = ApiClient(
        base_url=BASE_URL,
        token=token,
        company_id=COMPANY_ID,
        retry_policy=NO_RETRIES,
        http_client=httpx.Client(transport=httpx.MockTransport(service)),
    )
    with pytest.raises(AuthenticationError) as caught:
        client.plans()

    seen = "\n".join([caught.value.message, str(caught.value), repr(caught.value), caplog.text])
    for form in [*every_form(token), _b64("a:b")]:
        assert form not in seen
    assert "Not accepted: Bearer <redacted>" in caught.value.message


# -- the one masking function -------------------------------------------------------------------


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# Its base64 has a '+' (a '-' URL-safe) and padding: each form differs from the others.
ODD_SECRET = "pw-SECRET-77c2a0?>~"


@pytest.mark.parametrize(
    "form",
    every_form(ODD_SECRET),
    ids=["plain", "base64", "urlsafe", "base64-unpadded", "urlsafe-unpadded"],
)
def test_a_secret_is_masked_in_every_base64_form(form: str) -> None:
    shown = redact(f"the endpoint said {form}.", (ODD_SECRET,))

    assert form not in shown
    assert "<redacted>" in shown


@pytest.mark.parametrize("prefix", ["", "a", "ab", "abc", "ada:", "qa-dashboard:"])
def test_a_secret_inside_a_longer_base64_text_is_masked_wherever_it_starts(prefix: str) -> None:
    """The secret's encoding depends on where in the encoded text it starts (its offset modulo
    three): `base64("ada:" + password)` does not contain `base64(password)`."""
    whole = _b64(prefix + ODD_SECRET + " and more")
    urlsafe = whole.rstrip("=").replace("+", "-").replace("/", "_")

    shown = redact(f"got {whole} and {urlsafe}", (ODD_SECRET,))

    assert whole not in shown
    assert urlsafe not in shown
    assert shown.count("<redacted>") == 2


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (f"Authorization: Basic {_b64('id:secret')}", "Authorization: Basic <redacted>"),
        (f"basic {_b64('id:secret').rstrip('=')}!", "basic <redacted>!"),
        ("Authorization: Bearer abc.def-ghi", "Authorization: Bearer <redacted>"),
        ('sent "Bearer abc"', 'sent "Bearer <redacted>"'),
        ("Basic authentication is required", "Basic authentication is required"),
        ('WWW-Authenticate: Basic realm="x"', 'WWW-Authenticate: Basic realm="x"'),
    ],
)
def test_credentials_shaped_as_an_authorization_header_are_masked(text: str, shown: str) -> None:
    assert redact(text, ()) == shown


def test_the_log_filter_masks_what_redact_masks(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("tests.client.redacting")
    logger.addFilter(RedactBearerFilter())
    caplog.set_level(logging.DEBUG, logger=logger.name)

    logger.warning("sent %s then %s", f"Basic {_b64(PAIR)}", "Bearer tok-123")

    assert caplog.messages == ["sent Basic <redacted> then Bearer <redacted>"]
    assert_nothing_secret(caplog.text)

"""Bearer authentication that keeps the token secret and pinned to one origin."""

from __future__ import annotations

import logging
from collections.abc import Generator

import httpx
from pydantic import SecretStr

from api_client.errors import RequestValidationError
from api_client.redaction import redact
from api_client.tokens.source import StaticToken, TokenSource, token_problem

__all__ = ["BearerAuth", "RedactBearerFilter", "origin_of", "token_problem"]


def origin_of(url: httpx.URL) -> tuple[str, str, int | None]:
    """(scheme, host, port) with the scheme's default port made explicit."""
    default_ports = {"http": 80, "https": 443}
    return url.scheme, url.host, url.port or default_ports.get(url.scheme)


class BearerAuth(httpx.Auth):
    """Adds `Authorization: Bearer <token>` to requests for the configured origin only.

    A URL the service hands back (`next_page`, `rest_api_url`) may name another host; a request
    to it would go out without the token. The token comes from a `TokenSource` (a string given
    is a `StaticToken`), is held as a `SecretStr` and never appears in `repr`.
    """

    def __init__(self, token: str | SecretStr | TokenSource, origin: httpx.URL) -> None:
        self.source = _source(token)
        self._origin = origin_of(origin)

    @property
    def secrets(self) -> tuple[str, ...]:
        """What must be masked wherever the service's words are repeated: a static token (a
        renewed one is masked by the request that sent it)."""
        if isinstance(self.source, StaticToken):
            return (self.source.token().get_secret_value(),)
        return ()

    def sign(self, request: httpx.Request, token: SecretStr) -> None:
        """Put `token` on `request` when it goes to the configured origin."""
        if origin_of(request.url) == self._origin:
            request.headers["Authorization"] = f"Bearer {token.get_secret_value()}"

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        if origin_of(request.url) == self._origin:
            self.sign(request, self.source.token())
        yield request

    def __repr__(self) -> str:
        scheme, host, port = self._origin
        return f"BearerAuth(token=SecretStr('**********'), origin='{scheme}://{host}:{port}')"


def _source(token: object) -> TokenSource:
    """A token source for what `ApiClient(token=...)` was given; a static token is checked
    here, before any request."""
    if isinstance(token, TokenSource):
        return token
    value = token.get_secret_value() if isinstance(token, SecretStr) else token
    if not isinstance(value, str):
        raise RequestValidationError(
            "token must be a string or a token source (api_client.tokens)", argument="token"
        )
    value = value.strip()
    problem = token_problem(value)
    if problem:
        raise RequestValidationError(problem, argument="token")
    return StaticToken(value)


class RedactBearerFilter(logging.Filter):
    """Masks anything that looks like an `Authorization` credential (`Bearer ...`, `Basic ...`)
    in a log record's text, with the same `redact` as error messages.

    The client never logs headers; this is the second line of defence for a record that
    formats a request or an exception carrying one (after openai-python's redacting filter).
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = redact(message)
        if masked != message:
            record.msg = masked
            record.args = None
        return True

"""Bearer authentication that keeps the token secret and pinned to one origin."""

from __future__ import annotations

import logging
import re
from collections.abc import Generator

import httpx
from pydantic import SecretStr

from api_client.errors import RequestValidationError


def origin_of(url: httpx.URL) -> tuple[str, str, int | None]:
    """(scheme, host, port) with the scheme's default port made explicit."""
    default_ports = {"http": 80, "https": 443}
    return url.scheme, url.host, url.port or default_ports.get(url.scheme)


def token_problem(token: str) -> str | None:
    """What makes `token` unusable as a bearer token, in words that never repeat it; else None.

    A header may carry visible ASCII only; a token pasted with a line break or a non-ASCII
    character would otherwise fail deep in the HTTP stack, in an error that quotes the header,
    token and all.
    """
    if not token:
        return "token must not be empty"
    rule = "token must be visible ASCII characters without spaces or line breaks"
    for character in token:
        if "!" <= character <= "~":
            continue
        if character in "\r\n":
            what = "a line break"
        elif character.isspace():
            what = "a space" if character == " " else "a blank character (such as a tab)"
        elif not character.isascii():
            what = "a non-ASCII character (often a typographic quote or dash from a document)"
        else:
            what = "a control character"
        return f"{rule}; it contains {what}"
    return None


class BearerAuth(httpx.Auth):
    """Adds `Authorization: Bearer <token>` to requests for the configured origin only.

    A URL the service hands back (`next_page`, `rest_api_url`) may name another host; a request
    to it would go out without the token. The token is held as a `SecretStr` and never appears
    in `repr`.
    """

    def __init__(self, token: str | SecretStr, origin: httpx.URL) -> None:
        value = token.get_secret_value() if isinstance(token, SecretStr) else token
        if not isinstance(value, str):
            raise RequestValidationError("token must be a string", argument="token")
        value = value.strip()
        problem = token_problem(value)
        if problem:
            raise RequestValidationError(problem, argument="token")
        self._token = SecretStr(value)
        self._origin = origin_of(origin)

    @property
    def secrets(self) -> tuple[str, ...]:
        """What must be masked wherever the service's words are repeated."""
        return (self._token.get_secret_value(),)

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        if origin_of(request.url) == self._origin:
            request.headers["Authorization"] = f"Bearer {self._token.get_secret_value()}"
        yield request

    def __repr__(self) -> str:
        scheme, host, port = self._origin
        return f"BearerAuth(token=SecretStr('**********'), origin='{scheme}://{host}:{port}')"


_BEARER = re.compile(r"(?i)(bearer\s+)[^\s'\",]+")


class RedactBearerFilter(logging.Filter):
    """Masks anything that looks like a bearer credential in a log record's text.

    The client never logs headers; this is the second line of defence for a record that
    formats a request or an exception carrying one (after openai-python's redacting filter).
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if _BEARER.search(message):
            record.msg = _BEARER.sub(r"\1<redacted>", message)
            record.args = None
        return True

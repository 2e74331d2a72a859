"""Checks of the caller's arguments, each failing with a `RequestValidationError` that names the
argument and never repeats a secret (a password in a URL, a token).
"""

from __future__ import annotations

import ssl

import httpx

from api_client.errors import RequestValidationError, first_line


def require_positive_id(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RequestValidationError(
            f"{name} must be a positive integer, got {value!r}", argument=name
        )
    return value


def require_positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RequestValidationError(f"{name} must be >= 1, got {value!r}", argument=name)
    return value


def require_seconds(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise RequestValidationError(f"{name} must be a number of seconds > 0", argument=name)
    return float(value)


def parse_base_url(text: object) -> httpx.URL:
    """`text` as an http(s) URL with a host; the error never shows a password it carries."""
    problem = "base_url must be an http(s) URL such as https://host/Api"
    if not isinstance(text, str):
        raise RequestValidationError(f"{problem}, got {type(text).__name__}", argument="base_url")
    try:
        url = httpx.URL(text)
    except (httpx.InvalidURL, TypeError, ValueError):
        raise RequestValidationError(
            f"{problem}; it could not be read", argument="base_url"
        ) from None
    if url.scheme not in ("http", "https") or not url.host:
        raise RequestValidationError(f"{problem}, got {masked_url(text)!r}", argument="base_url")
    return url


def masked_url(text: str) -> str:
    """A URL with the password of its user part, if any, replaced by ***."""
    scheme, separator, rest = text.partition("://")
    authority, slash, tail = rest.partition("/")
    user, at, host = authority.rpartition("@")
    if not (separator and at and ":" in user):
        return text
    name = user.split(":", 1)[0]
    return f"{scheme}{separator}{name}:***@{host}{slash}{tail}"


def ssl_context(verify: bool | str | ssl.SSLContext) -> bool | ssl.SSLContext:
    """TLS verification is on by default; a string is a CA bundle for a self-hosted service."""
    if not isinstance(verify, str):
        return verify
    try:
        return ssl.create_default_context(cafile=verify)
    except (OSError, ValueError) as exc:  # ssl.SSLError is an OSError
        raise RequestValidationError(
            f"The CA bundle {verify!r} could not be loaded: {first_line(exc)}", argument="verify"
        ) from None

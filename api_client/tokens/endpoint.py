"""`TokenEndpoint`: tokens from an OAuth2 token endpoint, through Authlib's httpx client.

Two grants (RFC 6749): `password` (a user's name and password) and `client_credentials`; the
client's id and secret go as HTTP Basic. The answer's `expires_in` says when to renew (shortly
before it runs out) and its `refresh_token`, when there is one, is used to renew; a refused
refresh falls back on the grant itself. A token the service refuses is renewed at once, once.

Every failure is one sentence naming the endpoint's host and the cause: slow, unreachable, an
answer that is not JSON (a login page), a refusal (the endpoint's own `error` code and a
description with any of our secrets masked), a token that is not a bearer token. No secret (the
client secret, the password, a token) is ever in a message or a log line.
"""

from __future__ import annotations

import ssl
import time
from typing import Any, Literal

import httpx
from pydantic import SecretStr

from api_client._arguments import ssl_context
from api_client.error_body import looks_like_code, short, strip_markup
from api_client.errors import RequestValidationError, TokenError, redact
from api_client.tokens.source import (
    LOG,
    Clock,
    Issued,
    RenewingSource,
    lifetime,
    seconds,
    token_problem,
)

Grant = Literal["password", "client_credentials"]
GRANTS: tuple[Grant, ...] = ("password", "client_credentials")

# Refusals after which a refresh token is given up for the grant itself (RFC 6749 5.2).
_REFRESH_REFUSED = frozenset({"invalid_grant", "invalid_token", "unauthorized_client"})


class TokenEndpoint(RenewingSource):
    """Tokens from the OAuth2 token endpoint at `token_url`."""

    def __init__(
        self,
        *,
        token_url: str,
        grant: Grant,
        client_id: str,
        client_secret: str | SecretStr | None = None,
        username: str | None = None,
        password: str | SecretStr | None = None,
        scope: str | None = None,
        timeout: float = 15.0,
        verify: bool | str | ssl.SSLContext = True,
        renew_before: float = 60.0,
        retry_after: float = 5.0,
        clock: Clock = time.monotonic,
    ) -> None:
        super().__init__(retry_after=retry_after, clock=clock)
        url = _token_url(token_url)
        if grant not in GRANTS:
            raise RequestValidationError(
                f"grant must be one of {', '.join(GRANTS)}", argument="grant"
            )
        if not client_id:
            raise RequestValidationError("client_id is required", argument="client_id")
        if grant == "password" and not (username and _value(password)):
            missing = "username" if not username else "password"
            raise RequestValidationError(
                f"{missing} is required by the password grant", argument=missing
            )
        self._url = str(url)
        port = f":{url.port}" if url.port else ""
        self.host = f"{url.host}{port}"
        self._grant = grant
        self._username = username
        self._password = SecretStr(_value(password))
        self._secret = SecretStr(_value(client_secret))
        self._timeout = timeout
        self._renew_before = renew_before
        self._last_answer: tuple[int, str] | None = None
        # An Authlib client per renewal, closed after it: renewals are minutes apart, so no
        # connection is kept open in between.
        self._client_options: dict[str, Any] = {
            "client_id": client_id,
            "client_secret": self._secret.get_secret_value() or None,
            "token_endpoint_auth_method": "client_secret_basic",
            "scope": scope or None,
            "timeout": timeout,
            "verify": ssl_context(verify),
            "follow_redirects": False,  # a login page elsewhere is not the token endpoint
            "trust_env": False,
            "event_hooks": {"response": [self._note_answer]},
        }

    def _get(self, current: Issued | None) -> Issued:
        started = self._clock()
        if current is not None and current.refresh_token is not None:
            try:
                return self._issued(started, self._ask(refresh=current.refresh_token))
            except _Refused as refused:
                if refused.error not in _REFRESH_REFUSED:
                    raise refused.as_token_error() from None
                # The refresh token has expired or was revoked: the grant itself gets a new one.
        try:
            return self._issued(started, self._ask())
        except _Refused as refused:
            raise refused.as_token_error() from None

    def _ask(self, *, refresh: SecretStr | None = None) -> dict[str, Any]:
        """The endpoint's token answer, or a `TokenError` sentence (a refusal: `_Refused`)."""
        # Imported here: Authlib (and the cryptography it loads) is only needed by this source.
        from authlib.integrations.base_client import OAuthError
        from authlib.integrations.httpx_client import OAuth2Client

        what = "the refresh token" if refresh is not None else f"the {self._grant} grant"
        where = f"The token endpoint at {self.host}"
        self._last_answer = None
        try:
            with OAuth2Client(**self._client_options) as oauth:
                if refresh is not None:
                    answer = oauth.refresh_token(
                        self._url, refresh_token=refresh.get_secret_value()
                    )
                elif self._grant == "password":
                    answer = oauth.fetch_token(
                        self._url,
                        grant_type="password",
                        username=self._username,
                        password=self._password.get_secret_value(),
                    )
                else:
                    answer = oauth.fetch_token(self._url, grant_type="client_credentials")
        except OAuthError as error:
            description = self._masked(str(getattr(error, "description", None) or ""))
            raise _Refused(
                where, what, str(getattr(error, "error", "") or ""), description
            ) from None
        except httpx.TimeoutException:
            raise TokenError(
                f"{where} did not answer within {self._timeout:g} s while asked for {what}."
            ) from None
        except httpx.HTTPStatusError as error:
            raise TokenError(
                f"{where} failed (HTTP {error.response.status_code}) while asked for {what}."
            ) from None
        except httpx.RequestError as error:
            raise TokenError(
                f"{where} could not be reached ({type(error).__name__}) while asked for {what}."
            ) from None
        except ValueError:  # the body is not JSON: a login page, a proxy's error page
            status, kind = self._last_answer or (0, "")
            shown = f"HTTP {status}" + (f", {kind}" if kind else "")
            raise TokenError(
                f"{where} answered {what} with something that is not JSON ({shown}); is "
                "token_url the endpoint's own address?"
            ) from None
        if not isinstance(answer, dict):
            raise TokenError(f"{where} answered {what} with something that is not a JSON object.")
        return dict(answer)

    def _issued(self, started: float, answer: dict[str, Any]) -> Issued:
        where = f"The token endpoint at {self.host}"
        token = answer.get("access_token")
        if not isinstance(token, str) or not token.strip():
            raise TokenError(f"{where} answered without an access_token.")
        token_type = answer.get("token_type")
        if isinstance(token_type, str) and token_type.lower() != "bearer":
            shown = token_type if token_type.isalnum() and len(token_type) <= 20 else "another"
            raise TokenError(f"{where} gave a {shown} token, not a bearer token.")
        problem = token_problem(token.strip())
        if problem:
            raise TokenError(f"{where} gave an access_token that is not usable ({problem}).")
        expires_in = seconds(answer.get("expires_in"))
        if expires_in is None:
            LOG.info(
                "%s gave a token without expires_in; it is renewed when the service refuses it.",
                where,
            )
        refresh = answer.get("refresh_token")
        renew_at, expires_at = lifetime(started, expires_in, self._renew_before)
        return Issued(
            value=SecretStr(token.strip()),
            renew_at=renew_at,
            expires_at=expires_at,
            refresh_token=SecretStr(refresh) if isinstance(refresh, str) and refresh else None,
        )

    def _note_answer(self, response: httpx.Response) -> None:
        """Remember the status and content type of the endpoint's answer (for the sentence
        when it is not JSON: Authlib's own error says neither)."""
        kind = response.headers.get("content-type", "").split(";")[0].strip()
        self._last_answer = (response.status_code, kind if len(kind) <= 60 else "")

    def _masked(self, text: str) -> str:
        secrets = [self._secret.get_secret_value(), self._password.get_secret_value()]
        current = self._current
        if current is not None:
            secrets.append(current.value.get_secret_value())
            if current.refresh_token is not None:
                secrets.append(current.refresh_token.get_secret_value())
        return short(redact(strip_markup(text), tuple(secrets)))

    def __repr__(self) -> str:
        return f"TokenEndpoint(host={self.host!r}, grant={self._grant!r})"


class _Refused(Exception):
    """The endpoint refused (an OAuth2 error answer): its `error` code and description."""

    def __init__(self, where: str, what: str, error: str, description: str) -> None:
        super().__init__(error)
        self.where, self.what, self.error, self.description = where, what, error, description

    def as_token_error(self) -> TokenError:
        code = self.error if looks_like_code(self.error) else "an error"
        said = f": {self.description}" if self.description else ""
        return TokenError(f"{self.where} refused {self.what} ({code}{said}).")


def _value(secret: str | SecretStr | None) -> str:
    if isinstance(secret, SecretStr):
        return secret.get_secret_value()
    return secret or ""


def _token_url(text: str) -> httpx.URL:
    problem = "token_url must be an http(s) URL such as https://host/oauth/token"
    try:
        url = httpx.URL(text)
    except (httpx.InvalidURL, TypeError, ValueError):
        raise RequestValidationError(problem, argument="token_url") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise RequestValidationError(problem, argument="token_url")
    if url.userinfo:
        raise RequestValidationError(
            "token_url must not carry a user or password (use client_id and client_secret)",
            argument="token_url",
        )
    return url

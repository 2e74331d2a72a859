"""`TokenEndpoint`: tokens from an OAuth2 token endpoint, through Authlib's httpx client.

Two grants (RFC 6749): `password` (a user's name and password) and `client_credentials`; the
client's id and secret go as HTTP Basic. The answer's `expires_in` says when to renew (shortly
before it runs out) and its `refresh_token`, when there is one, is used to renew; a refused
refresh falls back on the grant itself. A token the service refuses is renewed at once, once.

Every failure is one sentence naming the endpoint's host and the cause: slow, unreachable, an
answer that is not JSON (a login page) or larger than a token answer, a refusal (the endpoint's
OAuth2 `error` code and a sentence of ours saying what it means), a token that is not a bearer
token. The endpoint's own free text (`error_description`) is never shown: a careless endpoint
repeats the `Authorization: Basic base64(id:secret)` it was sent there. No secret (the client
secret, the password, a token, in any encoding) is ever in a message or a log line.

The whole exchange, from connecting to the answer's last byte, has one deadline (`timeout`): a
per-read timeout never fires for an endpoint that drips one byte a second, and renewal (every
page waiting on a token) would wait as long as it drips.
"""

from __future__ import annotations

import contextlib
import re
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from typing import Any, Literal

import httpx
from pydantic import SecretStr

from api_client._arguments import ssl_context
from api_client.errors import RequestValidationError, TokenError
from api_client.redaction import redact
from api_client.tokens.source import (
    LOG,
    Clock,
    Issued,
    RenewingSource,
    byte_size,
    lifetime,
    seconds,
    token_problem,
)

Grant = Literal["password", "client_credentials"]
GRANTS: tuple[Grant, ...] = ("password", "client_credentials")

# The whole exchange with the endpoint, connecting to the last byte of its answer. A token
# endpoint answers in well under a second; 15 s leaves room for a slow network and a busy
# endpoint, while a page waiting on renewal still says what is wrong before its viewer gives up.
TOKEN_ENDPOINT_DEADLINE = 15.0
# A token answer is a few kilobytes (a JWT with many claims, a refresh token, a scope); a larger
# answer is not one, and is not read into memory whole.
MAX_TOKEN_ANSWER_BYTES = 64 * 1024

# Refusals after which a refresh token is given up for the grant itself (RFC 6749 5.2).
_REFRESH_REFUSED = frozenset({"invalid_grant", "invalid_token", "unauthorized_client"})

# What each OAuth2 error code (RFC 6749 5.2, and 4.1.2.1's that endpoints also send) means, in
# our words: shown instead of the endpoint's own description, which may repeat a secret.
_REFUSAL_MEANINGS = {
    "invalid_request": "the endpoint found the request malformed",
    "invalid_client": "the client_id or client_secret was not accepted",
    "unauthorized_client": "this client_id may not use this grant",
    "unsupported_grant_type": "the endpoint does not offer this grant",
    "invalid_scope": "the scope was not accepted",
    "access_denied": "access was denied",
    "server_error": "the endpoint failed",
    "temporarily_unavailable": "the endpoint is temporarily unavailable",
    "invalid_token": "the token was not accepted",
}
# An error code the endpoint's standards do not name is shown when it is shaped as theirs are.
_OAUTH_CODE = re.compile(r"[a-z]+(?:_[a-z]+)+")
_INVALID_GRANT_MEANINGS = {
    "password": "the username or password was not accepted",
    "client_credentials": "the grant was not accepted",
    "refresh": "the refresh token has expired or was revoked",
}


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
        timeout: float = TOKEN_ENDPOINT_DEADLINE,
        max_answer_bytes: int = MAX_TOKEN_ANSWER_BYTES,
        verify: bool | str | ssl.SSLContext = True,
        renew_before: float = 60.0,
        retry_after: float = 5.0,
        clock: Clock = time.monotonic,
    ) -> None:
        """`timeout`: seconds for the whole exchange, connecting to the answer's last byte;
        `max_answer_bytes`: the largest answer read."""
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
        # What an endpoint may repeat back: the Basic credential it was sent is such a pair.
        self._pairs = tuple(
            SecretStr(f"{name}:{secret.get_secret_value()}")
            for name, secret in ((client_id, self._secret), (username, self._password))
            if name and secret.get_secret_value()
        )
        self._timeout = timeout
        self._max_answer_bytes = max_answer_bytes
        self._renew_before = renew_before
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
        }

    def _get(self, current: Issued | None) -> Issued:
        started = self._clock()
        if current is not None and current.refresh_token is not None:
            try:
                return self._issued(started, self._ask(refresh=current.refresh_token))
            except _Refused as refused:
                if refused.error not in _REFRESH_REFUSED:
                    raise self._refusal(refused) from None
                # The refresh token has expired or was revoked: the grant itself gets a new one.
        try:
            return self._issued(started, self._ask())
        except _Refused as refused:
            raise self._refusal(refused) from None

    def _ask(self, *, refresh: SecretStr | None = None) -> dict[str, Any]:
        """The endpoint's token answer, or a `TokenError` sentence (a refusal: `_Refused`)."""
        # Imported here: Authlib (and the cryptography it loads) is only needed by this source.
        from authlib.integrations.base_client import OAuthError
        from authlib.integrations.httpx_client import OAuth2Client

        what = "the refresh token" if refresh is not None else f"the {self._grant} grant"
        where = f"The token endpoint at {self.host}"
        exchange = _Exchange(self._timeout, self._max_answer_bytes)
        hooks = {"request": [exchange.on_request], "response": [exchange.on_response]}
        try:
            with exchange, OAuth2Client(**self._client_options, event_hooks=hooks) as oauth:
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
            # Its code only: its description is the endpoint's free text.
            raise _Refused(
                where, what, self._code(getattr(error, "error", None)), refresh is not None
            ) from None
        except _TooLarge:
            raise TokenError(
                f"{where} answered {what} with more than {byte_size(self._max_answer_bytes)}, "
                "which is no token answer."
            ) from None
        except httpx.HTTPError as error:
            if exchange.late() or isinstance(error, httpx.TimeoutException):
                raise TokenError(
                    f"{where} did not answer within {self._timeout:g} s while asked for {what}."
                ) from None
            raise self._http_problem(error, where, what) from None
        except ValueError:  # the body is not JSON: a login page, a proxy's error page
            status, kind = exchange.answer or (0, "")
            shown = f"HTTP {status}" + (f", {kind}" if kind else "")
            raise TokenError(
                f"{where} answered {what} with something that is not JSON ({shown}); is "
                "token_url the endpoint's own address?"
            ) from None
        if not isinstance(answer, dict):
            raise TokenError(f"{where} answered {what} with something that is not a JSON object.")
        return dict(answer)

    @staticmethod
    def _http_problem(error: httpx.HTTPError, where: str, what: str) -> TokenError:
        """The sentence for an HTTP failure that is not a refusal and not a timeout."""
        if isinstance(error, httpx.HTTPStatusError):
            return TokenError(
                f"{where} failed (HTTP {error.response.status_code}) while asked for {what}."
            )
        return TokenError(
            f"{where} could not be reached ({type(error).__name__}) while asked for {what}."
        )

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

    def _code(self, error: object) -> str:
        """The endpoint's OAuth2 error code when it is shaped as one (lower-case words joined
        by "_", as RFC 6749's and its extensions' are) and is none of our secrets; else "".
        Anything else in that field is the endpoint's free text (a careless one puts the
        credential it was sent there too)."""
        code = str(error or "").strip()
        if code in _REFUSAL_MEANINGS or code == "invalid_grant":
            return code
        if not _OAUTH_CODE.fullmatch(code) or redact(code, self._secrets()) != code:
            return ""
        return code

    def _refusal(self, refused: _Refused) -> TokenError:
        """The sentence for a refusal: the code, and what it means in our words."""
        if refused.error == "invalid_grant":
            meaning = _INVALID_GRANT_MEANINGS["refresh" if refused.refresh else self._grant]
        else:
            meaning = _REFUSAL_MEANINGS.get(refused.error, "")
        said = f"{refused.error}: {meaning}" if meaning else refused.error or "an unnamed error"
        return TokenError(f"{refused.where} refused {refused.what} ({said}).")

    def _secrets(self) -> tuple[str, ...]:
        """Everything of ours an endpoint might repeat: masked in any of its words we use."""
        held = [self._secret, self._password, *self._pairs]
        current = self._current
        if current is not None:
            held.append(current.value)
            if current.refresh_token is not None:
                held.append(current.refresh_token)
        return tuple(secret.get_secret_value() for secret in held)

    def __repr__(self) -> str:
        return f"TokenEndpoint(host={self.host!r}, grant={self._grant!r})"


class _Refused(Exception):
    """The endpoint refused (an OAuth2 error answer): its `error` code ("" when it gave none
    that can be shown), and whether a refresh token was refused."""

    def __init__(self, where: str, what: str, error: str, refresh: bool) -> None:
        super().__init__(error)
        self.where, self.what, self.error, self.refresh = where, what, error, refresh


class _TooLarge(Exception):
    """The endpoint's answer is larger than a token answer."""


class _Exchange:
    """One request to the endpoint, held to its deadline and size cap.

    A timer at the deadline shuts the connection's socket down, which ends a read blocked on an
    endpoint that drips its status line, headers or body (a per-read timeout never fires while
    bytes keep coming); the answer's body is also counted and timed chunk by chunk. Also notes
    the answer's status and content type (for the sentence when it is not JSON: Authlib's own
    error says neither).
    """

    def __init__(self, deadline: float, max_bytes: int) -> None:
        self.until = time.monotonic() + deadline
        self.max_bytes = max_bytes
        self.answer: tuple[int, str] | None = None
        self._expired = threading.Event()
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(deadline, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> _Exchange:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()

    def late(self) -> bool:
        """Whether the deadline has passed (the connection was, or is about to be, cut)."""
        return self._expired.is_set() or time.monotonic() >= self.until

    def on_request(self, request: httpx.Request) -> None:
        # httpcore reports each connection it opens to a request's `trace` extension.
        request.extensions["trace"] = self._trace
        # The cap counts the bytes as they arrive: a compressed answer would be counted small.
        request.headers["Accept-Encoding"] = "identity"

    def on_response(self, response: httpx.Response) -> None:
        kind = response.headers.get("content-type", "").split(";")[0].strip()
        self.answer = (response.status_code, kind if len(kind) <= 60 else "")
        declared = response.headers.get("content-length", "").strip()
        if declared.isdigit() and int(declared) > self.max_bytes:
            raise _TooLarge
        if isinstance(response.stream, httpx.SyncByteStream):  # always: the client is sync
            response.stream = _BoundedStream(response.stream, self)

    def _trace(self, event: str, info: dict[str, Any]) -> None:
        if event not in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            return
        stream = info.get("return_value")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if not isinstance(sock, socket.socket):
            return
        with self._lock:
            self._sockets.append(sock)
            expired = self._expired.is_set()
        if expired:
            _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self._expired.set()
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)


class _BoundedStream(httpx.SyncByteStream):
    """An answer's body, given up past the exchange's deadline or size cap."""

    def __init__(self, inner: httpx.SyncByteStream, exchange: _Exchange) -> None:
        self._inner = inner
        self._exchange = exchange

    def __iter__(self) -> Iterator[bytes]:
        size = 0
        for chunk in self._inner:
            size += len(chunk)
            if size > self._exchange.max_bytes:
                raise _TooLarge
            if self._exchange.late():
                raise httpx.ReadTimeout("the token endpoint's deadline passed")
            yield chunk

    def close(self) -> None:
        self._inner.close()


def _shut(sock: socket.socket) -> None:
    """End every read and write on `sock` now, from any thread (closing it would not wake a
    thread blocked reading it)."""
    with contextlib.suppress(OSError):  # closed already
        sock.shutdown(socket.SHUT_RDWR)


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

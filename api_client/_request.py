"""The request loop: send one GET, read its answer within bounds, turn it into models or a
typed error, and retry as told.

Every operation goes through `RequestLoop.get`, so there is one place where a request is sent,
one where a response is read, and one loop that retries within the call's deadline (the
decisions themselves are the pure functions of `api_client.retry`).

A service can misbehave in ways a timeout per read does not catch: a body that drips one byte at
a time, a body of gigabytes. So a response is read as a stream, against a wall-clock budget
(`response_deadline`) and a size limit (`max_response_bytes`), both checked between chunks.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TypeVar

import httpx
from pydantic import SecretStr

from api_client.auth import BearerAuth, RedactBearerFilter
from api_client.errors import (
    ApiConnectionError,
    ApiError,
    ApiTimeoutError,
    AuthenticationError,
    ResponseValidationError,
    TokenError,
    error_from_response,
    first_line,
)
from api_client.operations import Operation
from api_client.redaction import redact
from api_client.retry import RetryPolicy, retry_delay, should_retry

LOG = logging.getLogger("api_client")
LOG.addFilter(RedactBearerFilter())

T = TypeVar("T")

Parse = Callable[[bytes], T]
"""Turns a successful response's body into the operation's result, or raises
`ResponseValidationError`; it runs inside the loop, so a body cut short in transit is retried."""

# An error body is read for its code and message; the rest of a huge one is not needed.
_MAX_ERROR_BODY_BYTES = 1024 * 1024


class Abandoned(Exception):  # not an error: the caller stopped waiting
    """The caller gave up on this request (a walk that ended); nobody waits for its answer."""


class RequestLoop:
    """Sends the client's GETs to one base URL, with its token and company, and retries them."""

    def __init__(
        self,
        *,
        http: httpx.Client,
        auth: BearerAuth,
        base_url: str,
        company_id: int,
        timeout: httpx.Timeout,
        policy: RetryPolicy,
        response_deadline: float,
        max_response_bytes: int,
        secrets: tuple[str, ...],
    ) -> None:
        self._http = http
        self._auth = auth
        self._base_url = base_url
        self._company_id = company_id
        self._timeout = timeout
        self._policy = policy
        self._response_deadline = response_deadline
        self._max_response_bytes = max_response_bytes
        self._secrets = secrets
        url = httpx.URL(base_url)
        # Scheme, host and port only: never a password the base URL may carry.
        self.origin = f"{url.scheme}://{url.netloc.decode('ascii')}"

    def get(
        self,
        operation: Operation,
        path: str,
        params: dict[str, str] | None,
        *,
        company_header: bool,
        parse: Parse[T],
        stop: threading.Event | None = None,
    ) -> T:
        """GET `path` and parse its body, retrying as the policy says within its deadline.

        Setting `stop` abandons the call at the next chunk or back-off (raises `Abandoned`).
        """
        url = self._base_url + path
        headers = {"current-company-id": str(self._company_id)} if company_header else {}
        deadline = time.monotonic() + self._policy.deadline
        attempt = 0
        renewed = False
        while True:
            if stop is not None and stop.is_set():
                raise Abandoned  # a page whose walk ended before it was sent is not sent
            token = self._auth.source.token()
            try:
                return self._send_once(
                    operation, url, params, headers, token, parse, deadline, stop
                )
            except AuthenticationError:
                # Refused: a source that renews gets one more try with a new token (a walk that
                # crosses an expiry goes on where it was); a static token's refusal is final.
                if renewed:
                    raise
                try:
                    again = self._auth.source.refused(token)
                except TokenError as problem:
                    raise problem from None  # why no new token came is the whole story
                if not again:
                    raise
                LOG.info("the service refused the token; sending %s again", operation.value)
                renewed = True
            except ApiError as error:
                if not should_retry(error, attempt, self._policy):
                    raise
                delay = retry_delay(attempt, getattr(error, "retry_after", None), self._policy)
                if time.monotonic() + delay > deadline:
                    raise
                LOG.info(
                    "retrying %s in %.2fs (retry %d of %d) after %s: %s",
                    operation.value,
                    delay,
                    attempt + 1,
                    self._policy.max_retries,
                    type(error).__name__,
                    error.message,
                )
                if stop is None:
                    time.sleep(delay)
                elif stop.wait(delay):
                    raise Abandoned from None
                attempt += 1

    def _send_once(
        self,
        operation: Operation,
        url: str,
        params: dict[str, str] | None,
        headers: dict[str, str],
        token: SecretStr,
        parse: Parse[T],
        call_deadline: float,
        stop: threading.Event | None,
    ) -> T:
        secrets = (*self._secrets, token.get_secret_value())
        started = time.monotonic()
        # The whole response, from sending to its last byte, within the budget; and never past
        # the call's own deadline, so retries cannot stretch a call beyond it either.
        budget = min(self._response_deadline, call_deadline - started)
        if budget <= 0:
            raise self._timeout_error(operation, "no time was left for another attempt")
        until = started + budget
        try:
            request = self._http.build_request(
                "GET", url, params=params, headers=headers, timeout=self._timeout_within(budget)
            )
            self._auth.sign(request, token)
            response = self._http.send(request, auth=None, stream=True, follow_redirects=False)
            try:
                limit = (
                    self._max_response_bytes
                    if response.is_success
                    else min(self._max_response_bytes, _MAX_ERROR_BODY_BYTES)
                )
                body = self._read(response, operation, limit, (started, until), stop)
            finally:
                response.close()
        except httpx.TimeoutException as exc:
            raise self._timeout_error(operation, type(exc).__name__) from None
        except httpx.DecodingError:
            raise ResponseValidationError(
                f"The {operation.label} response from {self.origin} could not be decoded "
                "(its compression is damaged)",
                operation=operation,
                transient=True,
            ) from None
        except httpx.RequestError as exc:
            raise ApiConnectionError(
                f"Could not get {operation.label} from {self.origin}: "
                f"{type(exc).__name__}: {redact(first_line(exc), secrets)}",
                operation=operation,
            ) from None
        LOG.debug(
            "GET %s -> %d in %.0f ms",
            request.url.raw_path.decode("ascii", errors="replace"),
            response.status_code,
            (time.monotonic() - started) * 1000,
        )
        if not response.is_success:
            raise error_from_response(response, operation, body=body, secrets=secrets)
        return parse(body)

    def _read(
        self,
        response: httpx.Response,
        operation: Operation,
        limit: int,
        window: tuple[float, float],
        stop: threading.Event | None,
    ) -> bytes:
        """The body, read chunk by chunk against the size limit, the clock and `stop`."""
        started, until = window
        declared = response.headers.get("content-length", "")
        if response.is_success and declared.isdigit() and int(declared) > limit:
            raise self._too_large(operation, limit)
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():  # decompressed: a zip bomb counts at full size
            size += len(chunk)
            if size > limit:
                if not response.is_success:
                    break  # an error's code and message are at its start
                raise self._too_large(operation, limit)
            chunks.append(chunk)
            if stop is not None and stop.is_set():
                raise Abandoned
            if time.monotonic() > until:
                raise self._timeout_error(
                    operation, f"no complete answer within {until - started:.3g} s"
                )
        return b"".join(chunks)

    def _timeout_within(self, budget: float) -> httpx.Timeout:
        """The configured timeouts, none longer than the time left for this response."""

        def capped(value: float | None) -> float:
            return budget if value is None else min(value, budget)

        return httpx.Timeout(
            connect=capped(self._timeout.connect),
            read=capped(self._timeout.read),
            write=capped(self._timeout.write),
            pool=capped(self._timeout.pool),
        )

    def _timeout_error(self, operation: Operation, detail: str) -> ApiTimeoutError:
        return ApiTimeoutError(
            f"The {operation.label} request to {self.origin} timed out: the service did not "
            f"answer in time ({detail})",
            operation=operation,
        )

    def _too_large(self, operation: Operation, limit: int) -> ResponseValidationError:
        return ResponseValidationError(
            f"The {operation.label} response from {self.origin} is larger than the client's "
            f"limit of {limit / 2**20:g} MiB (max_response_bytes); ask for smaller pages",
            operation=operation,
        )

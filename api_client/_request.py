"""The request loop: send one GET, turn its answer into JSON or a typed error, retry as told.

Every operation goes through `RequestLoop.get`, so there is one place where a request is sent,
one where a response is decoded, and one loop that retries within the call's deadline (the
decisions themselves are the pure functions of `api_client.retry`).
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import httpx

from api_client.auth import BearerAuth, RedactBearerFilter
from api_client.errors import (
    ApiConnectionError,
    ApiError,
    ApiTimeoutError,
    ResponseValidationError,
    error_from_response,
    redact,
)
from api_client.operations import Operation
from api_client.retry import RetryPolicy, retry_delay, should_retry

LOG = logging.getLogger("api_client")
LOG.addFilter(RedactBearerFilter())


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
    ) -> None:
        self._http = http
        self._auth = auth
        self._base_url = base_url
        self._company_id = company_id
        self._timeout = timeout
        self._policy = policy

    def get(
        self,
        operation: Operation,
        path: str,
        params: dict[str, str] | None = None,
        *,
        company_header: bool,
    ) -> Any:
        """GET `path`, retrying as the policy says, and return the decoded JSON body."""
        url = self._base_url + path
        headers = {"current-company-id": str(self._company_id)} if company_header else {}
        deadline = time.monotonic() + self._policy.deadline
        attempt = 0
        while True:
            try:
                return self._send_once(operation, url, params, headers)
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
                time.sleep(delay)
                attempt += 1

    def _send_once(
        self,
        operation: Operation,
        url: str,
        params: dict[str, str] | None,
        headers: dict[str, str],
    ) -> Any:
        started = time.monotonic()
        try:
            response = self._http.get(
                url, params=params, headers=headers, auth=self._auth, timeout=self._timeout
            )
        except httpx.TimeoutException as exc:
            raise ApiTimeoutError(
                f"The {operation.label} request to {self.origin_text()} timed out "
                f"({type(exc).__name__})",
                operation=operation,
            ) from None
        except httpx.TransportError as exc:
            raise ApiConnectionError(
                f"Could not get {operation.label} from {self.origin_text()}: "
                f"{type(exc).__name__}: {redact(first_line(exc), self._auth.secrets)}",
                operation=operation,
            ) from None
        LOG.debug(
            "GET %s -> %d in %.0f ms",
            response.request.url.copy_with(scheme=None, host=None, port=None),
            response.status_code,
            (time.monotonic() - started) * 1000,
        )
        if not response.is_success:
            raise error_from_response(response, operation, secrets=self._auth.secrets)
        try:
            return json.loads(response.content)
        except ValueError:  # also UnicodeDecodeError
            body = response.content.lstrip()
            raise ResponseValidationError(
                f"The {operation.label} response from {self.origin_text()} is not valid JSON "
                f"({len(response.content)} bytes)",
                operation=operation,
                # A body that begins like JSON but does not parse was cut short in transit.
                transient=body[:1] in (b"{", b"["),
            ) from None

    def origin_text(self) -> str:
        url = httpx.URL(self._base_url)
        return f"{url.scheme}://{url.netloc.decode('ascii')}"


def first_line(exc: Exception) -> str:
    """The first line of an exception's text, shortened: enough to say what went wrong."""
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else "no details"

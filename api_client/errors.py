"""The exception tree, and the one function that turns an HTTP response into a typed error.

Reading the code and message out of a body of any shape is `api_client.error_body`'s work;
which class a (status, code) pair becomes is decided here, in `error_for_status`.

Every error the client raises is an `ApiError`. Status errors carry the evidence a caller needs
to react (`status_code`, the service's `code`, the `operation`) and a readable message. No
message ever contains the bearer token: messages are built from the status, the code and the
service's own message text, never from request headers.
"""

from __future__ import annotations

import httpx

from api_client.error_body import ErrorBodyReader, short
from api_client.headers import retry_after_seconds
from api_client.operations import Operation
from api_client.redaction import redact


class ApiError(Exception):
    """Base of every error raised by the client."""

    def __init__(self, message: str, *, operation: Operation | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.operation = operation


class RequestValidationError(ApiError, ValueError):
    """The call's arguments are invalid; raised before any request is sent.

    `argument` names the argument at fault as the caller wrote it ("token", "company_id",
    "base_url", "page", ...; an `ExecutionQuery` field's own name, such as "date_from", for a
    filter), so a caller can say which input to fix. The message says what is wrong with it and
    never repeats a secret (a token, a password in the URL, an e-mail address).
    """

    def __init__(
        self,
        message: str,
        *,
        argument: str | None = None,
        operation: Operation | None = None,
    ) -> None:
        super().__init__(message, operation=operation)
        self.argument = argument


class TokenError(ApiError):
    """The client's token source could not give a token: a token file that is missing or
    empty, a token command that failed or hung, a token endpoint that refused or could not be
    reached. The message is one sentence naming the source (a file's path, a command's
    program, an endpoint's host) and the cause, never a secret. Not retried by the request loop:
    the source itself decides when to try again.
    """


class ApiConnectionError(ApiError):
    """The service could not be reached, or the connection broke before a full response."""


class ApiTimeoutError(ApiConnectionError):
    """The service did not answer in time: a connect or read timeout, or a response that was
    still arriving when the client's per-response deadline (`response_deadline`) ran out."""


class ResponseValidationError(ApiError):
    """A successful response whose body does not fit the expected shape (not JSON, wrong type).

    `transient` is true when the body looks damaged in transit (cut-off JSON), so a retry may
    get a whole one; a well-formed body of the wrong shape will not improve and is not retried.
    """

    def __init__(
        self, message: str, *, operation: Operation | None = None, transient: bool = False
    ) -> None:
        super().__init__(message, operation=operation)
        self.transient = transient


class ApiStatusError(ApiError):
    """The service answered with an error status."""

    def __init__(
        self,
        message: str,
        *,
        status_code: int,
        code: str | None,
        operation: Operation | None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, operation=operation)
        self.status_code = status_code
        self.code = code
        self.retry_after = retry_after

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(status_code={self.status_code}, code={self.code!r}, "
            f"operation={self.operation!r}, message={self.message!r})"
        )


class RedirectError(ApiStatusError):
    """3xx: the service redirected the request. Never followed (it could carry the token
    elsewhere) nor retried (the same request gets the same answer): the base URL is likely not
    the API's own address. `location_origin` is where it pointed, scheme, host and port only
    (a path or query may carry a ticket), or None when the answer named no usable place.
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int,
        code: str | None,
        operation: Operation | None,
        retry_after: float | None = None,
        location_origin: str | None = None,
    ) -> None:
        super().__init__(
            message,
            status_code=status_code,
            code=code,
            operation=operation,
            retry_after=retry_after,
        )
        self.location_origin = location_origin


class InvalidRequestError(ApiStatusError):
    """400: the service found the request malformed (`INVALID_REQUEST`)."""


class AuthenticationError(ApiStatusError):
    """401 without a service code: the token is missing, invalid or expired."""


class PermissionDeniedError(ApiStatusError):
    """`ACCESS_DENIED`: the user lacks the operation's authority (401 on results, 403 otherwise)."""

    @property
    def missing_authority(self) -> str | None:
        return self.operation.authority if self.operation else None


class UnauthorizedUserError(ApiStatusError):
    """403 `UNAUTHORIZED_USER`: the e-mail filter is not the authenticated user's own address."""


class NotFoundError(ApiStatusError):
    """404."""


class ExecutionNotFoundError(NotFoundError):
    """404 `EXECUTION_NOT_FOUND`: no execution with the given id."""


class ScenarioNotFoundError(NotFoundError):
    """404 `TEST_SCENARIO_NOT_FOUND`: no scenario with the given id."""


class NoExecutionsMatchError(NotFoundError):
    """404 `TEST_EXECUTION_NOT_FOUND`: no execution matches the filter.

    `ApiClient.executions()` and `all_executions()` turn this into an empty answer; it only
    reaches callers of the low-level request method.
    """


class RateLimitError(ApiStatusError):
    """429: too many requests. `retry_after` holds the service's hint in seconds, if any."""


class ServerError(ApiStatusError):
    """5xx: the service failed."""


class CompanyNotFoundError(ServerError):
    """500 `USERS_COMPANY_NOT_EXISTS`: the user's company does not exist."""


class InternalServerError(ServerError):
    """500 `SYSTEM_INTERNAL_ERROR` (results, plans) or `INTERNAL_SERVER_ERROR` (filter)."""


# The codes of spec section 7. A code is looked up first; an unknown or absent code falls back to
# a class chosen by status. ACCESS_DENIED maps to one class whatever its status (401 on results,
# 403 elsewhere), and both internal-error spellings map to one class.
_CLASS_BY_CODE: dict[str, type[ApiStatusError]] = {
    "INVALID_REQUEST": InvalidRequestError,
    "ACCESS_DENIED": PermissionDeniedError,
    "UNAUTHORIZED_USER": UnauthorizedUserError,
    "EXECUTION_NOT_FOUND": ExecutionNotFoundError,
    "TEST_SCENARIO_NOT_FOUND": ScenarioNotFoundError,
    "TEST_EXECUTION_NOT_FOUND": NoExecutionsMatchError,
    "USERS_COMPANY_NOT_EXISTS": CompanyNotFoundError,
    "SYSTEM_INTERNAL_ERROR": InternalServerError,
    "INTERNAL_SERVER_ERROR": InternalServerError,
}

_CLASS_BY_STATUS: dict[int, type[ApiStatusError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    429: RateLimitError,
}

# What the body reader looks for: the codes above, wherever the body puts them.
_BODY_READER = ErrorBodyReader(frozenset(_CLASS_BY_CODE))


def error_for_status(
    *,
    status_code: int,
    code: str | None,
    operation: Operation | None,
    service_message: str | None = None,
    retry_after: float | None = None,
    location_origin: str | None = None,
) -> ApiStatusError:
    """Choose the exception class for a status and service code, and word its message."""
    what = f"{operation.label} request" if operation else "request"
    if 300 <= status_code < 400:
        # Whatever the body says, a redirect means the base URL is not the API's address.
        where = location_origin or "another address"
        return RedirectError(
            f"The {what} was redirected (HTTP {status_code}): the service redirected to "
            f"{where}; check the base URL",
            status_code=status_code,
            code=None,
            operation=operation,
            location_origin=location_origin,
        )
    cls = _CLASS_BY_CODE.get(code or "")
    if cls is None:
        cls = _CLASS_BY_STATUS.get(status_code)
    if cls is None:
        cls = ServerError if status_code >= 500 else ApiStatusError
    parts = [f"The {what} failed with HTTP {status_code}"]
    if code:
        parts[0] += f" ({code})"
    if service_message:
        parts.append(service_message)
    return cls(
        ": ".join(parts),
        status_code=status_code,
        code=code,
        operation=operation,
        retry_after=retry_after,
    )


def error_from_response(
    response: httpx.Response,
    operation: Operation | None,
    *,
    body: bytes | None = None,
    secrets: tuple[str, ...] = (),
) -> ApiStatusError:
    """Turn an error response into a typed `ApiStatusError`: the one place that does this.

    `body` is the response's body when it was read as a stream (else `response.content`).
    `secrets` are kept out of the error, in case a service echoes a credential back: masked in
    the service's text, and never taken for a code.
    """
    if body is None:
        body = response.content
    if response.is_redirect or 300 <= response.status_code < 400:
        return error_for_status(
            status_code=response.status_code,
            code=None,
            operation=operation,
            location_origin=_location_origin(response),
        )
    code, service_message = _BODY_READER.code_and_message(body, _charset(response))
    secrets = tuple(secret for secret in secrets if secret)
    if code and redact(code, secrets) != code:
        code = None
    if service_message:
        # Masked before it is cut short: a secret cut in half would not be found.
        service_message = short(redact(service_message, secrets))
    return error_for_status(
        status_code=response.status_code,
        code=code,
        operation=operation,
        service_message=service_message,
        retry_after=retry_after_seconds(response.headers),
    )


def first_line(exc: Exception) -> str:
    """The first line of an exception's text, shortened: enough to say what went wrong."""
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else "no details"


def _location_origin(response: httpx.Response) -> str | None:
    """Scheme, host and port of a redirect's target: the rest may carry a ticket or a token."""
    location = response.headers.get("location", "").strip()
    if not location:
        return None
    try:
        target = response.request.url.join(location)
    except (httpx.InvalidURL, ValueError):
        return None
    if target.scheme not in ("http", "https") or not target.host:
        return None
    port = f":{target.port}" if target.port else ""
    return f"{target.scheme}://{target.host}{port}"


def _charset(response: httpx.Response) -> str:
    return response.charset_encoding or "utf-8"

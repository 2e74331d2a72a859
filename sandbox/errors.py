"""Every error the sandbox answers, in the shapes the real platform uses.

Service errors carry `{"error": "<CODE>", "message": "<text>"}`. Authentication failures come
from the security layer instead, shaped like Spring Security's OAuth2 401 body, since the
product notes warn that clients will meet such a framework body.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from sandbox.operations import DEFAULT_INTERNAL_ERROR_CODE, RULES, Operation, OperationMatcher
from sandbox.schemas import AuthErrorBody, ErrorBody

INVALID_REQUEST = "INVALID_REQUEST"
ACCESS_DENIED = "ACCESS_DENIED"


class ApiError(Exception):
    """A service error with the spec's HTTP status and error code."""

    def __init__(self, status_code: int, code: str, message: str) -> None:
        super().__init__(f"{status_code} {code}: {message}")
        self.status_code = status_code
        self.code = code
        self.message = message

    @classmethod
    def access_denied(cls, operation: Operation) -> ApiError:
        rules = RULES[operation]
        return cls(
            rules.access_denied_status,
            ACCESS_DENIED,
            f"Access is denied: the user lacks the {rules.authority} authority",
        )

    @classmethod
    def invalid_request(cls, message: str) -> ApiError:
        return cls(400, INVALID_REQUEST, message)


class AuthenticationError(Exception):
    """No usable bearer token: answered by the "security layer", before any operation runs."""

    def __init__(self, error: str, description: str) -> None:
        super().__init__(f"{error}: {description}")
        self.error = error
        self.description = description

    @classmethod
    def missing(cls) -> AuthenticationError:
        return cls("unauthorized", "Full authentication is required to access this resource")

    @classmethod
    def invalid(cls, description: str) -> AuthenticationError:
        return cls("invalid_token", description)

    @property
    def www_authenticate(self) -> str:
        # RFC 6750 section 3: no error attribute when the request carried no credentials.
        if self.error == "unauthorized":
            return 'Bearer realm="sandbox"'
        return (
            f'Bearer realm="sandbox", error="{self.error}", error_description="{self.description}"'
        )


def error_body(code: str, message: str) -> bytes:
    """The service's error body, also used by the fault injector for injected 500s."""
    return json.dumps(ErrorBody(error=code, message=message).model_dump()).encode()


def install_error_handlers(app: FastAPI, matcher: OperationMatcher) -> None:
    async def on_api_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return _json(exc.status_code, ErrorBody(error=exc.code, message=exc.message))

    async def on_authentication_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, AuthenticationError)
        return _json(
            401,
            AuthErrorBody(error=exc.error, error_description=exc.description),
            headers={"WWW-Authenticate": exc.www_authenticate},
        )

    async def on_validation_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        message = "; ".join(_describe(error) for error in exc.errors())
        return _json(400, ErrorBody(error=INVALID_REQUEST, message=message))

    async def on_http_error(request: Request, exc: Exception) -> JSONResponse:
        # Unknown paths and methods: the framework's 404/405, in the service's error shape.
        assert isinstance(exc, StarletteHTTPException)
        code = HTTPStatus(exc.status_code).name
        return _json(exc.status_code, ErrorBody(error=code, message=str(exc.detail)), exc.headers)

    async def on_unexpected_error(request: Request, exc: Exception) -> JSONResponse:
        # The framework logs the exception after this; the body names only the operation's code.
        operation = matcher.match(request.url.path)
        code = RULES[operation].internal_error_code if operation else DEFAULT_INTERNAL_ERROR_CODE
        return _json(500, ErrorBody(error=code, message="Unexpected error while processing"))

    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(AuthenticationError, on_authentication_error)
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(StarletteHTTPException, on_http_error)
    app.add_exception_handler(Exception, on_unexpected_error)


def _json(
    status_code: int, body: ErrorBody | AuthErrorBody, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(body.model_dump(), status_code=status_code, headers=headers)


def _describe(error: Any) -> str:
    """One validation error as a sentence naming the parameter, e.g. "query parameter 'page'"."""
    location = [str(part) for part in error.get("loc", ())]
    where = " ".join(location[:1]) or "request"
    name = ".".join(location[1:])
    subject = f"{where} parameter '{name}'" if name else where
    if error.get("type") == "missing":
        return f"{subject} is required"
    return f"{subject}: {error.get('msg', 'is invalid')}"

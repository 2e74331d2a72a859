"""Request dependencies: who is calling, may they, and for which company.

Routers declare the authority guard, so checks run in a fixed order: bearer token (401),
authority (the operation's ACCESS_DENIED), company header (400 INVALID_REQUEST), company
membership (403 ACCESS_DENIED), the other parameters (400), then the operation's own rules.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Annotated, cast

from fastapi import Depends, Header, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BeforeValidator

from sandbox.auth import Authenticator, DemoUser
from sandbox.errors import ACCESS_DENIED, ApiError, AuthenticationError
from sandbox.operations import RULES, Operation
from sandbox.settings import SandboxSettings
from sandbox.store import DemoStore
from sandbox.tokens import TokenExpired

# Identifiers are Java longs on the service; out-of-range values are malformed, not unknown.
LONG_MIN = -(2**63)
LONG_MAX = 2**63 - 1
_JAVA_INTEGER = re.compile(r"[+-]?[0-9]+")


def _java_integer(value: object) -> object:
    if isinstance(value, str) and not _JAVA_INTEGER.fullmatch(value):
        raise ValueError("must be a whole number")
    return value


# Put after Query/Path/Header in `Annotated[...]`: integers as Java parses them, so "1.0" or
# " 1" is malformed rather than quietly read as 1 (pydantic alone would accept them).
WHOLE_NUMBER = BeforeValidator(_java_integer)

# Only declares the scheme, so /docs offers an "Authorize" box; the checks are ours.
_bearer = HTTPBearer(
    auto_error=False,
    description="A demo user's token, as listed by `python -m sandbox users`, or one that "
    "POST /oauth/token issued.",
)


def get_store(request: Request) -> DemoStore:
    return cast(DemoStore, request.app.state.store)


def get_settings(request: Request) -> SandboxSettings:
    return cast(SandboxSettings, request.app.state.settings)


async def current_user(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> DemoUser:
    if credentials is None:
        if "authorization" in request.headers:
            raise AuthenticationError.invalid("The Authorization header is not a bearer token")
        raise AuthenticationError.missing()
    authenticator = cast(Authenticator, request.app.state.authenticator)
    try:
        user = authenticator.authenticate(credentials.credentials)
    except TokenExpired:
        # As Spring's token services word it, token and all: a client must keep it out of
        # whatever it shows.
        raise AuthenticationError.invalid(
            f"Access token expired: {credentials.credentials}"
        ) from None
    if user is None:
        raise AuthenticationError.invalid("Invalid access token")
    return user


def authority_guard(operation: Operation) -> Callable[[DemoUser], Awaitable[DemoUser]]:
    """A dependency admitting only users holding the operation's authority."""
    authority = RULES[operation].authority

    async def guard(user: Annotated[DemoUser, Depends(current_user)]) -> DemoUser:
        if not user.can(authority):
            raise ApiError.access_denied(operation)
        return user

    return guard


async def current_company(
    user: Annotated[DemoUser, Depends(current_user)],
    company_id: Annotated[
        int,
        Header(
            alias="current-company-id",
            ge=LONG_MIN,
            le=LONG_MAX,
            description="The caller's own company id; any other 64-bit integer is 403"
            " ACCESS_DENIED, anything else 400 INVALID_REQUEST",
        ),
        WHOLE_NUMBER,
    ],
) -> int:
    """The company named by the header, which must be the caller's own: never another's data."""
    if company_id != user.company_id:
        raise ApiError(403, ACCESS_DENIED, f"Access is denied to company {company_id}")
    return company_id

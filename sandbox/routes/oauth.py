"""POST /oauth/token: an OAuth2 token endpoint for the demo users (RFC 6749).

Grants: `password` (a demo user's username and password) and `client_credentials` (a demo user
as its own client), and `refresh_token`. The client authenticates with HTTP Basic: client id =
a demo user's username, secret = its `client_secret` (`python -m sandbox users` lists both).
The access tokens it issues expire after the sandbox's `token_ttl`; a request with an expired
one is answered with the security layer's 401 body, as any bad token is.
"""

from __future__ import annotations

from typing import Annotated, Any, cast

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPBasic, HTTPBasicCredentials

from sandbox.auth import Authenticator, DemoUser
from sandbox.schemas import AuthErrorBody, TokenAnswer
from sandbox.tokens import IssuedTokens

TOKEN_PATH = "/oauth/token"  # noqa: S105 - a path
SCOPE = "read"
GRANT_TYPES = ("password", "client_credentials", "refresh_token")

router = APIRouter(tags=["oauth"])


class _ClientCredentials(HTTPBasic):
    """HTTP Basic client authentication, declared for the document; never answers by itself
    (a missing or malformed header is the endpoint's own `invalid_client`)."""

    async def __call__(self, request: Request) -> HTTPBasicCredentials | None:  # type: ignore[override]
        try:
            return await super().__call__(request)
        except HTTPException:
            return None


_client_basic = _ClientCredentials(
    auto_error=False,
    scheme_name="clientBasic",
    realm="sandbox",
    description="A demo user's username and client_secret, as `python -m sandbox users` lists.",
)

RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {
        "model": AuthErrorBody,
        "description": "invalid_request, unsupported_grant_type, invalid_grant or invalid_scope",
    },
    401: {"model": AuthErrorBody, "description": "invalid_client: missing or wrong client"},
}


def _refusal(status: int, error: str, description: str) -> JSONResponse:
    headers = {"Cache-Control": "no-store", "Pragma": "no-cache"}
    if status == 401:
        headers["WWW-Authenticate"] = 'Basic realm="sandbox"'
    body = AuthErrorBody(error=error, error_description=description).model_dump()
    return JSONResponse(body, status_code=status, headers=headers)


# Written out rather than derived from form parameters: the grant types and the scope are
# enumerations, and every refusal, even of a malformed body, is the endpoint's own OAuth2 body.
REQUEST_BODY = {
    "required": True,
    "content": {
        "application/x-www-form-urlencoded": {
            "schema": {
                "type": "object",
                "required": ["grant_type"],
                "properties": {
                    "grant_type": {"type": "string", "enum": list(GRANT_TYPES)},
                    "username": {"type": "string", "description": "password grant"},
                    "password": {"type": "string", "description": "password grant"},
                    "refresh_token": {"type": "string", "description": "refresh_token grant"},
                    "scope": {"type": "string", "enum": [SCOPE]},
                },
            }
        }
    },
}


@router.post(
    TOKEN_PATH,
    response_model=TokenAnswer,
    response_model_exclude_none=True,
    responses=RESPONSES,
    openapi_extra={"requestBody": REQUEST_BODY},
    summary="An access token for a demo user (password, client_credentials, refresh_token)",
)
async def token(
    request: Request,
    credentials: Annotated[HTTPBasicCredentials | None, Depends(_client_basic)],
) -> Any:
    """The client authenticates with HTTP Basic; the answer's `expires_in` is the sandbox's
    token lifetime. `client_credentials` answers carry no refresh token (RFC 6749 4.4.3)."""
    authenticator = cast(Authenticator, request.app.state.authenticator)
    issued = cast(IssuedTokens, request.app.state.tokens)
    client = (
        authenticator.client(credentials.username, credentials.password) if credentials else None
    )
    if client is None:
        return _refusal(401, "invalid_client", "Bad client credentials")
    form = await request.form()
    field = {
        name: value if isinstance(value, str) else None
        for name in ("grant_type", "username", "password", "refresh_token", "scope")
        for value in [form.get(name)]
    }
    grant_type = field["grant_type"]
    if grant_type not in GRANT_TYPES:
        if not grant_type:
            return _refusal(400, "invalid_request", "Missing grant type")
        return _refusal(400, "unsupported_grant_type", "Unsupported grant type")
    scope = field["scope"]
    if scope is not None and set(scope.split()) - {SCOPE}:
        return _refusal(400, "invalid_scope", f"Invalid scope; the only scope is {SCOPE}")
    if grant_type == "refresh_token":
        refresh_token = field["refresh_token"]
        if not refresh_token:
            return _refusal(400, "invalid_request", "Missing refresh_token")
        grant = issued.refresh(refresh_token, client)
        if grant is None:
            return _refusal(400, "invalid_grant", "Invalid refresh token")
    else:
        user: DemoUser | None = client
        if grant_type == "password":
            username, password = field["username"], field["password"]
            if not username or password is None:
                return _refusal(400, "invalid_request", "Missing username or password")
            user = authenticator.password_user(username, password)
            if user is None:
                return _refusal(400, "invalid_grant", "Bad credentials")
        assert user is not None
        grant = issued.issue(user, client, with_refresh=grant_type == "password")
    answer = TokenAnswer(
        access_token=grant.access_token,
        expires_in=grant.expires_in,
        refresh_token=grant.refresh_token,
        scope=SCOPE,
    )
    return JSONResponse(
        answer.model_dump(exclude_none=True),
        headers={"Cache-Control": "no-store", "Pragma": "no-cache"},
    )

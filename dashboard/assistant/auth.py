"""Who may ask over HTTP: a bearer token from the dashboard's own sign-in provider (the OpenID
Connect provider of `[auth]` in `.streamlit/secrets.toml`), verified against its published keys,
issued to the dashboard's client id, unexpired, and naming an address the sign-in rule admits
(`data.signin.admission`: the same allowed emails and domains, verified addresses only).

The token is an ID token (or a JWT access token with the same claims) the viewer's assistant
got from that provider. Nothing of it is logged or kept beyond the request; a refusal is the
SDK's plain 401, which says nothing about why.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio.to_thread
import httpx
import jwt
from mcp.server.auth.provider import AccessToken

from dashboard.data import signin

logger = logging.getLogger(__name__)
ALGORITHMS = ["RS256", "RS384", "RS512", "ES256", "ES384", "PS256", "EdDSA"]
FETCH_TIMEOUT_S = 10.0
LEEWAY_S = 30


class AuthProblem(Exception):
    """Why HTTP cannot be served with sign-in as configured (one sentence, no value)."""


@dataclass(frozen=True)
class Issuer:
    """The provider's issuer and key set address (from its OpenID configuration) and the
    dashboard's client id, the audience its tokens must name."""

    issuer: str
    jwks_uri: str
    client_id: str = field(repr=False)


def provider_of(secrets: Mapping[str, Any], env: Mapping[str, str]) -> tuple[signin.SignIn, Issuer]:
    """The sign-in settings and the provider tokens are verified against; `AuthProblem` when
    sign-in is not configured, has problems, or its provider does not answer."""
    settings = signin.settings(secrets=secrets, env=env)
    if not settings.configured:
        raise AuthProblem(
            "--http needs the dashboard's sign-in ([auth] in .streamlit/secrets.toml, with "
            "allowed_emails or allowed_domains): every request must carry a viewer's token"
        )
    if settings.problems:
        raise AuthProblem(f"sign-in is misconfigured: {settings.problems[0]}")
    provider = settings.providers[0]
    table = secrets.get(signin.AUTH_SECTION) or {}
    if provider.name is not None:
        table = table.get(provider.name) or {}
    client_id = str(table.get("client_id") or "").strip()
    try:
        answer = httpx.get(provider.metadata_url, timeout=FETCH_TIMEOUT_S)
        answer.raise_for_status()
        metadata = answer.json()
        issuer, jwks_uri = str(metadata["issuer"]), str(metadata["jwks_uri"])
    except (httpx.HTTPError, ValueError, KeyError, TypeError):
        raise AuthProblem(
            f"the sign-in provider at {provider.host} did not give its OpenID configuration"
        ) from None
    return settings, Issuer(issuer, jwks_uri, client_id)


class SignInTokenVerifier:
    """The SDK's `TokenVerifier` over the sign-in provider's keys and the sign-in rule."""

    def __init__(self, settings: signin.SignIn, issuer: Issuer) -> None:
        self.settings = settings
        self.issuer = issuer
        self._keys = jwt.PyJWKClient(issuer.jwks_uri, cache_keys=True, timeout=int(FETCH_TIMEOUT_S))

    async def verify_token(self, token: str) -> AccessToken | None:
        return await anyio.to_thread.run_sync(self.verify, token)

    def verify(self, token: str) -> AccessToken | None:
        """The token's access when it is valid and its viewer admitted; None otherwise."""
        try:
            key = self._keys.get_signing_key_from_jwt(token)
            claims = jwt.decode(
                token,
                key.key,
                algorithms=ALGORITHMS,
                audience=self.issuer.client_id,
                issuer=self.issuer.issuer,
                leeway=LEEWAY_S,
                options={"require": ["exp", "iss", "aud"]},
            )
        except (jwt.PyJWTError, ValueError):
            logger.info("refused a bearer token: not one the sign-in provider signed for us")
            return None
        seen = signin.admission(self.settings, claims)
        if not seen.admitted:
            logger.info("refused a bearer token: its viewer is not admitted (%s)", seen.reason)
            return None
        expires = claims.get("exp")
        return AccessToken(
            token=token,
            client_id=self.issuer.client_id,
            scopes=[],
            expires_at=int(expires) if isinstance(expires, int | float) else None,
            subject=seen.subject,
            claims={"email": seen.email},
        )

"""Tokens the sandbox's OAuth2 token endpoint issues, and when they expire.

An access token lives `token_ttl` seconds (`serve --token-ttl 30s`), a refresh token
`refresh_token_ttl`; both are random, held in memory only, and forgotten once expired. The demo
users' own tokens (`sandbox.auth`) are not these and never expire, so the default demo works
as it always did.

Unlike the demo data, expiry needs a clock: it is `time.monotonic` unless a test passes its own.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from sandbox.auth import DemoUser

# Prefixes, not secrets: they make issued credentials recognisable in any output.
ACCESS_TOKEN_PREFIX = "sbx-oa-"  # noqa: S105
REFRESH_TOKEN_PREFIX = "sbx-rt-"  # noqa: S105


class TokenExpired(Exception):
    """An issued access token past its lifetime."""


@dataclass(frozen=True)
class Grant:
    """What the endpoint answers (RFC 6749 section 5.1)."""

    access_token: str
    expires_in: int
    refresh_token: str | None


@dataclass(frozen=True)
class _Held:
    user: DemoUser
    expires_at: float
    client_id: str  # the client it was issued to


class IssuedTokens:
    """Access and refresh tokens issued, each to one demo user; thread-safe."""

    def __init__(
        self,
        *,
        token_ttl: float,
        refresh_token_ttl: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._token_ttl = token_ttl
        self._refresh_ttl = refresh_token_ttl
        self._clock = clock
        self._lock = threading.Lock()
        self._access: dict[str, _Held] = {}
        self._refresh: dict[str, _Held] = {}
        self.count = 0  # access tokens issued so far (how often clients renewed)

    def issue(self, user: DemoUser, client: DemoUser, *, with_refresh: bool) -> Grant:
        """A new access token for `user`, asked for by `client` (and a refresh token when
        `with_refresh`)."""
        now = self._clock()
        access = ACCESS_TOKEN_PREFIX + secrets.token_hex(20)
        refresh = REFRESH_TOKEN_PREFIX + secrets.token_hex(20) if with_refresh else None
        with self._lock:
            self._forget_expired(now)
            self._access[access] = _Held(user, now + self._token_ttl, client.client_id)
            self.count += 1
            if refresh is not None:
                self._refresh[refresh] = _Held(user, now + self._refresh_ttl, client.client_id)
        return Grant(access, max(1, round(self._token_ttl)), refresh)

    def user_of(self, token: str) -> DemoUser | None:
        """The user of an access token; None when it was never issued (or long forgotten).
        Raises `TokenExpired` when it has expired."""
        with self._lock:
            held = self._access.get(token)
        if held is None:
            return None
        if self._clock() >= held.expires_at:
            raise TokenExpired
        return held.user

    def refresh(self, refresh_token: str, client: DemoUser) -> Grant | None:
        """A new access token for the user of `refresh_token`, which `client` was issued and
        which is still valid; the refresh token stays the same (as Spring's default). None
        when it is not such a token."""
        with self._lock:
            held = self._refresh.get(refresh_token)
        if held is None or held.client_id != client.client_id or self._clock() >= held.expires_at:
            return None
        grant = self.issue(held.user, client, with_refresh=False)
        return Grant(grant.access_token, grant.expires_in, refresh_token)

    def _forget_expired(self, now: float) -> None:
        # Expired access tokens are kept one lifetime more, so they are still answered as
        # "expired", not "unknown", for a while.
        for table, grace in ((self._access, self._token_ttl), (self._refresh, 0.0)):
            for token in [t for t, held in table.items() if now >= held.expires_at + grace]:
                del table[token]

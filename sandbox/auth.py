"""Demo users, their bearer tokens, and the credentials the token endpoint takes.

Tokens are derived from the seed (HMAC of the username), so `python -m sandbox users --seed N`
can list them without starting a server, and a running sandbox accepts exactly those. Each user
also has a password (the password grant) and is an OAuth2 client of its own (client id: the
username; client secret: derived too) for both grants of the token endpoint (`sandbox.tokens`);
the tokens that endpoint issues expire.
The `access_token` carried inside result `user_info` is a different, recognisable fake
("demo-at-..."), so tests can assert it never leaks from a client or dashboard.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sandbox.data.catalog import PEOPLE, Authority, email_of
from sandbox.settings import SandboxSettings

if TYPE_CHECKING:
    from sandbox.tokens import IssuedTokens

# Prefixes, not secrets: they make demo credentials recognisable in any output.
BEARER_TOKEN_PREFIX = "sbx-"  # noqa: S105
USER_INFO_ACCESS_TOKEN_PREFIX = "demo-at-"  # noqa: S105


@dataclass(frozen=True)
class DemoUser:
    """A user who can call the sandbox. `token` is kept out of `repr` so it never reaches logs."""

    id: int
    username: str
    email: str
    company_id: int
    authorities: tuple[Authority, ...]
    token: str = field(repr=False)
    password: str = field(repr=False)
    client_secret: str = field(repr=False)

    @property
    def client_id(self) -> str:
        """The user's OAuth2 client id at the token endpoint (its secret: `client_secret`)."""
        return self.username

    def can(self, authority: Authority) -> bool:
        return authority in self.authorities


def _derive(seed: int, purpose: str, username: str) -> str:
    key = f"qa-sandbox:{seed}".encode()
    return hmac.new(key, f"{purpose}:{username}".encode(), hashlib.sha256).hexdigest()


def bearer_token(seed: int, username: str) -> str:
    return BEARER_TOKEN_PREFIX + _derive(seed, "bearer", username)[:40]


def password(seed: int, username: str) -> str:
    return "pw-" + _derive(seed, "password", username)[:16]


def client_secret(seed: int, username: str) -> str:
    return "cs-" + _derive(seed, "client-secret", username)[:24]


def user_info_access_token(seed: int, username: str) -> str:
    return USER_INFO_ACCESS_TOKEN_PREFIX + _derive(seed, "user-info", username)[:32]


def demo_users(settings: SandboxSettings | int) -> list[DemoUser]:
    """The users who can log in, for a seed (or the seed of `settings`).

    The first is the full-authority user of company 1 (the dashboard's demo login); then,
    per company, one user lacking each authority; last, a user whose company does not exist.
    """
    seed = settings if isinstance(settings, int) else settings.seed
    return [
        DemoUser(
            id=person.id,
            username=person.username,
            email=email_of(person),
            company_id=person.company_id,
            authorities=person.authorities,
            token=bearer_token(seed, person.username),
            password=password(seed, person.username),
            client_secret=client_secret(seed, person.username),
        )
        for person in PEOPLE
        if person.logs_in
    ]


def _matching(
    users: Iterable[DemoUser], presented: str, secret: Callable[[DemoUser], str]
) -> DemoUser | None:
    """The user whose `secret` is `presented`. Every user is compared, in constant time each, so
    timing tells nothing about how close a guess was or which user it nearly matched."""
    encoded = presented.encode()
    match: DemoUser | None = None
    for user in users:
        if hmac.compare_digest(encoded, secret(user).encode()):
            match = user
    return match


class Authenticator:
    """Finds the user a bearer token belongs to: a demo user's own token (never expires) or
    one the token endpoint issued (`issued`)."""

    def __init__(self, users: Iterable[DemoUser], issued: IssuedTokens | None = None) -> None:
        self._users = tuple(users)
        self._issued = issued

    def authenticate(self, token: str) -> DemoUser | None:
        """The token's user; None for an unknown token. Raises `TokenExpired` for an issued
        token past its lifetime."""
        match = _matching(self._users, token, lambda user: user.token)
        if match is None and self._issued is not None:
            match = self._issued.user_of(token)
        return match

    def client(self, client_id: str, secret: str) -> DemoUser | None:
        """The user who is the OAuth2 client `client_id` with `secret`, if that is right."""
        user = next((u for u in self._users if u.client_id == client_id), None)
        if user is None or _matching([user], secret, lambda u: u.client_secret) is None:
            return None
        return user

    def password_user(self, username: str, password: str) -> DemoUser | None:
        """The user with `username` and `password`, if that is right."""
        user = next((u for u in self._users if u.username == username), None)
        if user is None or _matching([user], password, lambda u: u.password) is None:
            return None
        return user

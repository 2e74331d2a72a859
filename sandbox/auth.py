"""Demo users and their bearer tokens.

Tokens are derived from the seed (HMAC of the username), so `python -m sandbox users --seed N`
can list them without starting a server, and a running sandbox accepts exactly those.
The `access_token` carried inside result `user_info` is a different, recognisable fake
("demo-at-..."), so tests can assert it never leaks from a client or dashboard.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from dataclasses import dataclass, field

from sandbox.data.catalog import PEOPLE, Authority, email_of
from sandbox.settings import SandboxSettings

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

    def can(self, authority: Authority) -> bool:
        return authority in self.authorities


def _derive(seed: int, purpose: str, username: str) -> str:
    key = f"qa-sandbox:{seed}".encode()
    return hmac.new(key, f"{purpose}:{username}".encode(), hashlib.sha256).hexdigest()


def bearer_token(seed: int, username: str) -> str:
    return BEARER_TOKEN_PREFIX + _derive(seed, "bearer", username)[:40]


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
        )
        for person in PEOPLE
        if person.logs_in
    ]


class Authenticator:
    """Finds the user a bearer token belongs to."""

    def __init__(self, users: Iterable[DemoUser]) -> None:
        self._users = tuple(users)

    def authenticate(self, token: str) -> DemoUser | None:
        # Compare against every token, in constant time each, so timing tells nothing
        # about how close a guess was or which user it nearly matched.
        presented = token.encode()
        match: DemoUser | None = None
        for user in self._users:
            if hmac.compare_digest(presented, user.token.encode()):
                match = user
        return match

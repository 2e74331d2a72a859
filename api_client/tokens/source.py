"""The one interface between the client and where its bearer token comes from.

The client asks its `TokenSource` for a token before each request (`token()`) and tells it when
the service refused one (`refused(token)`); a source that can get another says so, and the
client sends the request once more with it. `StaticToken` is a token given once; the sources
that renew (`TokenFile`, `TokenCommand`, `TokenEndpoint`) share `RenewingSource`, which keeps the
last good token, renews it one request at a time however many threads ask, and goes on using
it until it expires when a renewal fails.
"""

from __future__ import annotations

import logging
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import SecretStr

from api_client.errors import TokenError

LOG = logging.getLogger("api_client")

Clock = Callable[[], float]
"""Seconds on a clock that only moves forward (`time.monotonic`); tests pass their own."""


def token_problem(token: str) -> str | None:
    """What makes `token` unusable as a bearer token, in words that never repeat it; else None.

    A header may carry visible ASCII only; a token pasted with a line break or a non-ASCII
    character would otherwise fail deep in the HTTP stack, in an error that quotes the header,
    token and all.
    """
    if not token:
        return "token must not be empty"
    rule = "token must be visible ASCII characters without spaces or line breaks"
    for character in token:
        if "!" <= character <= "~":
            continue
        if character in "\r\n":
            what = "a line break"
        elif character.isspace():
            what = "a space" if character == " " else "a blank character (such as a tab)"
        elif not character.isascii():
            what = "a non-ASCII character (often a typographic quote or dash from a document)"
        else:
            what = "a control character"
        return f"{rule}; it contains {what}"
    return None


class TokenSource(ABC):
    """Where the client's bearer token comes from.

    `token()` is called from any thread, before every request, so it must be cheap when it has a
    good token; it raises `TokenError` (one sentence, never a secret) when it has none to give.
    """

    @abstractmethod
    def token(self) -> SecretStr:
        """The token to send now."""

    def refused(self, token: SecretStr) -> bool:
        """The service answered 401 to `token`: True when a different token can be had now
        (the client then sends the request once more), False when not. Raises `TokenError`
        when getting another failed."""
        return False


class StaticToken(TokenSource):
    """A token given once, as it is: never renewed, so a refusal is final."""

    def __init__(self, token: str | SecretStr) -> None:
        value = token.get_secret_value() if isinstance(token, SecretStr) else token
        self._token = SecretStr(value)

    def token(self) -> SecretStr:
        return self._token

    def __repr__(self) -> str:
        return "StaticToken(SecretStr('**********'))"


@dataclass(frozen=True)
class Issued:
    """A token a renewing source got, and when (on its clock) to renew it and when it expires.

    None for both: the source does not know; the token is used until it is refused or the source
    sees a newer one.
    """

    value: SecretStr
    renew_at: float | None = None
    expires_at: float | None = None
    refresh_token: SecretStr | None = None


def lifetime(
    got_at: float, expires_in: float | None, renew_before: float
) -> tuple[float | None, float | None]:
    """(renew_at, expires_at) of a token that lives `expires_in` seconds from `got_at`.

    It is renewed `renew_before` seconds before it expires, or at three quarters of its life
    when that is shorter, so a 20-second token is renewed at 15 s, not at once.
    """
    if expires_in is None:
        return None, None
    margin = min(renew_before, expires_in / 4)
    return got_at + expires_in - margin, got_at + expires_in


def byte_size(limit: int) -> str:
    """A size limit in words, as the sentences about it say it: "64 KiB", "512 bytes"."""
    return f"{limit / 1024:g} KiB" if limit >= 1024 else f"{limit:,} bytes"


def seconds(value: object) -> float | None:
    """A lifetime in seconds as a token response gives it (`expires_in`: a number or a numeric
    string); None when absent or not a positive number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, int | float) and 0 < value < float("inf"):
        return float(value)
    return None


class RenewingSource(TokenSource):
    """A source that gets tokens with `_get` and renews them; one `_get` at a time.

    A token is renewed when `_stale` says so (by default: at its `renew_at`), and after the
    service refused it. When renewing fails, the last good token is used until it expires
    (`retry_after` seconds pass before the next attempt, so a broken endpoint is not asked by
    every request); a token refused by the service is not used again.
    """

    def __init__(self, *, retry_after: float = 5.0, clock: Clock = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._clock = clock
        self._retry_after = retry_after
        self._current: Issued | None = None
        self._failure: TokenError | None = None
        self._failed_at = 0.0

    @abstractmethod
    def _get(self, current: Issued | None) -> Issued:
        """A new token (`current` is the one held, if any, perhaps refused); `TokenError`
        when none can be had."""

    def _stale(self, current: Issued, now: float) -> bool:
        """Whether `current` should be renewed before it is sent."""
        return current.renew_at is not None and now >= current.renew_at

    def token(self) -> SecretStr:
        current = self._current
        if current is not None and not self._stale(current, self._clock()):
            return current.value  # the common case: no lock
        with self._lock:
            current = self._current
            now = self._clock()
            if current is not None and not self._stale(current, now):
                return current.value  # another thread renewed it meanwhile
            return self._renew(current, now)

    def refused(self, token: SecretStr) -> bool:
        with self._lock:
            current = self._current
            if current is not None and current.value != token:
                return True  # another thread has renewed it since
            self._current = None  # refused: never sent again
            fresh = self._renew(current, self._clock(), after_refusal=True)
            return fresh != token

    def _renew(
        self, current: Issued | None, now: float, *, after_refusal: bool = False
    ) -> SecretStr:
        """Get a new token (the lock is held); on failure fall back on `current` while it lasts."""
        usable = current is not None and not after_refusal and not _expired(current, now)
        if self._failure is not None and now - self._failed_at < self._retry_after:
            if usable:
                assert current is not None
                return current.value
            raise self._failure
        try:
            fresh = self._get(current)
        except TokenError as error:
            repeated = self._failure is not None and self._failure.message == error.message
            self._failure, self._failed_at = error, now
            if usable:
                assert current is not None
                if not repeated:  # said once, not on every request while it lasts
                    left = (
                        ""
                        if current.expires_at is None
                        else f", for {current.expires_at - now:.0f} s"
                    )
                    LOG.warning(
                        "%s The last good token is used until it expires%s.", error.message, left
                    )
                return current.value
            raise
        self._failure = None
        self._current = fresh
        return fresh.value


def _expired(token: Issued, now: float) -> bool:
    return token.expires_at is not None and now >= token.expires_at

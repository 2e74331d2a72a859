"""Who may see stored history: only a connection whose credential the service accepts for that
company right now.

A shared store (PostgreSQL) holds the history of every company a team's processes have synced,
and a page reads it without asking the service. So before a page is given a connection's store,
the service is asked, with that connection's own credential, one cheap question: the first
execution of the company (a page of one). The answer is kept for the current 15-minute slot of
the wall clock, keyed by the connection's fingerprint (a hash; never the token), so a session
that starts is checked (or finds this slot's answer), and every viewer is checked again at
least every 15 minutes: a token that expires or is revoked loses the history within 15 minutes.

- accepted: the store is opened (`open_if_allowed`);
- no credential, a token the service refuses (401), or one for another company or without the
  authority (403): no store; the page then shows only what the service itself answers;
- the service cannot be reached or fails: no store, and that answer is kept for `RETRY_AFTER`
  seconds only (not for the slot), so the pages' many reads while the service fails ask it
  once, not once each, and it is asked again soon after.

The token is only ever sent to the service, as the client sends it; reasons name the outcome,
never the token.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from api_client import ApiClient, ApiError
from api_client.errors import (
    ApiTimeoutError,
    AuthenticationError,
    PermissionDeniedError,
    UnauthorizedUserError,
)
from dashboard.data.connection import Connection, api_client
from dashboard.data.store import DEFAULT_IDLE, DEFAULT_WAIT, HistoryStore, open_for

CHECK_INTERVAL = 15 * 60
"""Seconds of one slot: a connection's access is asked again at least this often."""
RETRY_AFTER = 30.0
"""Seconds a non-definitive answer (the service failed or could not be reached) is kept."""


@dataclass(frozen=True)
class Access:
    """The service's answer for one connection: whether its stored history may be shown."""

    allowed: bool
    reason: str  # "accepted", "no credential", "refused", "denied", "unchecked"
    definitive: bool = True  # False: the service could not answer (kept RETRY_AFTER s only)
    timed_out: bool = False  # the service did not answer in time (a page waits no more on it)


ACCEPTED = Access(True, "accepted")
NO_CREDENTIAL = Access(False, "no credential")


def ask_service(connection: Connection, client: ApiClient | None = None) -> Access:
    """Ask the service, with `connection`'s credential, for the first execution of its company.

    `client` is the connection's client (a page passes its cached one); when None one is made
    here and closed.
    """
    if not connection.has_credential:
        return NO_CREDENTIAL
    own = client is None
    if client is None:
        client = api_client(connection, timeout=15.0, max_retries=1)
    try:
        client.executions(page=1, size=1)
    except AuthenticationError:
        return Access(False, "refused")
    except (PermissionDeniedError, UnauthorizedUserError):
        return Access(False, "denied")
    except ApiTimeoutError:
        return Access(False, "unchecked", definitive=False, timed_out=True)
    except ApiError:
        return Access(False, "unchecked", definitive=False)
    finally:
        if own:
            client.close()
    return ACCEPTED


class AccessChecks:
    """This process's answers, one per (connection fingerprint, slot); thread-safe.

    `check` asks the service (default `ask_service`); `clock` gives wall-clock seconds. An
    answer the service could not give is kept `retry_after` seconds, by fingerprint.
    """

    def __init__(
        self,
        check: Callable[[Connection], Access] = ask_service,
        *,
        interval: float = CHECK_INTERVAL,
        retry_after: float = RETRY_AFTER,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if interval <= 0:
            raise ValueError("interval must be positive")
        self._check = check
        self._interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        self._retry_after = retry_after
        self._answers: dict[tuple[str, int], Access] = {}
        self._failed: dict[str, tuple[float, Access]] = {}  # fingerprint -> (asked at, answer)

    def slot(self) -> int:
        return int(self._clock() // self._interval)

    def access(self, connection: Connection) -> Access:
        """The service's answer for `connection` in this slot (asked now if not yet)."""
        key = (connection.fingerprint, self.slot())
        now = self._clock()
        with self._lock:
            known = self._answers.get(key)
            failed = self._failed.get(connection.fingerprint)
        if known is not None:
            return known
        if failed is not None and 0 <= now - failed[0] < self._retry_after:
            return failed[1]
        answer = self._check(connection)
        # A failure is kept from when it was known: a check that took longer than
        # `retry_after` (a service that drips its answer) is not asked again at once.
        now = self._clock()
        with self._lock:
            if answer.definitive:
                self._answers = {k: v for k, v in self._answers.items() if k[1] >= key[1]}
                self._answers[key] = answer
                self._failed.pop(connection.fingerprint, None)
            else:
                self._failed = {
                    k: v for k, v in self._failed.items() if now - v[0] < self._retry_after
                }
                self._failed[connection.fingerprint] = (now, answer)
        return answer

    def forget(self, connection: Connection) -> None:
        """Ask again at the next use (Refresh, a new credential from the form)."""
        with self._lock:
            self._answers = {
                k: v for k, v in self._answers.items() if k[0] != connection.fingerprint
            }
            self._failed.pop(connection.fingerprint, None)

    def forget_all(self) -> None:
        """Ask again for every connection at its next use."""
        with self._lock:
            self._answers = {}
            self._failed = {}


def open_if_allowed(
    connection: Connection,
    checks: AccessChecks,
    *,
    secrets: Mapping[str, Any] | None,
    env: Mapping[str, str],
    wait: float = DEFAULT_WAIT,
    idle: float = DEFAULT_IDLE,
) -> HistoryStore | None:
    """`connection`'s store (`store.open_for`) when the service accepts its credential for its
    company in this slot, else None."""
    if not checks.access(connection).allowed:
        return None
    return open_for(connection, secrets=secrets, env=env, wait=wait, idle=idle)

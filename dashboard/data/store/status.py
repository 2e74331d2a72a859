"""Whether a connection's stored history is in use, and if not, why: what a page says about it.

Two things can keep a page from its history store, and either way it fetches everything from
the service:

- the store is *withheld*: the service did not accept the connection's credential for its
  company in this 15-minute slot (`store.access`);
- the store is *off*: it could not be opened (a PostgreSQL server restarting, a DuckDB file
  held by a sync for longer than the wait, a folder that cannot be written).

An open that failed is not remembered for long (`OpenFailures`): a page's many reads within one
run try once, not once each (an unreachable server costs a connect timeout every time), and a
run `RETRY_AFTER` seconds later tries again, so a store that comes back is used again without a
restart. What is kept of a failure is the store error's own message, which names the file or
the server without its password (`store.pg_pool.safe_url`, `scrubbed`), never a token.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

RETRY_AFTER = 10.0
"""Seconds a failed open is remembered: runs within them do not try again."""

State = Literal["on", "withheld", "off"]


@dataclass(frozen=True)
class HistoryStatus:
    """`state`: "on" (the store is used), "withheld" (`reason` is the access check's: "refused",
    "denied", "unchecked", "no credential") or "off" (`reason` is the store error's message).
    `retry_in`: seconds until the next try (an off store), or None."""

    state: State
    reason: str = ""
    retry_in: float | None = None


ON = HistoryStatus("on")


class OpenFailures:
    """The last failed open of each connection's store (by fingerprint), for `retry_after`
    seconds; thread-safe. `clock` gives monotonic seconds."""

    def __init__(
        self, *, retry_after: float = RETRY_AFTER, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._retry_after = retry_after
        self._clock = clock
        self._lock = threading.Lock()
        self._failed: dict[str, tuple[float, str]] = {}  # fingerprint -> (when, why)

    def note(self, fingerprint: str, reason: str) -> None:
        """Remember that the store of `fingerprint` could not be opened, and why."""
        now = self._clock()
        with self._lock:
            self._failed = {k: v for k, v in self._failed.items() if now - v[0] < self._retry_after}
            self._failed[fingerprint] = (now, reason)

    def recent(self, fingerprint: str) -> HistoryStatus | None:
        """An "off" status when the last open failed less than `retry_after` seconds ago."""
        now = self._clock()
        with self._lock:
            failed = self._failed.get(fingerprint)
        if failed is None or now - failed[0] >= self._retry_after:
            return None
        return HistoryStatus("off", failed[1], retry_in=self._retry_after - (now - failed[0]))

    def forget(self, fingerprint: str | None = None) -> None:
        """Try again at the next use: one connection's store (Refresh), or every one."""
        with self._lock:
            if fingerprint is None:
                self._failed = {}
            else:
                self._failed.pop(fingerprint, None)

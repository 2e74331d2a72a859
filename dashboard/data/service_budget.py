"""One time budget per page for a service that does not answer in time.

The client gives one call up to its deadline (two minutes, retries included). A page asks the
service several things in a row (whether the credential may see the stored history, the plans,
the executions): against a service that drips its answers, each would wait out a deadline of
its own, and a page connected through the sidebar's form sat for minutes. So once a request of
a connection timed out, the requests of that connection in the next `RETRY_AFTER` seconds are
not sent: they fail at once with a timeout of their own (`timed_out`). A page then waits one
budget in all, and the viewer's next runs within that time are answered at once. Refresh asks
again at once (`forget`). Keyed by the connection's fingerprint, never the token.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from api_client import ApiTimeoutError
from api_client.operations import Operation

RETRY_AFTER = 30.0
"""Seconds after a timeout during which the connection's requests are not sent."""


class RecentTimeouts:
    """When each connection's last request timed out, for `keep` seconds; thread-safe."""

    def __init__(
        self, *, keep: float = RETRY_AFTER, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._keep = keep
        self._clock = clock
        self._lock = threading.Lock()
        self._when: dict[str, float] = {}

    def note(self, fingerprint: str) -> None:
        now = self._clock()
        with self._lock:
            self._when = {k: t for k, t in self._when.items() if now - t < self._keep}
            self._when[fingerprint] = now

    def retry_in(self, fingerprint: str) -> float | None:
        """Seconds until the connection's requests are sent again; None: they are sent now."""
        with self._lock:
            when = self._when.get(fingerprint)
        if when is None:
            return None
        left = when + self._keep - self._clock()
        return left if left > 0 else None

    def forget(self, fingerprint: str) -> None:
        with self._lock:
            self._when.pop(fingerprint, None)

    def forget_all(self) -> None:
        with self._lock:
            self._when = {}


def timed_out(operation: Operation, retry_in: float) -> ApiTimeoutError:
    """The error of a request that was not sent, its connection having just timed out."""
    return ApiTimeoutError(
        f"The {operation.label} request was not sent: the service did not answer in time a "
        f"moment ago; it is asked again in {max(1, round(retry_in))} s, or at Refresh.",
        operation=operation,
    )

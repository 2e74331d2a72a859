"""The one place that decides whether a failed request is tried again, and after how long.

These are pure functions of the failure, the attempt number and the policy, so tests call them
directly instead of patching time. Every operation of the service is an idempotent GET, so a
retry can never do harm twice; what is retried is what a retry can plausibly fix.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from api_client.errors import ApiConnectionError, ApiError, ApiStatusError, ResponseValidationError
from api_client.headers import retry_after_seconds

__all__ = [
    "NO_RETRIES",
    "RETRYABLE_STATUSES",
    "SERVER_ERROR_STATUS",
    "RetryPolicy",
    "retry_after_seconds",
    "retry_delay",
    "should_retry",
]

# Gateways and overload answer these; a later attempt usually succeeds.
RETRYABLE_STATUSES = frozenset({429, 502, 503, 504})
# 500 may be a bug that will fail the same way again, so it gets fewer attempts.
SERVER_ERROR_STATUS = 500


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How hard the client tries. The defaults suit an interactive dashboard."""

    max_retries: int = 3
    """Retries after the first attempt, for any retryable failure."""
    max_server_error_retries: int = 1
    """Retries of a plain 500, which is less often transient than 502/503/504."""
    backoff_base: float = 0.5
    """Seconds before the first retry; doubled on each later one."""
    backoff_max: float = 8.0
    """Upper bound of one computed back-off, before jitter."""
    retry_after_cap: float = 30.0
    """Longest `Retry-After` honoured; a longer hint gives up instead of stalling the caller."""
    deadline: float = 120.0
    """Seconds one call may take in all, retries included; no retry starts past it."""

    def __post_init__(self) -> None:
        if self.max_retries < 0 or self.max_server_error_retries < 0:
            raise ValueError("retry counts must be >= 0")
        if min(self.backoff_base, self.backoff_max, self.retry_after_cap, self.deadline) < 0:
            raise ValueError("retry delays must be >= 0")


NO_RETRIES = RetryPolicy(max_retries=0, max_server_error_retries=0)


def should_retry(error: ApiError, attempt: int, policy: RetryPolicy) -> bool:
    """Whether a request that failed with `error` on retry number `attempt` (0-based) is retried.

    Connection failures, timeouts, a 2xx body cut short in transit, 429 and 502/503/504 are
    retried; 500 a bounded number of times; every other status (400, 401, 403, 404...) never,
    because the same request will get the same answer.
    """
    if attempt >= policy.max_retries:
        return False
    if isinstance(error, ApiConnectionError):
        return True
    if isinstance(error, ResponseValidationError):
        return error.transient
    if isinstance(error, ApiStatusError):
        # A service that asks for a longer pause than the cap is not waited for: giving up
        # at once says so, where stalling the caller for minutes would not.
        if error.retry_after is not None and error.retry_after > policy.retry_after_cap:
            return False
        if error.status_code in RETRYABLE_STATUSES:
            return True
        if error.status_code == SERVER_ERROR_STATUS:
            return attempt < policy.max_server_error_retries
    return False


def retry_delay(
    attempt: int,
    retry_after: float | None,
    policy: RetryPolicy,
    random_fraction: Callable[[], float] = random.random,
) -> float:
    """Seconds to wait before retry number `attempt` (0-based).

    Exponential back-off with "equal jitter" (half fixed, half random), so that many clients
    failing together do not retry together. A `Retry-After` hint from the service wins when it
    is longer, capped at `retry_after_cap`.
    """
    backoff = min(policy.backoff_max, policy.backoff_base * (2.0**attempt))
    delay = backoff / 2 + (backoff / 2) * random_fraction()
    if retry_after is not None:
        delay = max(delay, min(retry_after, policy.retry_after_cap))
    return delay

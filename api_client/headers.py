"""What a response's headers tell the client beyond its status: the `Retry-After` hint.

It sits apart from `retry` (which decides) and `errors` (which carries the hint as evidence) so
that both can read it without importing each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime


def retry_after_seconds(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """Parse a `Retry-After` header: delta-seconds or an HTTP date. None when absent or garbled."""
    value = headers.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if seconds != seconds:  # NaN
        return None
    return max(0.0, seconds)

"""`ExecutionQuery`: the filters of the executions operation (spec 4.2), as one typed value.

A filter is named once, here: its attribute, the service's query parameter and the words a
caption uses all sit on one field. The client sends `to_params()`, pages say `describe()`, and
caches key on the (frozen, hashable) query itself, so a new filter is one new field.

Values are validated when the query is built, before any request: an invalid one raises
`RequestValidationError` (a `ValueError`) whose `argument` is the field's name, never echoing
an e-mail address.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from typing import Any, Self

from api_client._arguments import require_positive_id
from api_client.errors import RequestValidationError

DateBound = datetime | int
"""A time bound: an aware `datetime`, or Unix milliseconds as the service takes them."""


@dataclass(frozen=True, slots=True)
class Filter:
    """What one field of a query is called on the wire and in words."""

    param: str
    """The service's query parameter (spec 4.2)."""
    words: str
    """How a caption names it; `{}` is the value as `text` renders it."""
    text: Callable[[Any], str] = str
    """The value as a caption shows it (the e-mail filter shows no address)."""


def _filter(param: str, words: str, text: Callable[[Any], str] = str) -> dict[str, Filter]:
    return {"filter": Filter(param, words, text)}


def _utc_text(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


@dataclass(frozen=True)
class ExecutionQuery:
    """Which executions to list. Every field is optional; None means "no filter".

    `date_from` and `date_to` are aware datetimes (Unix milliseconds are accepted and
    converted); both bounds are inclusive, on the execution's start.
    """

    status: str | None = field(default=None, metadata=_filter("status", "status {}"))
    project_id: int | None = field(default=None, metadata=_filter("projectId", "project {}"))
    plan_id: int | None = field(default=None, metadata=_filter("planId", "plan {}"))
    date_from: datetime | None = field(
        default=None, metadata=_filter("from", "started from {}", _utc_text)
    )
    date_to: datetime | None = field(
        default=None, metadata=_filter("to", "started until {}", _utc_text)
    )
    email: str | None = field(default=None, metadata=_filter("email", "{}", lambda _: "only mine"))

    def __post_init__(self) -> None:
        # Frozen: normalised values are set through object.__setattr__, once, here.
        for name in ("project_id", "plan_id"):
            value = getattr(self, name)
            if value is not None:
                require_positive_id(name, value)
        for name in ("date_from", "date_to"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, _to_datetime(name, value))
        if self.date_from and self.date_to and self.date_from > self.date_to:
            raise RequestValidationError(
                "date_from must not be after date_to", argument="date_from"
            )
        if self.status is not None:
            if not isinstance(self.status, str) or not self.status.strip():
                raise RequestValidationError("status must be a non-empty string", argument="status")
            object.__setattr__(self, "status", self.status.strip())
        if self.email is not None:
            if not isinstance(self.email, str) or "@" not in self.email:
                raise RequestValidationError("email must be an e-mail address", argument="email")
            object.__setattr__(self, "email", self.email.strip())

    def with_changes(self, **changes: Any) -> Self:
        """A copy with some filters changed (validated like a new query)."""
        return replace(self, **changes)

    def active(self) -> Iterator[tuple[str, Filter, Any]]:
        """(attribute, filter, value) of each filter that is set, in declaration order."""
        for item in fields(self):
            spec = item.metadata.get("filter")
            value = getattr(self, item.name)
            if isinstance(spec, Filter) and value is not None:
                yield item.name, spec, value

    def to_params(self) -> dict[str, str]:
        """The service's query parameters for these filters (no `page`/`size`)."""
        params: dict[str, str] = {}
        for _, spec, value in self.active():
            if isinstance(value, datetime):
                params[spec.param] = str(_millis(value))
            else:
                params[spec.param] = str(value)
        return params

    def describe(self, time_text: Callable[[datetime], str] | None = None) -> list[str]:
        """The filters in words ("status ERROR", "plan 3", "only mine"), never the e-mail.

        `time_text` renders the time bounds (default "2026-11-20 09:15 UTC").
        """
        words = []
        for _, spec, value in self.active():
            text = time_text if time_text and isinstance(value, datetime) else spec.text
            words.append(spec.words.format(text(value)))
        return words


def _to_datetime(name: str, value: object) -> datetime:
    """An aware datetime, or Unix milliseconds, as an aware datetime."""
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise RequestValidationError(
                f"{name} must be a timezone-aware datetime (a naive one is ambiguous)",
                argument=name,
            )
        return value
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RequestValidationError(
            f"{name} must be an aware datetime or Unix milliseconds, got {value!r}",
            argument=name,
        )
    try:
        return datetime.fromtimestamp(value / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        raise RequestValidationError(
            f"{name} is out of range, got {value!r}", argument=name
        ) from None


def _millis(value: datetime) -> int:
    # Exact integer arithmetic: a float timestamp can be off by a millisecond.
    delta = value - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000

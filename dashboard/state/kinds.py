"""The kinds of value a query parameter holds, each read from the URL's text and written back.

URLs are user input (pasted into chat, edited by hand), so reading never raises: a bad value
becomes a problem (a sentence naming the parameter and what is used instead) and the
parameter's default. Writing is the inverse of reading, so a written link reads back the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from enum import StrEnum
from typing import Generic, Protocol, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

T = TypeVar("T")
E = TypeVar("E", bound=StrEnum)

_MAX_ID = 2**63 - 1  # ids are 64-bit Longs (spec section 2)
_ID_RE = re.compile(r"^[0-9]{1,19}$")
# Statuses are an open set (spec 4.2): any name-like value is accepted and passed on as itself.
_STATUS_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,39}$")
_INSTANT_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$")
_ZONE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+){0,2}$")
_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off"})


class Kind(Protocol[T]):
    """How one parameter's text becomes a value and back. `read` gets the stripped, non-empty
    text; it returns the value, or `default` after appending a problem to `problems`."""

    def read(self, name: str, raw: str, default: T, problems: list[str]) -> T: ...

    def write(self, value: T) -> str: ...


@dataclass(frozen=True)
class Id:
    """A positive 64-bit id of a `what` (project, plan, execution, scenario)."""

    what: str

    def read(self, name: str, raw: str, default: int | None, problems: list[str]) -> int | None:
        if _ID_RE.match(raw) and 0 < int(raw) <= _MAX_ID:
            return int(raw)
        return _bad(
            name,
            raw,
            f"is not a valid {self.what} id (a positive whole number), so it was ignored",
            default,
            problems,
        )

    def write(self, value: int | None) -> str:
        return str(value)


@dataclass(frozen=True)
class Flag:
    """On or off (true/false, 1/0, yes/no, on/off). `meaning` names what it switches in the
    problem; `on` is how it is written when on (`present=1` reads better in a TV's link)."""

    meaning: str
    on: str = "true"

    def read(self, name: str, raw: str, default: bool, problems: list[str]) -> bool:
        if raw.lower() in _TRUE:
            return True
        if raw.lower() in _FALSE:
            return False
        state = "on" if default else "off"
        return _bad(
            name, raw, f"is not true or false, so {self.meaning} is {state}", default, problems
        )

    def write(self, value: bool) -> str:
        return self.on if value else "false"


@dataclass(frozen=True)
class Choice(Generic[E]):
    """One of an enumeration's values (any case). `then` says what is shown instead of a bad
    one, given the default."""

    values: type[E]
    then: str

    def read(self, name: str, raw: str, default: E, problems: list[str]) -> E:
        try:
            return self.values(raw.lower())
        except ValueError:
            choices = ", ".join(member.value for member in self.values)
            then = self.then.format(default=default)
            return _bad(name, raw, f"is not one of {choices}, so {then}", default, problems)

    def write(self, value: E) -> str:
        return value.value


@dataclass(frozen=True)
class Statuses:
    """Comma-separated status names (`status=FAILURE,ERROR`), upper-cased, each once; a bad
    name is dropped and the others kept."""

    def read(
        self, name: str, raw: str, default: tuple[str, ...], problems: list[str]
    ) -> tuple[str, ...]:
        names = [part.strip() for part in raw.split(",") if part.strip()]
        good = [part.upper() for part in names if _STATUS_RE.match(part)]
        bad = [part for part in names if not _STATUS_RE.match(part)] or ([] if names else [raw])
        for part in bad:
            rest = "the other statuses are" if good else "executions of every status are"
            _bad(name, part, f"is not a status name, so {rest} shown", (), problems)
        return tuple(dict.fromkeys(good))

    def write(self, value: tuple[str, ...]) -> str:
        return ",".join(value)


@dataclass(frozen=True)
class Names:
    """Comma-separated names out of a fixed set (`choices`), each once, in the set's order; a
    name is read in any case, with "-" or "_" for a space (`state=not-enough-data`), and
    written with "-". A name not in the set is dropped, saying so, and the others kept."""

    choices: tuple[str, ...]
    what: str

    def read(
        self, name: str, raw: str, default: tuple[str, ...], problems: list[str]
    ) -> tuple[str, ...]:
        known = {_token(choice): choice for choice in self.choices}
        parts = [part.strip() for part in raw.split(",") if part.strip()]
        chosen = {known[_token(part)] for part in parts if _token(part) in known}
        for part in [p for p in parts if _token(p) not in known] or ([] if parts else [raw]):
            rest = f"the other {self.what}s are" if chosen else f"every {self.what} is"
            names = ", ".join(self.write((choice,)) for choice in self.choices)
            _bad(name, part, f"is not one of {names}, so {rest} shown", (), problems)
        return tuple(choice for choice in self.choices if choice in chosen)

    def write(self, value: tuple[str, ...]) -> str:
        return ",".join(choice.replace(" ", "-") for choice in value)


def _token(text: str) -> str:
    return re.sub(r"[\s_-]+", " ", text.strip().lower())


@dataclass(frozen=True)
class WholeNumber:
    """A whole number of `unit` within `bounds` (inclusive)."""

    bounds: tuple[int, int]
    unit: str

    def read(self, name: str, raw: str, default: int, problems: list[str]) -> int:
        low, high = self.bounds
        if re.match(r"^[0-9]{1,6}$", raw) and low <= int(raw) <= high:
            return int(raw)
        why = f"is not a whole number of {self.unit} from {low} to {high}, so {default} is used"
        return _bad(name, raw, why, default, problems)

    def write(self, value: int) -> str:
        return str(value)


@dataclass(frozen=True)
class Share:
    """A share within `bounds` (inclusive, within 0 to 1), such as 0.2; a percentage like 20%
    is read too."""

    bounds: tuple[float, float]

    def read(self, name: str, raw: str, default: float, problems: list[str]) -> float:
        low, high = self.bounds
        text = raw.removesuffix("%").strip()
        value: float | None = None
        if re.match(r"^[0-9]{1,3}(\.[0-9]{1,6})?$", text) or re.match(r"^\.[0-9]{1,6}$", text):
            value = round(float(text) / (100 if raw.endswith("%") else 1), 6)
        if value is not None and low <= value <= high:
            return value
        why = (
            f"is not a share from {low:g} to {high:g} (such as {default:g}), so {default:g} is used"
        )
        return _bad(name, raw, why, default, problems)

    def write(self, value: float) -> str:
        return f"{value:g}"


@dataclass(frozen=True)
class Day:
    """A calendar day like 2025-11-22 between `first` and `last` (inclusive)."""

    first: date
    last: date

    def read(self, name: str, raw: str, default: date | None, problems: list[str]) -> date | None:
        if re.match(r"^\d{4}-\d{2}-\d{2}$", raw):
            try:
                day = date.fromisoformat(raw)
            except ValueError:  # a well-shaped impossible date, such as 2025-02-30
                day = None
            if day is not None and self.first <= day <= self.last:
                return day
            if day is not None:
                between = f"{self.first.isoformat()} and {self.last.isoformat()}"
                why = f"is not between {between}, so it was ignored"
                return _bad(name, raw, why, default, problems)
        why = "is not a date like 2025-11-22, so it was ignored"
        return _bad(name, raw, why, default, problems)

    def write(self, value: date | None) -> str:
        return value.isoformat() if value else ""


@dataclass(frozen=True)
class Instant:
    """A moment, written in UTC to the second (an offset is read and turned into UTC)."""

    def read(
        self, name: str, raw: str, default: datetime | None, problems: list[str]
    ) -> datetime | None:
        if _INSTANT_RE.match(raw):
            try:
                instant = datetime.fromisoformat(raw).astimezone(UTC)
            except (ValueError, OverflowError):  # impossible, such as 2026-11-31T25:00Z
                instant = None
            # Years far off would overflow a span of time around it; no execution runs then.
            if instant is not None and 1970 <= instant.year <= 9998:
                return instant
        why = "is not a UTC time like 2026-11-20T09:15:00Z, so it was ignored"
        return _bad(name, raw, why, default, problems)

    def write(self, value: datetime | None) -> str:
        return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if value else ""


@dataclass(frozen=True)
class Zone:
    """An IANA time zone name such as Europe/Istanbul (none: the browser's)."""

    def read(self, name: str, raw: str, default: str | None, problems: list[str]) -> str | None:
        if _ZONE_RE.match(raw):
            try:
                ZoneInfo(raw)
            except (ZoneInfoNotFoundError, ValueError):
                pass
            else:
                return raw
        why = "is not a time zone like Europe/Istanbul, so your browser's time zone is used"
        return _bad(name, raw, why, default, problems)

    def write(self, value: str | None) -> str:
        return value or ""


@dataclass(frozen=True)
class TimeOfDay:
    """A local time of day, HH:MM (none: `usual`, which a bad value falls back to)."""

    usual: time

    def read(self, name: str, raw: str, default: time | None, problems: list[str]) -> time | None:
        match = re.match(r"^([01]?\d|2[0-3]):([0-5]\d)$", raw)
        if match:
            return time(int(match.group(1)), int(match.group(2)))
        why = f"is not a time of day like 09:30, so {self.usual:%H:%M} is used"
        return _bad(name, raw, why, default, problems)

    def write(self, value: time | None) -> str:
        return value.strftime("%H:%M") if value else ""


def _bad(name: str, raw: str, why: str, default: T, problems: list[str]) -> T:
    """Say what was wrong with a value (`why`: "is not ..., so ... is used"); the default
    stands in for it."""
    problems.append(f'The link\'s "{name}" value {_quote(raw)} {why}.')
    return default


def _quote(raw: str, limit: int = 40) -> str:
    short = raw if len(raw) <= limit else raw[: limit - 1] + "…"
    return f'"{short}"'

"""Reading typed values out of raw query parameters: URLs are user input, so nothing here
raises; a bad value becomes a problem (a sentence naming the parameter) and the default."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, date, datetime, time
from enum import StrEnum
from typing import TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dashboard.state.params import (
    DEFAULT_RANGE,
    FIRST_DAY,
    FROM,
    LAST_DAY,
    RANGE,
    STATUS,
    TO,
    DateRange,
)

E = TypeVar("E", bound=StrEnum)

_MAX_ID = 2**63 - 1  # ids are 64-bit Longs (spec section 2)
_ID_RE = re.compile(r"^[0-9]{1,19}$")
# Statuses are an open set (spec 4.2): any name-like value is accepted and passed on as itself.
_STATUS_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,39}$")
_INSTANT_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$")
_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off"})


class ParamReader:
    """Reads typed values out of raw query parameters, collecting a problem per bad value."""

    def __init__(self, params: Mapping[str, str | list[str]]) -> None:
        self._params = params
        self.problems: list[str] = []

    def raw(self, name: str) -> str | None:
        value = self._params.get(name)
        if isinstance(value, list):  # a repeated parameter: the last wins, as in st.query_params
            value = value[-1] if value else None
        if value is None:
            return None
        return value.strip() or None

    def id(self, name: str, what: str) -> int | None:
        raw = self.raw(name)
        if raw is None:
            return None
        if _ID_RE.match(raw) and 0 < int(raw) <= _MAX_ID:
            return int(raw)
        self.problems.append(
            f'The link\'s "{name}" value {_quote(raw)} is not a valid {what} id (a positive whole '
            f"number), so it was ignored."
        )
        return None

    def flag(self, name: str, *, default: bool, meaning: str) -> bool:
        raw = self.raw(name)
        if raw is None:
            return default
        if raw.lower() in _TRUE:
            return True
        if raw.lower() in _FALSE:
            return False
        self.problems.append(
            f'The link\'s "{name}" value {_quote(raw)} is not true or false, so {meaning} '
            f"is {'on' if default else 'off'}."
        )
        return default

    def choice(self, name: str, kind: type[E], default: E, meaning: str) -> E:
        """One of an enumeration's values (any case), such as the open chart tab."""
        raw = self.raw(name)
        if raw is None:
            return default
        try:
            return kind(raw.lower())
        except ValueError:
            choices = ", ".join(member.value for member in kind)
            self.problems.append(
                f'The link\'s "{name}" value {_quote(raw)} is not one of {choices}, so {meaning} '
                f'is "{default.value}".'
            )
            return default

    def whole_number(self, name: str, default: int, bounds: tuple[int, int], unit: str) -> int:
        """A whole number within `bounds` (inclusive), such as the flaky window."""
        raw = self.raw(name)
        if raw is None:
            return default
        low, high = bounds
        if re.match(r"^[0-9]{1,6}$", raw) and low <= int(raw) <= high:
            return int(raw)
        self.problems.append(
            f'The link\'s "{name}" value {_quote(raw)} is not a whole number of {unit} from '
            f"{low} to {high}, so {default} is used."
        )
        return default

    def share(self, name: str, default: float, bounds: tuple[float, float]) -> float:
        """A share within `bounds` (inclusive, within 0 to 1), such as the flaky threshold 0.2
        (a percentage like 20% is read too)."""
        raw = self.raw(name)
        if raw is None:
            return default
        low, high = bounds
        text = raw.removesuffix("%").strip()
        value: float | None = None
        if re.match(r"^[0-9]{1,3}(\.[0-9]{1,6})?$", text) or re.match(r"^\.[0-9]{1,6}$", text):
            value = round(float(text) / (100 if raw.endswith("%") else 1), 6)
        if value is not None and low <= value <= high:
            return value
        self.problems.append(
            f'The link\'s "{name}" value {_quote(raw)} is not a share from {low:g} to {high:g} '
            f"(such as {default:g}), so {default:g} is used."
        )
        return default

    def statuses(self) -> tuple[str, ...]:
        """Comma-separated status names (`status=FAILURE,ERROR`); a bad one is dropped."""
        raw = self.raw(STATUS)
        if raw is None:
            return ()
        names = [name.strip() for name in raw.split(",") if name.strip()]
        good = [name.upper() for name in names if _STATUS_RE.match(name)]
        bad = [name for name in names if not _STATUS_RE.match(name)] or ([] if names else [raw])
        for name in bad:
            rest = "the other statuses are" if good else "executions of every status are"
            self.problems.append(
                f'The link\'s "{STATUS}" value {_quote(name)} is not a status name, so {rest} '
                f"shown."
            )
        return tuple(dict.fromkeys(good))

    def day(self, name: str) -> date | None:
        raw = self.raw(name)
        if raw is None:
            return None
        if re.match(r"^\d{4}-\d{2}-\d{2}$", raw):
            try:
                day = date.fromisoformat(raw)
            except ValueError:  # a well-shaped impossible date, such as 2025-02-30
                day = None
            if day is not None and FIRST_DAY <= day <= LAST_DAY:
                return day
            if day is not None:
                self.problems.append(
                    f'The link\'s "{name}" value {_quote(raw)} is not between '
                    f"{FIRST_DAY.isoformat()} and {LAST_DAY.isoformat()}, so it was ignored."
                )
                return None
        self.problems.append(
            f'The link\'s "{name}" value {_quote(raw)} is not a date like 2025-11-22, '
            f"so it was ignored."
        )
        return None

    def instant(self, name: str) -> datetime | None:
        raw = self.raw(name)
        if raw is None:
            return None
        if _INSTANT_RE.match(raw):
            try:
                instant = datetime.fromisoformat(raw).astimezone(UTC)
            except (ValueError, OverflowError):  # impossible, such as 2026-11-31T25:00Z
                instant = None
            # Years far off would overflow a window around the time; no execution runs then.
            if instant is not None and 1970 <= instant.year <= 9998:
                return instant
        self.problems.append(
            f'The link\'s "{name}" value {_quote(raw)} is not a UTC time like '
            f"2026-11-20T09:15:00Z, so it was ignored."
        )
        return None

    def date_range(self) -> tuple[DateRange, date | None, date | None]:
        raw_range = self.raw(RANGE)
        date_from, date_to = self.day(FROM), self.day(TO)
        fallback = (DEFAULT_RANGE, None, None)
        if raw_range is None:
            # Dates without a preset mean the dates: that is what someone typing them meant.
            if date_from is None and date_to is None:
                return fallback
        else:
            try:
                if DateRange(raw_range.lower()) is not DateRange.CUSTOM:
                    return DateRange(raw_range.lower()), None, None
            except ValueError:
                choices = ", ".join(r.value for r in DateRange)
                self.problems.append(
                    f'The link\'s "{RANGE}" value {_quote(raw_range)} is not one of {choices}, '
                    f"so the last {DEFAULT_RANGE.label} are shown."
                )
                return fallback
            if date_from is None and date_to is None:
                if self.raw(FROM) is None and self.raw(TO) is None:  # bad dates said so already
                    self.problems.append(
                        f"A custom date range needs a start or an end date, so the last "
                        f"{DEFAULT_RANGE.label} are shown."
                    )
                return fallback
        if date_from is not None and date_to is not None and date_from > date_to:
            self.problems.append(
                f"The date range is reversed (from {date_from.isoformat()} is after to "
                f"{date_to.isoformat()}), so the last {DEFAULT_RANGE.label} are shown. "
                f"Pick the start date first."
            )
            return fallback
        return DateRange.CUSTOM, date_from, date_to

    def zone(self, name: str) -> str | None:
        """An IANA time zone name such as Europe/Istanbul."""
        raw = self.raw(name)
        if raw is None:
            return None
        if _ZONE_RE.match(raw):
            try:
                ZoneInfo(raw)
            except (ZoneInfoNotFoundError, ValueError):
                pass
            else:
                return raw
        self.problems.append(
            f'The link\'s "{name}" value {_quote(raw)} is not a time zone like Europe/Istanbul, '
            f"so your browser's time zone is used."
        )
        return None

    def time_of_day(self, name: str) -> time | None:
        """A local time of day, HH:MM."""
        raw = self.raw(name)
        if raw is None:
            return None
        match = re.match(r"^([01]?\d|2[0-3]):([0-5]\d)$", raw)
        if match:
            return time(int(match.group(1)), int(match.group(2)))
        self.problems.append(
            f'The link\'s "{name}" value {_quote(raw)} is not a time of day like 09:30, so '
            f"09:30 is used."
        )
        return None


_ZONE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+){0,2}$")


def _quote(raw: str, limit: int = 40) -> str:
    short = raw if len(raw) <= limit else raw[: limit - 1] + "…"
    return f'"{short}"'

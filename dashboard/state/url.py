"""The view state held in the URL: the one place that names the query parameters.

Everything a viewer sees is reproducible from the address bar, so every filter and selection is
a query parameter. URLs are user input (pasted into chat, edited by hand), so parsing never
raises: a bad value is dropped, the default is used, and a readable problem says what was wrong.
A link never carries a credential: no parameter here holds a token or an e-mail address ("only
mine" is a flag; the address comes from the viewer's own connection).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from enum import StrEnum

# The query parameter names. Values are always strings in the URL.
PROJECT = "project"
PLAN = "plan"
ACTIVE = "active"
RANGE = "range"
FROM = "from"
TO = "to"
STATUS = "status"
MINE = "mine"
EXECUTION = "execution"
# When the selected execution started (UTC, to the second). The API cannot fetch one execution
# by id, so this lets a results link find it with a query of a few minutes when it is no longer
# among the executions its filters select (a "last 7 days" link opened a month later).
STARTED = "started"

# Which parameters each page owns. A page writes exactly these back to the URL, so a shared link
# holds what that page shows and nothing stale from another page. The results page keeps the
# executions filters so that "back to executions" restores them.
PLANS_PARAMS: tuple[str, ...] = (PROJECT, ACTIVE)
EXECUTIONS_PARAMS: tuple[str, ...] = (PROJECT, PLAN, RANGE, FROM, TO, STATUS, MINE)
RESULTS_PARAMS: tuple[str, ...] = (*EXECUTIONS_PARAMS, EXECUTION, STARTED)


class DateRange(StrEnum):
    """Date-range presets of the executions page; CUSTOM uses the `from`/`to` dates."""

    LAST_24_HOURS = "24h"
    LAST_7_DAYS = "7d"
    LAST_30_DAYS = "30d"
    LAST_90_DAYS = "90d"
    CUSTOM = "custom"

    @property
    def label(self) -> str:
        return _RANGE_LABELS[self]


_RANGE_LABELS = {
    DateRange.LAST_24_HOURS: "24 h",
    DateRange.LAST_7_DAYS: "7 d",
    DateRange.LAST_30_DAYS: "30 d",
    DateRange.LAST_90_DAYS: "90 d",
    DateRange.CUSTOM: "Custom",
}
DEFAULT_RANGE = DateRange.LAST_7_DAYS
# The days a custom range may name. The date pickers need bounds, and a day outside these is a
# typo rather than a test run (and would overflow a window around it).
FIRST_DAY = date(1970, 1, 1)
LAST_DAY = date(9998, 12, 31)

_MAX_ID = 2**63 - 1  # ids are 64-bit Longs (spec section 2)
_ID_RE = re.compile(r"^[0-9]{1,19}$")
# Statuses are an open set (spec 4.2): any name-like value is accepted and passed on as itself.
_STATUS_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,39}$")
_INSTANT_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$")
_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off"})


@dataclass(frozen=True)
class ViewState:
    """Every filter and selection of the dashboard, typed and validated."""

    project: int | None = None
    plan: int | None = None
    active_only: bool = True
    date_range: DateRange = DEFAULT_RANGE
    date_from: date | None = None  # only with DateRange.CUSTOM
    date_to: date | None = None  # only with DateRange.CUSTOM
    statuses: tuple[str, ...] = ()  # executions of any of these statuses; () means any
    mine: bool = False
    execution: int | None = None
    execution_start: datetime | None = None  # a hint to find `execution` (UTC)

    def with_changes(self, **changes: object) -> ViewState:
        return replace(self, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True)
class ParsedState:
    """A view state and the problems found while reading it from the URL."""

    state: ViewState
    problems: list[str] = field(default_factory=list)


def parse(params: Mapping[str, str | list[str]], names: Iterable[str] | None = None) -> ParsedState:
    """Read the view state from query parameters; bad values become problems, never exceptions.

    With `names`, only those parameters are read (a page's own); the others keep defaults.
    """
    if names is not None:
        wanted = set(names)
        params = {name: value for name, value in params.items() if name in wanted}
    reader = _Reader(params)
    # Read in the order the filters appear on the pages, so problems are listed that way too.
    project = reader.id(PROJECT, "project")
    plan = reader.id(PLAN, "plan")
    active_only = reader.flag(ACTIVE, default=True, meaning='"active plans only"')
    statuses = reader.statuses()
    date_range, date_from, date_to = reader.date_range()
    state = ViewState(
        project=project,
        plan=plan,
        active_only=active_only,
        date_range=date_range,
        date_from=date_from,
        date_to=date_to,
        statuses=statuses,
        mine=reader.flag(MINE, default=False, meaning='"only my executions"'),
        execution=reader.id(EXECUTION, "execution"),
        execution_start=reader.instant(STARTED),
    )
    return ParsedState(state, reader.problems)


class _Reader:
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


def to_query_params(state: ViewState, names: Iterable[str]) -> dict[str, str]:
    """The query parameters for `state`, limited to `names`; defaults are left out of the URL."""
    values: dict[str, str | None] = {
        PROJECT: _str_or_none(state.project),
        PLAN: _str_or_none(state.plan),
        ACTIVE: None if state.active_only else "false",
        RANGE: None if state.date_range is DEFAULT_RANGE else state.date_range.value,
        FROM: _iso_or_none(state.date_from) if state.date_range is DateRange.CUSTOM else None,
        TO: _iso_or_none(state.date_to) if state.date_range is DateRange.CUSTOM else None,
        STATUS: ",".join(state.statuses) or None,
        MINE: "true" if state.mine else None,
        EXECUTION: _str_or_none(state.execution),
        STARTED: _instant_or_none(state.execution_start),
    }
    wanted = set(names)
    unknown = wanted - set(values)
    if unknown:
        raise ValueError(f"unknown query parameters: {sorted(unknown)}")
    return {name: value for name, value in values.items() if name in wanted and value is not None}


def _quote(raw: str, limit: int = 40) -> str:
    short = raw if len(raw) <= limit else raw[: limit - 1] + "…"
    return f'"{short}"'


def _str_or_none(value: int | None) -> str | None:
    return None if value is None else str(value)


def _iso_or_none(value: date | None) -> str | None:
    return None if value is None else value.isoformat()


def _instant_or_none(value: datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

"""Reading a link into a view state, and writing a view state into a link: both derived from the
parameter table (`dashboard.state.params`), row by row.

Parsing never raises: a bad value is dropped, the default is used, and a readable problem says
what was wrong. Defaults are left out of a written link, so a link holds only what was chosen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from dashboard.state.params import FROM, RANGE, TABLE, TO, DateRange, Param, ViewState

Query = Mapping[str, str | list[str]]
"""Query parameters as Streamlit gives them: a repeated one as a list."""


@dataclass(frozen=True)
class ParsedState:
    """A view state and the problems found while reading it from the URL."""

    state: ViewState
    problems: list[str] = field(default_factory=list)


def parse(query: Query, params: Iterable[Param[Any] | str] | None = None) -> ParsedState:
    """Read the view state from query parameters; bad values become problems, never exceptions.

    With `params` (a route's rows, or their names), only those are read; the others keep their
    defaults.
    """
    wanted = set(TABLE) if params is None else set(_ordered_rows(tuple(params)))
    problems: list[str] = []
    values: dict[str, Any] = {}
    given: set[Param[Any]] = set()
    for row in TABLE:
        raw = _raw(query, row.name) if row in wanted else None
        if raw is None:
            values[row.field] = row.default
        else:
            given.add(row)
            values[row.field] = row.kind.read(row.name, raw, row.default, problems)
        if row is TO:  # the last of the three that make one date range
            values.update(_one_date_range(values, given, problems))
    return ParsedState(ViewState(**values), problems)


def to_query_params(state: ViewState, params: Iterable[Param[Any] | str]) -> dict[str, str]:
    """The query parameters for `state`, limited to `params` (rows, or their names); defaults
    are left out, and so are a custom range's days under a preset.

    Called once per link of a table (up to 100,000 on Failures), so the rows a route takes are
    found once per `params` (`_ordered_rows`), not on every call.
    """
    custom = state.date_range is DateRange.CUSTOM
    key = params if isinstance(params, tuple) else tuple(params)
    return {
        name: write(value)
        for name, field_name, default, write, day in _writers(key)
        if (value := getattr(state, field_name)) != default and (custom or not day)
    }


def _one_date_range(
    values: dict[str, Any], given: set[Param[Any]], problems: list[str]
) -> dict[str, Any]:
    """The preset and the custom days, settled together: a preset drops the days; days without
    a preset mean the days (that is what someone typing them meant); a custom range needs a day
    and an order."""
    chosen, first, last = values[RANGE.field], values[FROM.field], values[TO.field]
    default = RANGE.default
    fallback = {RANGE.field: default, FROM.field: None, TO.field: None}
    if RANGE in given and chosen is not DateRange.CUSTOM:
        return {RANGE.field: chosen, FROM.field: None, TO.field: None}
    if first is None and last is None:
        if RANGE in given and FROM not in given and TO not in given:  # bad days said so already
            problems.append(
                f"A custom date range needs a start or an end date, so the last "
                f"{default.label} are shown."
            )
        return fallback
    if first is not None and last is not None and first > last:
        problems.append(
            f"The date range is reversed (from {first.isoformat()} is after to "
            f"{last.isoformat()}), so the last {default.label} are shown. Pick the start date "
            f"first."
        )
        return fallback
    return {RANGE.field: DateRange.CUSTOM, FROM.field: first, TO.field: last}


def _raw(query: Query, name: str) -> str | None:
    value = query.get(name)
    if isinstance(value, list):  # a repeated parameter: the last wins, as in st.query_params
        value = value[-1] if value else None
    if value is None:
        return None
    return value.strip() or None


_BY_NAME: dict[str, Param[Any]] = {row.name: row for row in TABLE}


@cache
def _ordered_rows(params: tuple[Param[Any] | str, ...]) -> tuple[Param[Any], ...]:
    """The rows `params` names (rows or their names), in the table's order; one computation per
    distinct `params` (a route's tuple: a handful in all)."""
    chosen = {_BY_NAME.get(item, item) if isinstance(item, str) else item for item in params}
    unknown = sorted(str(item) for item in chosen if item not in TABLE)
    if unknown:
        raise ValueError(f"unknown query parameters: {unknown}")
    return tuple(row for row in TABLE if row in chosen)


@cache
def _writers(
    params: tuple[Param[Any] | str, ...],
) -> tuple[tuple[str, str, Any, Callable[[Any], str], bool], ...]:
    """What `to_query_params` needs of each row, looked up once: its name, field, default,
    writer, and whether it is one of a custom range's days."""
    return tuple(
        (row.name, row.field, row.default, row.kind.write, row is FROM or row is TO)
        for row in _ordered_rows(params)
    )

"""Frames in and out of the history store: typed, deduplicated, renamed to the tables' columns.

The helpers `HistoryStore` uses between pandas and the SQL of `store.sql`: what a staged frame
looks like for each table, the upsert of one, the parameters of a windowed query, and times read
back from the store. No database here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any, TypedDict

import pandas as pd

from dashboard.columns.schemas import PAIR_COLUMNS
from dashboard.columns.shapes import typed
from dashboard.data.store import sql
from dashboard.data.store.engine import StoreEngine, with_staged
from dashboard.data.store.types import EXECUTION_ID_COLUMNS


def pairs_frame(pairs: Iterable[tuple[int, int]]) -> pd.DataFrame:
    """(execution, scenario) pairs as a PAIR_COLUMNS frame, each pair once, in order."""
    unique = list(dict.fromkeys((int(e), int(s)) for e, s in pairs))
    return typed(
        pd.DataFrame(
            {"execution_id": [e for e, _ in unique], "scenario_id": [s for _, s in unique]}
        ),
        PAIR_COLUMNS,
    )


def ids_frame(execution_ids: Iterable[int]) -> pd.DataFrame:
    unique = list(dict.fromkeys(int(e) for e in execution_ids))
    return typed(pd.DataFrame({"execution_id": unique}), EXECUTION_ID_COLUMNS)


def as_table(frame: pd.DataFrame, table: str) -> pd.DataFrame:
    """A frame with the history schema's names, renamed to `table`'s columns, in their order."""
    renamed = frame.rename(columns=TABLE_NAMES.get(table, {}))
    return renamed.loc[:, list(sql.table_columns(table))].reset_index(drop=True)


TABLE_NAMES: dict[str, dict[str, str]] = {
    "plans": {
        "plan": "plan_name",
        "type": "plan_type",
        "project": "project_name",
        "created": "created_at",
        "updated": "updated_at",
    },
    "executions": {
        "start": "start_at",
        "end": "end_at",
        "plan": "plan_name",
        "project": "project_name",
        "user": "username",
    },
    "execution_statuses": {"count": "status_count"},
    "results": {"start": "start_at"},
}


def upsert(db: StoreEngine, table: str, frame: pd.DataFrame) -> None:
    if frame.empty:
        return
    with db.staged(frame) as name:
        db.execute(with_staged(sql.upsert_from_staged(table), name))


def unique(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """One row per key (the last one given): an upsert cannot update a row twice at once."""
    return frame.drop_duplicates(subset=keys, keep="last").reset_index(drop=True)


class Window(TypedDict, total=False):
    """The window of a windowed read: start times from and to (inclusive, time-zone aware),
    optionally one plan or project; a filter left out (or None) is not applied."""

    date_from: datetime | None
    date_to: datetime | None
    plan_id: int | None
    project_id: int | None


def windowed(
    build: Callable[[sql.Filters], str],
    *,
    date_from: datetime | None = None,
    date_to: datetime | None = None,
    plan_id: int | None = None,
    project_id: int | None = None,
) -> tuple[str, dict[str, Any]]:
    """A windowed query and its parameters, with only the filters that are set."""
    for name, bound in (("date_from", date_from), ("date_to", date_to)):
        if bound is not None and (bound.tzinfo is None or bound.utcoffset() is None):
            raise ValueError(f"{name} must be a timezone-aware datetime")
    given: dict[str, Any] = {
        "date_from": date_from,
        "date_to": date_to,
        "plan_id": plan_id,
        "project_id": project_id,
    }
    params = {name: value for name, value in given.items() if value is not None}
    return build(frozenset(params)), params


def utc(value: Any) -> datetime | None:
    if value is None or pd.isna(value):
        return None
    stamp = pd.Timestamp(value)
    stamp = stamp.tz_localize(UTC) if stamp.tzinfo is None else stamp.tz_convert(UTC)
    return stamp.to_pydatetime()


def parse_time(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return utc(datetime.fromisoformat(text))
    except ValueError:
        return None

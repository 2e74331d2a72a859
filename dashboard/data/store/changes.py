"""A finished execution the service sends again, compared with the version the store holds.

A finished execution never changes, so the store keeps the version it stored first. One that
comes back different (a new summary, no result ids, a renamed plan) is the service contradicting
its own data: the store notes which parts changed and keeps what it has, never writing over it
without a word. Pure pandas: the store reads the stored versions, this says what differs.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

import pandas as pd

from dashboard.data.store.records import ExecutionFrames

PARTS: tuple[str, ...] = (
    "start",
    "end",
    "plan",
    "project",
    "user",
    "runtime",
    "summary",
    "result ids",
)
"""What can change, in the order a note names them."""

_COLUMN_PARTS: dict[str, str] = {
    "start": "start",
    "end": "end",
    "plan_id": "plan",
    "plan": "plan",
    "project_id": "project",
    "project": "project",
    "user": "user",
    "runtime_ms": "runtime",
}


def changed_parts(stored: ExecutionFrames, offered: ExecutionFrames) -> dict[int, tuple[str, ...]]:
    """For each execution in both `stored` and `offered` whose versions differ, the parts
    (`PARTS`, in order) that `offered` changes. Both have the history frames' columns and
    dtypes, one row per execution, per (execution, status) and per (execution, ordinal)."""
    both = stored.executions.merge(
        offered.executions, on="execution_id", suffixes=("_stored", "_offered")
    )
    among = set(both["execution_id"].tolist())
    found: dict[int, set[str]] = {}

    def note(ids: Iterable[int], part: str) -> None:
        for execution_id in ids:
            found.setdefault(int(execution_id), set()).add(part)

    for column, part in _COLUMN_PARTS.items():
        differ = ~_same(both[f"{column}_stored"], both[f"{column}_offered"])
        note(both.loc[differ, "execution_id"].tolist(), part)
    note(_children_differ(stored.statuses, offered.statuses, "status", "count", among), "summary")
    note(
        _children_differ(stored.result_ids, offered.result_ids, "ordinal", "result_id", among),
        "result ids",
    )
    return {e: tuple(p for p in PARTS if p in parts) for e, parts in sorted(found.items())}


def _children_differ(
    stored: pd.DataFrame, offered: pd.DataFrame, key: str, value: str, among: Collection[int]
) -> set[int]:
    """The executions among `among` whose child rows (by `key`) differ in presence or `value`."""
    columns = ["execution_id", key, value]
    merged = pd.merge(
        stored.loc[stored["execution_id"].isin(among), columns],
        offered.loc[offered["execution_id"].isin(among), columns],
        on=["execution_id", key],
        how="outer",
        suffixes=("_stored", "_offered"),
        indicator=True,
    )
    differ = (merged["_merge"] != "both") | ~_same(
        merged[f"{value}_stored"], merged[f"{value}_offered"]
    )
    return {int(e) for e in merged.loc[differ, "execution_id"].tolist()}


def _same(stored: pd.Series, offered: pd.Series) -> pd.Series:
    """Equal, or missing on both sides."""
    equal = (stored == offered).fillna(False).astype(bool)
    return equal | (stored.isna() & offered.isna())

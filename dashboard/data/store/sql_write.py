"""The statements that store and clear history: upserts and inserts from a staged frame, the
store's own metadata, and emptying the data tables.

Only fixed identifiers from this module are formatted into a statement (checked against the
known tables); every value is a bound parameter.
"""

from __future__ import annotations

from collections.abc import Collection

DATA_TABLES: tuple[str, ...] = (
    "plans",
    "plan_scenarios",
    "executions",
    "execution_statuses",
    "execution_result_ids",
    "results",
    "fetched_pairs",
    "changed_executions",
)
"""What `clear` empties. The schema version and the store's identity stay."""


def clear_table(table: str) -> str:
    _require_known(table, DATA_TABLES)
    return f"DELETE FROM {table}"


PLAN_TABLE_COLUMNS: tuple[str, ...] = (
    "plan_id",
    "plan_name",
    "plan_type",
    "project_id",
    "project_name",
    "enabled",
    "project_enabled",
    "created_at",
    "updated_at",
)
PLAN_SCENARIO_TABLE_COLUMNS: tuple[str, ...] = ("plan_id", "ordinal", "scenario_id")
EXECUTION_TABLE_COLUMNS: tuple[str, ...] = (
    "execution_id",
    "start_at",
    "end_at",
    "plan_id",
    "plan_name",
    "project_id",
    "project_name",
    "username",
    "runtime_ms",
)
EXECUTION_STATUS_TABLE_COLUMNS: tuple[str, ...] = ("execution_id", "status", "status_count")
EXECUTION_RESULT_ID_TABLE_COLUMNS: tuple[str, ...] = ("execution_id", "ordinal", "result_id")
RESULT_TABLE_COLUMNS: tuple[str, ...] = (
    "result_id",
    "execution_id",
    "plan_id",
    "project_id",
    "scenario_id",
    "level",
    "runtime_s",
    "start_at",
    "environment_id",
    "os",
    "browser",
    "browser_version",
    "device",
    "mobile",
    "resolution",
    "message",
    "node_log",
    "executor_log",
    "screenshots",
    "video",
    "unlinked_logs",
)
FETCHED_PAIR_TABLE_COLUMNS: tuple[str, ...] = (
    "execution_id",
    "scenario_id",
    "result_count",
    "fetched_at",
)
CHANGED_EXECUTION_TABLE_COLUMNS: tuple[str, ...] = ("execution_id", "noticed_at", "what")

_TABLE_COLUMNS: dict[str, tuple[str, ...]] = {
    "plans": PLAN_TABLE_COLUMNS,
    "plan_scenarios": PLAN_SCENARIO_TABLE_COLUMNS,
    "executions": EXECUTION_TABLE_COLUMNS,
    "execution_statuses": EXECUTION_STATUS_TABLE_COLUMNS,
    "execution_result_ids": EXECUTION_RESULT_ID_TABLE_COLUMNS,
    "results": RESULT_TABLE_COLUMNS,
    "fetched_pairs": FETCHED_PAIR_TABLE_COLUMNS,
    "changed_executions": CHANGED_EXECUTION_TABLE_COLUMNS,
    "store_meta": ("key", "value"),
}
_KEYS: dict[str, tuple[str, ...]] = {
    "plans": ("plan_id",),
    "plan_scenarios": ("plan_id", "ordinal"),
    "executions": ("execution_id",),
    "execution_statuses": ("execution_id", "status"),
    "execution_result_ids": ("execution_id", "ordinal"),
    "results": ("result_id",),
    "fetched_pairs": ("execution_id", "scenario_id"),
    "changed_executions": ("execution_id",),
    "store_meta": ("key",),
}


def table_columns(table: str) -> tuple[str, ...]:
    """The columns a staged frame for `table` must have, in order."""
    _require_known(table, _TABLE_COLUMNS)
    return _TABLE_COLUMNS[table]


def upsert_from_staged(table: str) -> str:
    """Insert every row of `{staged}` into `table`, replacing rows with the same key.

    The staged frame has exactly `table_columns(table)`, each key at most once (an upsert
    cannot update one row twice in one statement).
    """
    keys = _KEYS[table]
    updates = ", ".join(f"{c} = excluded.{c}" for c in table_columns(table) if c not in keys)
    return _insert_from_staged(table, f"DO UPDATE SET {updates}" if updates else "DO NOTHING")


def insert_new_from_staged(table: str) -> str:
    """Insert the rows of `{staged}` whose key `table` does not hold yet; a stored row stays as
    it was first written."""
    return _insert_from_staged(table, "DO NOTHING")


def _insert_from_staged(table: str, on_conflict: str) -> str:
    names = ", ".join(table_columns(table))
    keys = ", ".join(_KEYS[table])
    return (
        f"INSERT INTO {table} ({names}) SELECT {names} FROM {{staged}} "
        f"ON CONFLICT ({keys}) {on_conflict}"
    )


DELETE_PLANS = "DELETE FROM plans"
DELETE_PLAN_SCENARIOS = "DELETE FROM plan_scenarios"

SET_META = """
INSERT INTO store_meta (key, value) VALUES (:key, :value)
ON CONFLICT (key) DO UPDATE SET value = excluded.value
"""

ADD_META = """
INSERT INTO store_meta (key, value) VALUES (:key, :value)
ON CONFLICT (key) DO NOTHING
"""
"""A fact noted once: the first writer's value stays."""


def _require_known(name: str, known: Collection[str]) -> None:
    if name not in known:
        raise ValueError(f"unknown table {name!r}")

"""The statements that store and clear history: upserts from a staged frame, the children an
execution replaces, the store's own metadata, and emptying the data tables.

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

_TABLE_COLUMNS: dict[str, tuple[str, ...]] = {
    "plans": PLAN_TABLE_COLUMNS,
    "plan_scenarios": PLAN_SCENARIO_TABLE_COLUMNS,
    "executions": EXECUTION_TABLE_COLUMNS,
    "execution_statuses": EXECUTION_STATUS_TABLE_COLUMNS,
    "execution_result_ids": EXECUTION_RESULT_ID_TABLE_COLUMNS,
    "results": RESULT_TABLE_COLUMNS,
    "fetched_pairs": FETCHED_PAIR_TABLE_COLUMNS,
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
    columns = table_columns(table)
    keys = _KEYS[table]
    names = ", ".join(columns)
    updates = ", ".join(f"{c} = excluded.{c}" for c in columns if c not in keys)
    action = f"DO UPDATE SET {updates}" if updates else "DO NOTHING"
    return (
        f"INSERT INTO {table} ({names}) SELECT {names} FROM {{staged}} "
        f"ON CONFLICT ({', '.join(keys)}) {action}"
    )


def delete_children_of_staged(table: str) -> str:
    """Remove the child rows (statuses, result ids) of the executions in `{staged}`, so that
    storing an execution again leaves exactly its new children."""
    _require_known(table, ("execution_statuses", "execution_result_ids"))
    return f"DELETE FROM {table} WHERE execution_id IN (SELECT execution_id FROM {{staged}})"


DELETE_PLANS = "DELETE FROM plans"
DELETE_PLAN_SCENARIOS = "DELETE FROM plan_scenarios"

SET_META = """
INSERT INTO store_meta (key, value) VALUES (:key, :value)
ON CONFLICT (key) DO UPDATE SET value = excluded.value
"""


def _require_known(name: str, known: Collection[str]) -> None:
    if name not in known:
        raise ValueError(f"unknown table {name!r}")

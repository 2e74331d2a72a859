"""Every SQL statement of the history store, in one place, written once for both engines.

Only portable SQL is used, so the PostgreSQL backend (issue #16) runs these same statements:
standard types (BIGINT, INTEGER, VARCHAR, BOOLEAN, TIMESTAMPTZ), `INSERT ... ON CONFLICT ... DO
UPDATE` (DuckDB and PostgreSQL both), `information_schema`, and named parameters written
`:name`, which each engine turns into its own placeholders (DuckDB `$name`, psycopg
`%(name)s`). A parameter that may be NULL is wrapped in `CAST(:name AS type)` so PostgreSQL
knows its type. Where a frame is handed over in bulk, the statement reads it as `{staged}`: the
engine names the relation (DuckDB: the registered pandas frame; PostgreSQL: a temporary table
filled by COPY).

Columns are named so that no table column is a reserved word in either engine (`start_at`,
`end_at`, `username`); queries alias them to the frame names of `dashboard.data.schemas`.
Only fixed identifiers from this module are ever formatted into a statement; every value is a
bound parameter.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

# -- schema ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Migration:
    """The statements that bring a store from `version - 1` to `version`, run in one
    transaction together with the new version's row in `schema_version`."""

    version: int
    summary: str
    statements: tuple[str, ...]
    only_for: str | None = None
    """An engine kind ("postgresql") whose stores alone run the statements; the others record
    the version and skip them (DuckDB's zone maps need no index, and its indexes slow upserts)."""


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "plans, finished executions, results and fetched (execution, scenario) pairs",
        (
            """CREATE TABLE schema_version (
                version INTEGER NOT NULL,
                applied_at TIMESTAMPTZ NOT NULL
            )""",
            """CREATE TABLE store_meta (
                key VARCHAR PRIMARY KEY,
                value VARCHAR
            )""",
            """CREATE TABLE plans (
                plan_id BIGINT PRIMARY KEY,
                plan_name VARCHAR,
                plan_type VARCHAR,
                project_id BIGINT,
                project_name VARCHAR,
                enabled BOOLEAN,
                project_enabled BOOLEAN,
                created_at TIMESTAMPTZ,
                updated_at TIMESTAMPTZ
            )""",
            """CREATE TABLE plan_scenarios (
                plan_id BIGINT NOT NULL,
                ordinal INTEGER NOT NULL,
                scenario_id BIGINT NOT NULL,
                PRIMARY KEY (plan_id, ordinal)
            )""",
            """CREATE TABLE executions (
                execution_id BIGINT PRIMARY KEY,
                start_at TIMESTAMPTZ,
                end_at TIMESTAMPTZ,
                plan_id BIGINT,
                plan_name VARCHAR,
                project_id BIGINT,
                project_name VARCHAR,
                username VARCHAR,
                runtime_ms BIGINT
            )""",
            """CREATE TABLE execution_statuses (
                execution_id BIGINT NOT NULL,
                status VARCHAR NOT NULL,
                status_count BIGINT NOT NULL,
                PRIMARY KEY (execution_id, status)
            )""",
            """CREATE TABLE execution_result_ids (
                execution_id BIGINT NOT NULL,
                ordinal INTEGER NOT NULL,
                result_id BIGINT NOT NULL,
                PRIMARY KEY (execution_id, ordinal)
            )""",
            """CREATE TABLE results (
                result_id BIGINT PRIMARY KEY,
                execution_id BIGINT NOT NULL,
                plan_id BIGINT,
                project_id BIGINT,
                scenario_id BIGINT NOT NULL,
                level VARCHAR,
                runtime_s BIGINT,
                start_at TIMESTAMPTZ,
                environment_id BIGINT,
                os VARCHAR,
                browser VARCHAR,
                browser_version VARCHAR,
                device VARCHAR,
                mobile BOOLEAN,
                resolution VARCHAR,
                message VARCHAR,
                node_log VARCHAR,
                executor_log VARCHAR
            )""",
            """CREATE TABLE fetched_pairs (
                execution_id BIGINT NOT NULL,
                scenario_id BIGINT NOT NULL,
                result_count INTEGER NOT NULL,
                fetched_at TIMESTAMPTZ NOT NULL,
                PRIMARY KEY (execution_id, scenario_id)
            )""",
        ),
    ),
    Migration(
        2,
        "results: the results page's screenshot and video flags and non-link log paths",
        (
            "ALTER TABLE results ADD COLUMN screenshots BOOLEAN",
            "ALTER TABLE results ADD COLUMN video BOOLEAN",
            "ALTER TABLE results ADD COLUMN unlinked_logs VARCHAR",
        ),
    ),
    Migration(
        3,
        "PostgreSQL: indexes for the windows pages select (time, plan, project, pairs)",
        (
            "CREATE INDEX results_plan_start ON results (plan_id, start_at)",
            "CREATE INDEX results_project_start ON results (project_id, start_at)",
            "CREATE INDEX results_start ON results (start_at)",
            "CREATE INDEX results_pair ON results (execution_id, scenario_id)",
            "CREATE INDEX executions_start ON executions (start_at)",
            "CREATE INDEX executions_plan_start ON executions (plan_id, start_at)",
            "CREATE INDEX executions_project_start ON executions (project_id, start_at)",
        ),
        only_for="postgresql",
    ),
)
"""Every schema version in order. A new version is a new entry here, never an edit of an old
one: stores in the field are at any of these versions and are brought forward step by step."""

SCHEMA_VERSION = MIGRATIONS[-1].version

TABLE_EXISTS: dict[str, str] = {
    # DuckDB's own catalog function answers in well under a millisecond; its
    # information_schema takes tens of milliseconds on a fresh connection.
    "duckdb": "SELECT COUNT(*) FROM duckdb_tables() WHERE table_name = :table_name",
    "postgresql": "SELECT COUNT(*) FROM pg_tables "
    "WHERE tablename = :table_name AND schemaname = current_schema()",
}
"""Whether a table exists: the one statement that differs by engine."""

CURRENT_VERSION = "SELECT MAX(version) FROM schema_version"

RECORD_VERSION = "INSERT INTO schema_version (version, applied_at) VALUES (:version, :applied_at)"

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


COUNT_RESULTS = "SELECT COUNT(*) FROM results"


def clear_table(table: str) -> str:
    _require_known(table, DATA_TABLES)
    return f"DELETE FROM {table}"


# -- writing -----------------------------------------------------------------------------------

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

GET_META = "SELECT key, value FROM store_meta"

# -- reading -----------------------------------------------------------------------------------

_EXECUTION_SELECT = """
SELECT e.execution_id, e.start_at AS "start", e.end_at AS "end", e.plan_id,
       e.plan_name AS plan, e.project_id, e.project_name AS project, e.username AS "user",
       e.runtime_ms
FROM executions AS e
"""

_RESULT_SELECT = """
SELECT r.result_id, r.execution_id, r.plan_id, r.project_id, r.scenario_id, r.level,
       r.runtime_s, r.start_at AS "start", r.environment_id, r.os, r.browser,
       r.browser_version, r.device, r.mobile, r.resolution, r.message, r.node_log,
       r.executor_log, r.screenshots, r.video, r.unlinked_logs
FROM results AS r
"""

_RESULT_ORDER = " ORDER BY r.execution_id, r.scenario_id, r.result_id"


def _window(
    alias: str, column: str, *, date_from: bool, date_to: bool, plan: bool, project: bool
) -> str:
    """The WHERE clause of a time window on `alias.column`, optionally one plan or project.

    Built from the filters that are set (rather than `:x IS NULL OR ...`) so that each engine
    can use its zone maps or indexes on what is actually filtered.
    """
    conditions = ["1 = 1"]
    if date_from:
        conditions.append(f"{alias}.{column} >= :date_from")
    if date_to:
        conditions.append(f"{alias}.{column} <= :date_to")
    if plan:
        conditions.append(f"{alias}.plan_id = :plan_id")
    if project:
        conditions.append(f"{alias}.project_id = :project_id")
    return " WHERE " + " AND ".join(conditions)


def executions_in_window(*, date_from: bool, date_to: bool, plan: bool, project: bool) -> str:
    """Stored executions that started in the window (bounds inclusive), newest first."""
    where = _window(
        "e", "start_at", date_from=date_from, date_to=date_to, plan=plan, project=project
    )
    return _EXECUTION_SELECT + where + " ORDER BY e.start_at DESC, e.execution_id DESC"


def statuses_in_window(*, date_from: bool, date_to: bool, plan: bool, project: bool) -> str:
    """The status counts of the executions `executions_in_window` selects, in long form."""
    where = _window(
        "e", "start_at", date_from=date_from, date_to=date_to, plan=plan, project=project
    )
    return (
        'SELECT s.execution_id, e.start_at AS "start", s.status, s.status_count AS "count" '
        "FROM execution_statuses AS s JOIN executions AS e ON e.execution_id = s.execution_id"
        + where
        + " ORDER BY e.start_at, s.execution_id, s.status"
    )


RESULT_IDS_OF_STAGED_EXECUTIONS = """
SELECT i.execution_id, i.result_id
FROM execution_result_ids AS i JOIN {staged} AS wanted ON wanted.execution_id = i.execution_id
ORDER BY i.execution_id, i.ordinal
"""

RESULTS_OF_STAGED_EXECUTIONS = (
    _RESULT_SELECT
    + " JOIN {staged} AS wanted ON wanted.execution_id = r.execution_id"
    + _RESULT_ORDER
)

RESULTS_OF_STAGED_PAIRS = (
    _RESULT_SELECT
    + " JOIN {staged} AS wanted ON wanted.execution_id = r.execution_id"
    + " AND wanted.scenario_id = r.scenario_id"
    + _RESULT_ORDER
)

STORED_OF_STAGED_PAIRS = """
SELECT f.execution_id, f.scenario_id
FROM fetched_pairs AS f
JOIN {staged} AS wanted
  ON wanted.execution_id = f.execution_id AND wanted.scenario_id = f.scenario_id
ORDER BY f.execution_id, f.scenario_id
"""


def results_in_window(*, date_from: bool, date_to: bool, plan: bool, project: bool) -> str:
    """Stored results that started in the window (bounds inclusive), optionally of one plan or
    project."""
    where = _window(
        "r", "start_at", date_from=date_from, date_to=date_to, plan=plan, project=project
    )
    return _RESULT_SELECT + where + _RESULT_ORDER


def scenario_results(*, date_from: bool, date_to: bool) -> str:
    """The stored results of one scenario of one plan that started in the window."""
    where = _window("r", "start_at", date_from=date_from, date_to=date_to, plan=True, project=False)
    return _RESULT_SELECT + where + " AND r.scenario_id = :scenario_id" + _RESULT_ORDER


def missing_pairs(*, date_from: bool, date_to: bool) -> str:
    """(execution, scenario) pairs of stored executions in the window whose results have not
    been fetched: newest executions first, scenarios in their plan's order. The scenarios of an
    execution are its plan's, as the plans operation lists them."""
    where = _window(
        "e", "start_at", date_from=date_from, date_to=date_to, plan=False, project=False
    )
    return (
        "SELECT e.execution_id, s.scenario_id FROM executions AS e "
        "JOIN plan_scenarios AS s ON s.plan_id = e.plan_id"
        + where
        + " AND NOT EXISTS (SELECT 1 FROM fetched_pairs AS f "
        "WHERE f.execution_id = e.execution_id AND f.scenario_id = s.scenario_id) "
        "GROUP BY e.execution_id, s.scenario_id "
        "ORDER BY MAX(e.start_at) DESC, e.execution_id DESC, MIN(s.ordinal)"
    )


INFO = """
SELECT
    (SELECT COUNT(*) FROM plans) AS plans,
    (SELECT COUNT(*) FROM executions) AS executions,
    (SELECT COUNT(*) FROM results) AS results,
    (SELECT COUNT(*) FROM fetched_pairs) AS fetched_pairs,
    (SELECT MIN(start_at) FROM executions) AS oldest_execution,
    (SELECT MAX(start_at) FROM executions) AS newest_execution,
    (SELECT MIN(start_at) FROM results) AS oldest_result,
    (SELECT MAX(start_at) FROM results) AS newest_result
"""


def _require_known(name: str, known: Collection[str]) -> None:
    if name not in known:
        raise ValueError(f"unknown table {name!r}")

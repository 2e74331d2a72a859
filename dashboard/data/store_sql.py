"""Every SQL statement of the history store, written once for both engines, under one name.

Only portable SQL is used, so the PostgreSQL backend (issue #16) runs these same statements:
standard types (BIGINT, INTEGER, VARCHAR, BOOLEAN, TIMESTAMPTZ), `INSERT ... ON CONFLICT ... DO
UPDATE` (DuckDB and PostgreSQL both), `information_schema`, and named parameters written
`:name`, which each engine turns into its own placeholders (DuckDB `$name`, psycopg
`%(name)s`). A parameter that may be NULL is wrapped in `CAST(:name AS type)` so PostgreSQL
knows its type. Where a frame is handed over in bulk, the statement reads it as `{staged}`: the
engine names the relation (DuckDB: the registered pandas frame; PostgreSQL: a temporary table
filled by COPY).

Columns are named so that no table column is a reserved word in either engine (`start_at`,
`end_at`, `username`); queries alias them to the frame names of `dashboard.columns.schemas`.
Only fixed identifiers from these modules are ever formatted into a statement; every value is a
bound parameter.

The statements live by what they do: `store_sql_schema` (the tables' migrations and the schema
version), `store_sql_write` (upserts, replaced children, metadata, clearing) and
`store_sql_read` (the queries). Callers read them all as `store_sql.NAME`.
"""

from __future__ import annotations

from dashboard.data.store_sql_read import (
    COUNT_RESULTS,
    GET_META,
    INFO,
    RESULT_IDS_OF_STAGED_EXECUTIONS,
    RESULTS_OF_STAGED_EXECUTIONS,
    RESULTS_OF_STAGED_PAIRS,
    STORED_OF_STAGED_PAIRS,
    executions_in_window,
    missing_pairs,
    results_in_window,
    scenario_results,
    statuses_in_window,
)
from dashboard.data.store_sql_schema import (
    CURRENT_VERSION,
    MIGRATIONS,
    RECORD_VERSION,
    SCHEMA_VERSION,
    TABLE_EXISTS,
    Migration,
)
from dashboard.data.store_sql_write import (
    DATA_TABLES,
    DELETE_PLAN_SCENARIOS,
    DELETE_PLANS,
    EXECUTION_RESULT_ID_TABLE_COLUMNS,
    EXECUTION_STATUS_TABLE_COLUMNS,
    EXECUTION_TABLE_COLUMNS,
    FETCHED_PAIR_TABLE_COLUMNS,
    PLAN_SCENARIO_TABLE_COLUMNS,
    PLAN_TABLE_COLUMNS,
    RESULT_TABLE_COLUMNS,
    SET_META,
    clear_table,
    delete_children_of_staged,
    table_columns,
    upsert_from_staged,
)

__all__ = [
    "COUNT_RESULTS",
    "CURRENT_VERSION",
    "DATA_TABLES",
    "DELETE_PLANS",
    "DELETE_PLAN_SCENARIOS",
    "EXECUTION_RESULT_ID_TABLE_COLUMNS",
    "EXECUTION_STATUS_TABLE_COLUMNS",
    "EXECUTION_TABLE_COLUMNS",
    "FETCHED_PAIR_TABLE_COLUMNS",
    "GET_META",
    "INFO",
    "MIGRATIONS",
    "PLAN_SCENARIO_TABLE_COLUMNS",
    "PLAN_TABLE_COLUMNS",
    "RECORD_VERSION",
    "RESULTS_OF_STAGED_EXECUTIONS",
    "RESULTS_OF_STAGED_PAIRS",
    "RESULT_IDS_OF_STAGED_EXECUTIONS",
    "RESULT_TABLE_COLUMNS",
    "SCHEMA_VERSION",
    "SET_META",
    "STORED_OF_STAGED_PAIRS",
    "TABLE_EXISTS",
    "Migration",
    "clear_table",
    "delete_children_of_staged",
    "executions_in_window",
    "missing_pairs",
    "results_in_window",
    "scenario_results",
    "statuses_in_window",
    "table_columns",
    "upsert_from_staged",
]

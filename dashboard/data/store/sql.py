"""Every SQL statement of the history store, written once for both engines, under one name.

Only portable SQL is used, so the PostgreSQL backend runs these same statements:
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

The statements live by what they do: `store.sql_schema` (the tables' migrations and the schema
version), `store.sql_write` (upserts, inserts, metadata, clearing),
`store.sql_read` (the queries) and `store.sql_marks` (the known-failure ledger's). Callers read
them as `store.sql.NAME`; the ledger reads its own from `store.sql_marks`.
"""

from __future__ import annotations

from dashboard.data.store.sql_marks import COUNT_MARKS
from dashboard.data.store.sql_read import (
    CHANGED_EXECUTIONS,
    COUNT_PLANS,
    COUNT_RESULTS,
    EXECUTIONS_OF_STAGED,
    GET_META,
    INFO,
    RESULT_IDS_OF_STAGED_EXECUTIONS,
    RESULTS_OF_STAGED_EXECUTIONS,
    RESULTS_OF_STAGED_PAIRS,
    STATUSES_OF_STAGED_EXECUTIONS,
    STORED_OF_STAGED_PAIRS,
    Filters,
    executions_in_window,
    missing_pairs,
    results_in_window,
    scenario_results,
    statuses_in_window,
)
from dashboard.data.store.sql_schema import (
    CURRENT_VERSION,
    MIGRATIONS,
    RECORD_VERSION,
    SCHEMA_VERSION,
    TABLE_EXISTS,
    Migration,
)
from dashboard.data.store.sql_write import (
    ADD_META,
    CHANGED_EXECUTION_TABLE_COLUMNS,
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
    insert_new_from_staged,
    table_columns,
    upsert_from_staged,
)

__all__ = [
    "ADD_META",
    "CHANGED_EXECUTIONS",
    "CHANGED_EXECUTION_TABLE_COLUMNS",
    "COUNT_MARKS",
    "COUNT_PLANS",
    "COUNT_RESULTS",
    "CURRENT_VERSION",
    "DATA_TABLES",
    "DELETE_PLANS",
    "DELETE_PLAN_SCENARIOS",
    "EXECUTIONS_OF_STAGED",
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
    "STATUSES_OF_STAGED_EXECUTIONS",
    "STORED_OF_STAGED_PAIRS",
    "TABLE_EXISTS",
    "Filters",
    "Migration",
    "clear_table",
    "executions_in_window",
    "insert_new_from_staged",
    "missing_pairs",
    "results_in_window",
    "scenario_results",
    "statuses_in_window",
    "table_columns",
    "upsert_from_staged",
]

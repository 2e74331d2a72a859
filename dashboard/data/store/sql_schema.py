"""The history store's tables, as migrations: every schema version's DDL in order, and the
statements that read and record which version a store is at.

Portable SQL only (see `store.sql`), so DuckDB and PostgreSQL run the same statements.
"""

from __future__ import annotations

from dataclasses import dataclass


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
    Migration(
        4,
        "finished executions the service sent again changed: noted, the stored version kept",
        (
            """CREATE TABLE changed_executions (
                execution_id BIGINT PRIMARY KEY,
                noticed_at TIMESTAMPTZ NOT NULL,
                what VARCHAR NOT NULL
            )""",
        ),
    ),
    Migration(
        5,
        "readers: the HMACs keyed by a salt beside them dropped (readers are kept as scrypt now)",
        ("DELETE FROM store_meta WHERE key = 'reader_salt' OR key LIKE 'reader:%'",),
    ),
    Migration(
        6,
        "the known-failure ledger: marks and their append-only change log (not history: kept "
        "by `clear`)",
        (
            """CREATE TABLE marks (
                mark_id VARCHAR PRIMARY KEY,
                company_id BIGINT NOT NULL,
                target_type VARCHAR NOT NULL,
                signature VARCHAR,
                plan_id BIGINT,
                scenario_id BIGINT,
                environment VARCHAR,
                execution_id BIGINT,
                kind VARCHAR NOT NULL,
                ticket VARCHAR,
                note VARCHAR,
                owner_name VARCHAR,
                expires_on TIMESTAMPTZ,
                created_by VARCHAR NOT NULL,
                created_at TIMESTAMPTZ NOT NULL,
                updated_at TIMESTAMPTZ NOT NULL,
                closed_by VARCHAR,
                closed_at TIMESTAMPTZ,
                revision INTEGER NOT NULL
            )""",
            """CREATE TABLE mark_log (
                mark_id VARCHAR NOT NULL,
                revision INTEGER NOT NULL,
                changed_at TIMESTAMPTZ NOT NULL,
                actor VARCHAR NOT NULL,
                action VARCHAR NOT NULL,
                what VARCHAR NOT NULL,
                PRIMARY KEY (mark_id, revision)
            )""",
        ),
    ),
    Migration(
        7,
        "alerts: each change the worker noticed (plan red or green again, scenario broken or "
        "flaky, a mark expiring or looking fixed) and when it was announced (not history: kept "
        "by `clear`)",
        (
            """CREATE TABLE alerts (
                alert_key VARCHAR PRIMARY KEY,
                kind VARCHAR NOT NULL,
                plan_id BIGINT,
                project_id BIGINT,
                title VARCHAR NOT NULL,
                body VARCHAR NOT NULL,
                link VARCHAR,
                noticed_at TIMESTAMPTZ NOT NULL,
                announced_at TIMESTAMPTZ
            )""",
        ),
    ),
    Migration(
        8,
        "a team's words for its history: scenario names and owners, and rules for failure "
        "groups (categories, merges), each with who changed it and when (not history: kept by "
        "`clear`)",
        (
            """CREATE TABLE scenario_names (
                company_id BIGINT NOT NULL,
                scenario_id BIGINT NOT NULL,
                name VARCHAR NOT NULL,
                owner_address VARCHAR,
                tags VARCHAR,
                changed_by VARCHAR NOT NULL,
                changed_at TIMESTAMPTZ NOT NULL,
                PRIMARY KEY (company_id, scenario_id)
            )""",
            """CREATE TABLE group_rules (
                rule_id VARCHAR PRIMARY KEY,
                company_id BIGINT NOT NULL,
                message_pattern VARCHAR NOT NULL,
                scenario_pattern VARCHAR,
                plan_id BIGINT,
                environment_pattern VARCHAR,
                action VARCHAR NOT NULL,
                label VARCHAR NOT NULL,
                created_by VARCHAR NOT NULL,
                created_at TIMESTAMPTZ NOT NULL,
                removed_by VARCHAR,
                removed_at TIMESTAMPTZ
            )""",
        ),
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

"""SQLite tables of the demo data. Timestamps are Unix milliseconds, lists are JSON text.

Test results have no table: they are derived on request (see `outcomes.py`).
"""

TABLES = """
DROP TABLE IF EXISTS executions;
DROP TABLE IF EXISTS setup_delays;
DROP TABLE IF EXISTS alerts;
DROP TABLE IF EXISTS plan_environments;
DROP TABLE IF EXISTS plan_scenarios;
DROP TABLE IF EXISTS plans;
DROP TABLE IF EXISTS scenarios;
DROP TABLE IF EXISTS environments;
DROP TABLE IF EXISTS users;
DROP TABLE IF EXISTS projects;
DROP TABLE IF EXISTS companies;

CREATE TABLE companies (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL
);
CREATE TABLE projects (
    id INTEGER PRIMARY KEY,
    company_id INTEGER NOT NULL REFERENCES companies (id),
    name TEXT NOT NULL,
    enabled INTEGER NOT NULL
);
-- Users may belong to a company that is not in `companies` (the orphaned demo user).
CREATE TABLE users (
    id INTEGER PRIMARY KEY,
    company_id INTEGER NOT NULL,
    company_name TEXT NOT NULL,
    username TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    surname TEXT NOT NULL,
    email TEXT NOT NULL,
    language TEXT NOT NULL,
    time_zone TEXT NOT NULL,
    roles TEXT NOT NULL,
    access_token TEXT NOT NULL
);
CREATE TABLE environments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    operating_system TEXT NOT NULL,
    operating_system_clean_name TEXT NOT NULL,
    browser_type TEXT NOT NULL,
    environment_type TEXT NOT NULL,
    environment_version TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    mobile INTEGER NOT NULL,
    screen_resolution TEXT NOT NULL
);
-- Behaviour columns feed outcomes.Behaviour; `kind` names it for people reading the data.
CREATE TABLE scenarios (
    id INTEGER PRIMARY KEY,
    company_id INTEGER NOT NULL REFERENCES companies (id),
    project_id INTEGER NOT NULL REFERENCES projects (id),
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    base_runtime_s REAL NOT NULL,
    fail_rate REAL NOT NULL,
    focus_fail_rate REAL NOT NULL,
    fail_from REAL NOT NULL,
    fail_until REAL NOT NULL,
    fails_on TEXT NOT NULL,
    slowdown REAL NOT NULL,
    -- Planted cases (planted.py): JSON [[from_ms, until_ms], ...] of failing starts, a runtime
    -- step, the level and message template of every failure ('' for the usual mix).
    fail_windows TEXT NOT NULL,
    step_from_ms INTEGER NOT NULL,
    step_factor REAL NOT NULL,
    failure_level TEXT NOT NULL,
    failure_message TEXT NOT NULL
);
-- Nullable columns are the fields the spec allows to be absent.
CREATE TABLE plans (
    id INTEGER PRIMARY KEY,
    company_id INTEGER NOT NULL REFERENCES companies (id),
    project_id INTEGER NOT NULL REFERENCES projects (id),
    type TEXT NOT NULL,
    plan_name TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    group_plan INTEGER NOT NULL,
    plan_parallel_test_limit INTEGER NOT NULL,
    failed_test_retry_count INTEGER NOT NULL,
    alerts_enabled_result INTEGER NOT NULL,
    test_run_type TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER,
    created_by TEXT NOT NULL,
    updated_by TEXT NOT NULL,
    tracker_enabled INTEGER NOT NULL,
    screen_shot_type TEXT NOT NULL,
    video_enabled INTEGER NOT NULL,
    java_parameters TEXT NOT NULL,
    performance_data_enabled INTEGER,
    file_download_path TEXT,
    clear_app_data INTEGER,
    uninstall_app_after_test INTEGER
);
CREATE TABLE plan_scenarios (
    plan_id INTEGER NOT NULL REFERENCES plans (id),
    position INTEGER NOT NULL,
    scenario_id INTEGER NOT NULL REFERENCES scenarios (id),
    PRIMARY KEY (plan_id, position)
);
-- The environments a plan may run on; each execution runs on some of them.
CREATE TABLE plan_environments (
    plan_id INTEGER NOT NULL REFERENCES plans (id),
    position INTEGER NOT NULL,
    environment_id INTEGER NOT NULL REFERENCES environments (id),
    PRIMARY KEY (plan_id, position)
);
-- A plan whose executions wait longer for their environments from some moment on (planted).
CREATE TABLE setup_delays (
    plan_id INTEGER PRIMARY KEY REFERENCES plans (id),
    from_ms INTEGER NOT NULL,
    extra_s INTEGER NOT NULL
);
CREATE TABLE alerts (
    plan_id INTEGER NOT NULL REFERENCES plans (id),
    position INTEGER NOT NULL,
    alert_type TEXT NOT NULL,
    alert_sending_status TEXT NOT NULL,
    target TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    unsubscribe_link_eliminated INTEGER NOT NULL,
    PRIMARY KEY (plan_id, position)
);
CREATE TABLE executions (
    id INTEGER PRIMARY KEY,
    company_id INTEGER NOT NULL,
    project_id INTEGER NOT NULL,
    plan_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    start_ms INTEGER NOT NULL,
    end_ms INTEGER NOT NULL,
    runtime_ms INTEGER NOT NULL,
    status TEXT NOT NULL,
    environment_ids TEXT NOT NULL,
    result_summary TEXT NOT NULL,
    test_results TEXT NOT NULL,
    status_counts TEXT NOT NULL
);
"""

# Created after the bulk insert (faster). One per filter the list operation offers, each ending
# in the sort order, so a filtered page is an index range scan.
INDEXES = """
CREATE INDEX executions_by_company ON executions (company_id, start_ms, id);
CREATE INDEX executions_by_project ON executions (company_id, project_id, start_ms, id);
CREATE INDEX executions_by_plan ON executions (company_id, plan_id, start_ms, id);
CREATE INDEX executions_by_status ON executions (company_id, status, start_ms, id);
CREATE INDEX executions_by_user ON executions (company_id, user_id, start_ms, id);
ANALYZE;
"""

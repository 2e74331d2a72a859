"""The columns and dtypes of the frames that cross layers: loaders and the history store produce
them, analytics and presentation consume them. Every frame has exactly these, even when empty."""

from __future__ import annotations

from dashboard.analytics.frames import UTC_TIME

PLAN_COLUMNS: dict[str, str] = {
    "plan_id": "int64",
    "plan": "str",
    "type": "str",
    "project_id": "Int64",
    "project": "str",
    "scenarios": "int64",
    "scenario_ids": "object",  # tuple of scenario ids, for the results page
    "enabled": "boolean",
    "parallel_limit": "Int64",
    "retries": "Int64",
    "alerts": "int64",  # enabled alerts
    "created": UTC_TIME,
    "created_by": "str",
    "updated": UTC_TIME,
    "updated_by": "str",
}

EXECUTION_COLUMNS: dict[str, str] = {
    "execution_id": "int64",
    "start": UTC_TIME,
    "end": UTC_TIME,
    "plan_id": "Int64",
    "plan": "str",
    "project_id": "Int64",
    "project": "str",
    "user": "str",
    "runtime_ms": "Int64",
    "results": "int64",
    "verdicts": "int64",  # results with a verdict (analytics.verdicts.VERDICT_STATUSES)
    "passed": "int64",  # results that passed (SUCCESS)
    "failed": "int64",
    "pass_rate": "float64",  # passed / verdicts, NaN when there is no verdict yet
    "status": "str",  # the execution's status from its summary (verdicts.execution_status)
    "finished": "bool",  # an end and no result still running (verdicts.execution_finished)
}

STATUS_COUNT_COLUMNS: dict[str, str] = {
    "execution_id": "int64",
    "start": UTC_TIME,
    "status": "str",
    "count": "int64",
}

RESULT_COLUMNS: dict[str, str] = {
    "scenario_id": "Int64",
    "result_id": "int64",
    "level": "str",
    "runtime_s": "Int64",
    "os": "str",
    "browser": "str",
    "browser_version": "str",
    "device": "str",
    "mobile": "boolean",
    "resolution": "str",
    "message": "str",
    "screenshots": "boolean",
    "video": "boolean",
    "node_log": "str",  # an http(s) URL, or missing
    "executor_log": "str",  # an http(s) URL, or missing
    "unlinked_logs": "str",  # log paths that are not web links, shown as inert text
    "start": UTC_TIME,
}


RESULT_HISTORY_COLUMNS: dict[str, str] = {
    "result_id": "int64",
    "execution_id": "int64",
    "plan_id": "Int64",
    "project_id": "Int64",
    "scenario_id": "Int64",
    "level": "str",
    "runtime_s": "Int64",  # seconds, as the service gives a result's runtime
    "start": UTC_TIME,
    "environment_id": "Int64",
    "os": "str",  # the readable name when the service gives one, else the code
    "browser": "str",  # browser_type, e.g. CHROME
    "browser_version": "str",  # environment_version, e.g. 134 or LATEST
    "device": "str",  # environment_type: lower-case browser on desktop, a device name on mobile
    "mobile": "boolean",
    "resolution": "str",
    "message": "str",
    "node_log": "str",  # an http(s) URL, or missing
    "executor_log": "str",  # an http(s) URL, or missing
    # What the results page shows beside the above, so a stored execution needs no request:
    "screenshots": "boolean",  # screenshots_enabled
    "video": "boolean",  # video_enabled
    "unlinked_logs": "str",  # log paths that are not http(s) links, shown as inert text
}
"""One row per test result (a scenario on one environment in one execution), across executions:
what the history store keeps and cross-run analytics read. Never a user's `access_token`."""

EXECUTION_HISTORY_COLUMNS: dict[str, str] = {
    "execution_id": "int64",
    "start": UTC_TIME,
    "end": UTC_TIME,
    "plan_id": "Int64",
    "plan": "str",
    "project_id": "Int64",
    "project": "str",
    "user": "str",  # the username who started it
    "runtime_ms": "Int64",  # milliseconds, as the service gives an execution's runtime
}
"""One row per finished execution the history store holds (newest first). Its status counts are
`EXECUTION_STATUS_COLUMNS`, in long form."""

EXECUTION_STATUS_COLUMNS: dict[str, str] = {
    "execution_id": "int64",
    "start": UTC_TIME,
    "status": "str",
    "count": "int64",
}
"""An execution's `result_summary` in long form: one row per (execution, status)."""

PAIR_COLUMNS: dict[str, str] = {
    "execution_id": "int64",
    "scenario_id": "int64",
}
"""(execution, scenario) pairs: the unit the service serves results by, one request each."""

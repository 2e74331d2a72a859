"""The columns and dtypes of the dashboard's frames, each written once.

The frames that cross layers are spelled out whole: loaders and the history store produce them,
analytics and presentation consume them, and every such frame has exactly these columns, even
when empty. The groups of columns that many frames carry (the plan a row belongs to, the
environment a result ran on, a scenario on an environment) are named too, so an analytic builds
its output schema from them instead of listing those columns and dtypes again.
"""

from __future__ import annotations

UTC_TIME = "datetime64[us, UTC]"
"""Every instant in a frame: aware and in UTC (pages convert to the viewer's zone)."""

# -- groups of columns that many frames carry ------------------------------------------------

PLAN_AND_PROJECT: dict[str, str] = {
    "plan_id": "Int64",
    "plan": "str",
    "project_id": "Int64",
    "project": "str",
}
"""The plan a row belongs to and its project, by id and name (missing where an execution names
no plan)."""

ENVIRONMENT: dict[str, str] = {
    "os": "str",  # the readable name when the service gives one, else the code
    "browser": "str",  # browser_type, e.g. CHROME
    "browser_version": "str",  # environment_version, e.g. 134 or LATEST
    "device": "str",  # environment_type: lower-case browser on desktop, a device name on mobile
    "mobile": "boolean",
}
"""The environment a result ran on, as results carry it; `analytics.environment_names` makes
one key and one label of these."""

ENVIRONMENT_NAME: dict[str, str] = {
    "env_key": "str",  # what analytics group on
    "environment": "str",  # the label people read, e.g. "SAFARI 17 / macOS"
}
"""An environment once named (`analytics.environment_names`)."""

PLAN_SCENARIO: dict[str, str] = {
    "plan_id": "Int64",
    "scenario_id": "Int64",
}
"""A scenario of a plan: a row of the per-scenario analytics."""

SCENARIO_ON_ENVIRONMENT: dict[str, str] = {**PLAN_SCENARIO, **ENVIRONMENT_NAME}
"""A scenario of a plan on one environment: a row of the scenario x environment analytics."""

# -- the frames that cross layers ------------------------------------------------------------

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
"""One row per test plan, as the service lists them."""

EXECUTION_HISTORY_COLUMNS: dict[str, str] = {
    "execution_id": "int64",
    "start": UTC_TIME,
    "end": UTC_TIME,
    **PLAN_AND_PROJECT,
    "user": "str",  # the username who started it
    "runtime_ms": "Int64",  # milliseconds, as the service gives an execution's runtime
}
"""One row per finished execution the history store holds (newest first). Its status counts are
`EXECUTION_STATUS_COLUMNS`, in long form."""

EXECUTION_COLUMNS: dict[str, str] = {
    **EXECUTION_HISTORY_COLUMNS,
    "results": "int64",
    "verdicts": "int64",  # results with a verdict (analytics.verdicts.VERDICT_STATUSES)
    "passed": "int64",  # results that passed (SUCCESS)
    "failed": "int64",
    "pass_rate": "float64",  # passed / verdicts, NaN when there is no verdict yet
    "status": "str",  # the execution's status from its summary (verdicts.execution_status)
    "finished": "bool",  # an end and no result still running (verdicts.execution_finished)
}
"""One row per execution as the pages use it, listed or stored alike: what the store keeps of
it, and what its status counts say."""

STATUS_COUNT_COLUMNS: dict[str, str] = {
    "execution_id": "int64",
    "start": UTC_TIME,
    "status": "str",
    "count": "int64",
}
"""An execution's `result_summary` in long form: one row per (execution, status)."""

EXECUTION_STATUS_COLUMNS = STATUS_COUNT_COLUMNS
"""The status counts the history store keeps: the same shape as those of a listed execution."""

RESULT_COLUMNS: dict[str, str] = {
    "scenario_id": "Int64",
    "result_id": "int64",
    "level": "str",
    "runtime_s": "Int64",
    **ENVIRONMENT,
    "resolution": "str",
    "message": "str",
    "screenshots": "boolean",
    "video": "boolean",
    "node_log": "str",  # an http(s) URL, or missing
    "executor_log": "str",  # an http(s) URL, or missing
    "unlinked_logs": "str",  # log paths that are not web links, shown as inert text
    "start": UTC_TIME,
}
"""One row per result of one execution, as its results page shows them."""

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
    **ENVIRONMENT,
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

PAIR_COLUMNS: dict[str, str] = {
    "execution_id": "int64",
    "scenario_id": "int64",
}
"""(execution, scenario) pairs: the unit the service serves results by, one request each."""

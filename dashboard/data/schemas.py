"""The columns and dtypes of the frames that cross layers: loaders and the history store produce
them, analytics and presentation consume them. Every frame has exactly these, even when empty."""

from __future__ import annotations

UTC_TIME = "datetime64[us, UTC]"

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
}
"""One row per test result (a scenario on one environment in one execution), across executions:
what the history store keeps and cross-run analytics read. Never a user's `access_token`."""

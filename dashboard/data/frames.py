"""Records -> data frames: machine column names and fixed dtypes (`dashboard.columns.schemas`).

Columns are built one by one from the model attributes the dashboard needs. Nothing is dumped
wholesale from a model: a test result's `user_info` (which carries another user's access token)
never enters a frame.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from api_client import Execution, TestPlan, TestResult
from dashboard.analytics.verdicts import (
    execution_finished,
    execution_status,
    has_verdict,
    is_failing,
    is_passed,
)
from dashboard.columns.schemas import (
    EXECUTION_COLUMNS,
    PLAN_COLUMNS,
    RESULT_COLUMNS,
    STATUS_COUNT_COLUMNS,
)
from dashboard.columns.shapes import sorted_frame, typed_rows


def plans_frame(plans: Iterable[TestPlan]) -> pd.DataFrame:
    """One row per plan, sorted by project then plan name."""
    rows = [
        {
            "plan_id": plan.id,
            "plan": plan.plan_name,
            "type": plan.type,
            "project_id": plan.project_id,
            "project": plan.project_name,
            "scenarios": len(plan.scenarios),
            "scenario_ids": tuple(plan.scenarios),
            "enabled": plan.enabled,
            "parallel_limit": plan.plan_parallel_test_limit,
            "retries": plan.failed_test_retry_count,
            "alerts": sum(1 for alert in plan.alerts if alert.enabled is not False),
            "created": plan.created_at,
            "created_by": plan.created_by,
            "updated": plan.updated_at,
            "updated_by": plan.updated_by,
        }
        for plan in plans
    ]
    frame = typed_rows(rows, PLAN_COLUMNS)
    return sorted_frame(frame, ["project", "plan", "plan_id"])


def executions_frame(executions: Iterable[Execution]) -> pd.DataFrame:
    """One row per execution, newest first. Built column by column (no dict per row: at 70,000
    executions those dicts alone weighed more than the frame)."""
    return executions_frame_of(_as_records(executions))


def executions_frame_of(records: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """`executions_frame` of execution records (`api_client.ExecutionRecord`): no models."""
    return sorted_executions(_columns_frame(_execution_columns(records), EXECUTION_COLUMNS))


def sorted_executions(frame: pd.DataFrame) -> pd.DataFrame:
    """The executions frame's order: newest first (then the highest id), a fresh index."""
    return sorted_frame(frame, ["start", "execution_id"], ascending=False)


_EXECUTION_FIELDS = (
    ("execution_id", "id"),
    ("start", "start_date"),
    ("end", "end_date"),
    ("plan_id", "plan_id"),
    ("plan", "plan_name"),
    ("project_id", "project_id"),
    ("project", "project_name"),
    ("user", "username"),
    ("runtime_ms", "runtime"),
)
"""The executions frame's columns read as they are, each from its record field."""


def _as_records(executions: Iterable[Execution]) -> list[Mapping[str, Any]]:
    """Models as the records they were validated from would read (their fields by name)."""
    return [execution.__dict__ for execution in executions]


def _execution_columns(records: Sequence[Mapping[str, Any]]) -> dict[str, list[object]]:
    """The executions frame's columns of some execution records (`api_client.records`; a
    field a record lacks is the model's default). The derived columns are worked out once per
    distinct (ended or not, `result_summary`): 70,000 executions have a few dozen."""
    columns: dict[str, list[object]] = {
        column: [record.get(name) for record in records] for column, name in _EXECUTION_FIELDS
    }
    derived: dict[tuple[bool, tuple[tuple[str, int], ...]], dict[str, object]] = {}
    rows: list[dict[str, object]] = []
    for record in records:
        end = record.get("end_date")
        counts = record.get("result_summary") or {}
        key = (end is None, tuple(counts.items()))
        row = derived.get(key)
        if row is None:
            row = derived[key] = summary_columns(end, counts)
        rows.append(row)
    for name in _SUMMARY_NAMES:
        columns[name] = [row[name] for row in rows]
    return columns


def _columns_frame(columns: dict[str, list[object]], schema: Mapping[str, str]) -> pd.DataFrame:
    """A frame of equal-length column lists with exactly `schema`'s dtypes, each column made
    with its dtype (not inferred, then converted: a third less work)."""
    return pd.DataFrame(
        {name: pd.Series(columns[name], dtype=dtype) for name, dtype in schema.items()}
    )


_SUMMARY_NAMES = ("results", "verdicts", "passed", "failed", "pass_rate", "status", "finished")
"""The columns `summary_columns` derives, in the frame's order."""


def summary_columns(end: object, counts: Mapping[str, int]) -> dict[str, object]:
    """What the executions frame derives from an execution's `result_summary`: counts, pass
    rate, status and whether it is finished (`analytics.verdicts`, the one rule)."""
    total = sum(counts.values())
    # Only known verdicts count: a waiting, stopped or unknown status is neither a pass nor
    # a failure, so it is left out of the pass rate instead of lowering it.
    verdicts = sum(n for status, n in counts.items() if has_verdict(status))
    passed = sum(n for status, n in counts.items() if is_passed(status))
    failed = sum(n for status, n in counts.items() if is_failing(status))
    return {
        "results": total,
        "verdicts": verdicts,
        "passed": passed,
        "failed": failed,
        "pass_rate": passed / verdicts if verdicts else float("nan"),
        "status": execution_status(counts),
        "finished": execution_finished(end, counts),
    }


def executions_of_history(executions: pd.DataFrame, statuses: pd.DataFrame) -> pd.DataFrame:
    """Stored executions (`EXECUTION_HISTORY_COLUMNS`) with their status counts
    (`EXECUTION_STATUS_COLUMNS`) as the executions frame the pages use, newest first: a stored
    execution is shown exactly as if the service had just listed it."""
    summaries: dict[int, dict[str, int]] = {}
    for execution_id, status, count in zip(
        statuses["execution_id"], statuses["status"], statuses["count"], strict=True
    ):
        summary = summaries.setdefault(int(execution_id), {})
        summary[str(status)] = summary.get(str(status), 0) + int(count)
    rows = [
        {
            **row,
            **summary_columns(row["end"], summaries.get(int(row["execution_id"]), {})),
        }
        for row in executions.to_dict("records")
    ]
    return sorted_frame(
        typed_rows(rows, EXECUTION_COLUMNS), ["start", "execution_id"], ascending=False
    )


def status_counts_frame(executions: Iterable[Execution]) -> pd.DataFrame:
    """`result_summary` in long form: one row per (execution, status) with a count."""
    return sorted_status_counts(
        _columns_frame(_status_count_columns(_as_records(executions)), STATUS_COUNT_COLUMNS)
    )


def sorted_status_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """The status counts' order: oldest start first, then execution and status."""
    return sorted_frame(frame, ["start", "execution_id", "status"])


def _status_count_columns(records: Sequence[Mapping[str, Any]]) -> dict[str, list[object]]:
    columns: dict[str, list[object]] = {name: [] for name in STATUS_COUNT_COLUMNS}
    ids, starts, statuses, numbers = (
        columns["execution_id"],
        columns["start"],
        columns["status"],
        columns["count"],
    )
    for record in records:
        counts = record.get("result_summary")
        if not counts:
            continue
        identity, start = record["id"], record.get("start_date")
        for status, count in counts.items():
            ids.append(identity)
            starts.append(start)
            statuses.append(status)
            numbers.append(count)
    return columns


FOLD_BATCH_ROWS = 5_000
"""How many executions' models are gathered before they become a typed chunk of the frames:
enough that pages of 50 cost no more to frame than one list of every execution (a frame per
page of 50 took 5 times as long), few enough to weigh little (about 15 MB) beside every model
of a large window."""


class ExecutionFrames:
    """The executions frame and the status-counts frame, built page by page as a walk folds
    its pages in (`ApiClient.fold_execution_records(ExecutionFrames, ExecutionFrames.add_records,
    ...)`), so a page's records can be dropped once they are taken in: at 100,000 executions
    the models of every page held at once weighed about 200 MB, the frames about 20 MB.

    `frames()` gives exactly what `executions_frame` and `status_counts_frame` give for the same
    executions in the same order: same columns, dtypes, row order and index. `add` takes
    models (`ApiClient.fold_executions`), `add_records` the records a walk reads.
    """

    def __init__(self, batch_rows: int = FOLD_BATCH_ROWS) -> None:
        self._batch_rows = batch_rows
        self._records: list[Mapping[str, Any]] = []
        self._execution_chunks: list[pd.DataFrame] = []
        self._count_chunks: list[pd.DataFrame] = []

    def add(self, executions: Iterable[Execution]) -> ExecutionFrames:
        """Take in some executions (a page's models), in order; returns itself (an `AddPage`)."""
        return self.add_records(_as_records(executions))

    def add_records(self, records: Iterable[Mapping[str, Any]]) -> ExecutionFrames:
        """Take in some execution records (a page's), in order; returns itself (an
        `AddRecords`)."""
        self._records.extend(records)
        if len(self._records) >= self._batch_rows:
            self._flush()
        return self

    def frames(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """(executions frame, status-counts frame) of every execution taken in."""
        self._flush()
        # The chunks are replaced by the frame they join before it is sorted (a copy): at
        # 70,000 executions that is 10 MB less at the peak of a load.
        self._execution_chunks = [joined(self._execution_chunks, EXECUTION_COLUMNS)]
        self._count_chunks = [joined(self._count_chunks, STATUS_COUNT_COLUMNS)]
        return (
            sorted_executions(self._execution_chunks[0]),
            sorted_status_counts(self._count_chunks[0]),
        )

    def _flush(self) -> None:
        """Turn the records gathered so far into typed chunks, and let them go."""
        if not self._records:
            return
        batch, self._records = self._records, []
        self._execution_chunks.append(_columns_frame(_execution_columns(batch), EXECUTION_COLUMNS))
        self._count_chunks.append(
            _columns_frame(_status_count_columns(batch), STATUS_COUNT_COLUMNS)
        )


def joined(parts: Sequence[pd.DataFrame], schema: Mapping[str, str]) -> pd.DataFrame:
    """Frames of `schema`'s columns one after the other, with its dtypes, a fresh index."""
    if not parts:
        return _columns_frame({name: [] for name in schema}, schema)
    if len(parts) == 1:
        return parts[0].reset_index(drop=True)
    # Every part has the schema's dtypes already; `astype` keeps them if pandas ever widens a
    # dtype while joining (it does not today: the equality tests would say).
    return pd.concat(parts, ignore_index=True).astype(dict(schema))


RESULT_ORDER = ["scenario_id", "os", "browser", "browser_version", "result_id"]
"""How one execution's results are listed, fetched or stored alike: by scenario, then
environment."""


def results_frame(results: Iterable[TestResult]) -> pd.DataFrame:
    """One row per result (a scenario on one environment), by scenario then environment."""
    rows = []
    for result in results:
        env = result.environment
        unlinked = [
            f"{label}: {path}"
            for label, path in (
                ("node", result.node_log_path),
                ("executor", result.executor_log_path),
            )
            if path and not is_web_url(path)
        ]
        rows.append(
            {
                "scenario_id": result.scenario_id,
                "result_id": result.id,
                "level": result.level,
                "runtime_s": result.runtime,
                "os": (env.operating_system_clean_name or env.operating_system) if env else None,
                "browser": env.browser_type if env else None,
                "browser_version": env.environment_version if env else None,
                "device": env.environment_type if env else None,
                "mobile": env.mobile if env else None,
                "resolution": result.screen_resolution,
                "message": result.message,
                "screenshots": result.screenshots_enabled,
                "video": result.video_enabled,
                "node_log": result.node_log_path if is_web_url(result.node_log_path) else None,
                "executor_log": (
                    result.executor_log_path if is_web_url(result.executor_log_path) else None
                ),
                "unlinked_logs": "; ".join(unlinked) or None,
                "start": result.start_date,
            }
        )
    return sorted_frame(typed_rows(rows, RESULT_COLUMNS), RESULT_ORDER)


def is_web_url(value: object) -> bool:
    """True only for absolute http(s) URLs: the only log paths rendered as links.

    Anything else (`javascript:`, `data:`, relative paths, blanks) stays inert text.
    """
    if not isinstance(value, str) or _SPACE_OR_CONTROL.search(value):
        return False
    return _WEB_URL.match(value) is not None


# `\s` in a str pattern matches exactly the characters `str.isspace` calls spaces (every code
# point checked): one regular expression instead of a check per character.
_SPACE_OR_CONTROL = re.compile(r"[\s\x00-\x1f]")
_WEB_URL = re.compile(r"(?i)^https?://[^/\s?#]+")

"""Service records -> the frames the history store keeps, and which executions are finished.

Frames are built column by column from the attributes the store keeps, never by dumping a
model: a result's `user_info` carries another user's access token, and nothing of it is read
here. These are the only functions that turn `api_client` models into history frames.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import pandas as pd

from api_client import Execution, ResultRecord, TestPlan, TestResult
from dashboard.analytics.verdicts import execution_finished, is_running
from dashboard.columns.schemas import (
    EXECUTION_HISTORY_COLUMNS,
    EXECUTION_STATUS_COLUMNS,
    RESULT_HISTORY_COLUMNS,
    UTC_TIME,
)
from dashboard.columns.shapes import typed
from dashboard.data.frames import is_web_url

R = TypeVar("R", TestPlan, Execution)

PLAN_HISTORY_COLUMNS: dict[str, str] = {
    "plan_id": "int64",
    "plan": "str",
    "type": "str",
    "project_id": "Int64",
    "project": "str",
    "enabled": "boolean",
    "project_enabled": "boolean",
    "created": UTC_TIME,
    "updated": UTC_TIME,
}
"""The plans the store keeps (replaced at each sync): what names an execution's plan and project."""

PLAN_SCENARIO_COLUMNS: dict[str, str] = {
    "plan_id": "int64",
    "ordinal": "int64",
    "scenario_id": "int64",
}
"""Each plan's scenarios in its own order: the scenarios whose results an execution has."""

EXECUTION_RESULT_ID_COLUMNS: dict[str, str] = {
    "execution_id": "int64",
    "ordinal": "int64",
    "result_id": "int64",
}
"""An execution's `test_results` ids, in the service's order."""


@dataclass(frozen=True)
class PlanFrames:
    plans: pd.DataFrame  # PLAN_HISTORY_COLUMNS
    scenarios: pd.DataFrame  # PLAN_SCENARIO_COLUMNS


@dataclass(frozen=True)
class ExecutionFrames:
    executions: pd.DataFrame  # EXECUTION_HISTORY_COLUMNS
    statuses: pd.DataFrame  # EXECUTION_STATUS_COLUMNS
    result_ids: pd.DataFrame  # EXECUTION_RESULT_ID_COLUMNS


# -- which executions are finished -------------------------------------------------------------


def execution_is_finished(execution: Execution) -> bool:
    """Whether an execution is finished (`analytics.verdicts.execution_finished`, the one rule):
    only a finished execution and its results are stored, as they never change again. A running
    one's results are always fetched fresh (the service gives a running execution an end at its
    "now", so the end alone does not say it is over)."""
    return execution_finished(execution.end_date, execution.result_summary)


def finished_execution_ids(executions: pd.DataFrame, status_counts: pd.DataFrame) -> frozenset[int]:
    """The finished executions among a page's frames: `executions` with `execution_id` and
    `end`, `status_counts` in long form with `execution_id`, `status` and `count` (the live
    loaders' frames and the store's have these columns)."""
    if executions.empty:
        return frozenset()
    ended = executions.loc[executions["end"].notna(), "execution_id"]
    counts = status_counts.loc[status_counts["count"].fillna(0) > 0]
    running_status = counts["status"].astype("str").map(is_running).astype("bool")
    running = set(counts.loc[running_status, "execution_id"].astype("int64"))
    return frozenset(int(e) for e in ended if int(e) not in running)


# -- records -> frames -------------------------------------------------------------------------


_PLAN_FIELDS: dict[str, str] = {
    "plan_id": "id",
    "plan": "plan_name",
    "type": "type",
    "project_id": "project_id",
    "project": "project_name",
    "enabled": "enabled",
    "project_enabled": "project_enabled",
    "created": "created_at",
    "updated": "updated_at",
}
"""PLAN_HISTORY_COLUMNS, each from its `TestPlan` attribute."""

_EXECUTION_FIELDS: dict[str, str] = {
    "execution_id": "id",
    "start": "start_date",
    "end": "end_date",
    "plan_id": "plan_id",
    "plan": "plan_name",
    "project_id": "project_id",
    "project": "project_name",
    "user": "username",
    "runtime_ms": "runtime",
}
"""EXECUTION_HISTORY_COLUMNS, each from its `Execution` attribute."""


def _attributes(records: Sequence[object], fields: Mapping[str, str]) -> pd.DataFrame:
    """One row per record, one column per field: `fields` maps a column to an attribute."""
    return pd.DataFrame(
        {column: [getattr(r, name) for r in records] for column, name in fields.items()}
    )


def _listed(
    records: Sequence[R], id_column: str, items: Callable[[R], Sequence[int]], column: str
) -> pd.DataFrame:
    """One row per item of each record's list (its id, the item's place, the item)."""
    return pd.DataFrame(
        {
            id_column: [r.id for r in records for _ in items(r)],
            "ordinal": [i for r in records for i in range(len(items(r)))],
            column: [item for r in records for item in items(r)],
        }
    )


def plan_frames(plans: Iterable[TestPlan]) -> PlanFrames:
    plans = list(plans)
    scenarios = _listed(plans, "plan_id", lambda p: p.scenarios, "scenario_id")
    return PlanFrames(
        typed(_attributes(plans, _PLAN_FIELDS), PLAN_HISTORY_COLUMNS),
        typed(scenarios, PLAN_SCENARIO_COLUMNS),
    )


def execution_frames(executions: Iterable[Execution]) -> ExecutionFrames:
    executions = list(executions)
    statuses = pd.DataFrame(
        {
            "execution_id": [e.id for e in executions for _ in e.result_summary],
            "start": [e.start_date for e in executions for _ in e.result_summary],
            "status": [s for e in executions for s in e.result_summary],
            "count": [n for e in executions for n in e.result_summary.values()],
        }
    )
    result_ids = _listed(executions, "execution_id", lambda e: e.test_results, "result_id")
    return ExecutionFrames(
        typed(_attributes(executions, _EXECUTION_FIELDS), EXECUTION_HISTORY_COLUMNS),
        typed(statuses, EXECUTION_STATUS_COLUMNS),
        typed(result_ids, EXECUTION_RESULT_ID_COLUMNS),
    )


def results_frame(
    results: Sequence[TestResult] | Sequence[ResultRecord],
    *,
    execution_ids: Sequence[int] | None = None,
    scenario_ids: Sequence[int] | None = None,
) -> pd.DataFrame:
    """One row per result (RESULT_HISTORY_COLUMNS), built column by column from the results'
    models or their records (`ApiClient.test_result_records`: no model per result).

    `execution_ids` and `scenario_ids` (one per result) file each result under the pair it was
    fetched for, whatever its own fields say: that is what "this pair is stored" relies on.
    """
    rows = result_records(results)
    envs: list[Mapping[str, Any]] = [r.get("environment") or _NO_ENVIRONMENT for r in rows]
    node = [r.get("node_log_path") for r in rows]
    executor = [r.get("executor_log_path") for r in rows]
    node_links = [p if is_web_url(p) else None for p in node]
    executor_links = [p if is_web_url(p) else None for p in executor]
    frame = pd.DataFrame(
        {
            "result_id": [r["id"] for r in rows],
            "execution_id": (
                list(execution_ids)
                if execution_ids is not None
                else [r.get("execution_id") for r in rows]
            ),
            "plan_id": [r.get("plan_id") for r in rows],
            "project_id": [r.get("project_id") for r in rows],
            "scenario_id": (
                list(scenario_ids)
                if scenario_ids is not None
                else [r.get("scenario_id") for r in rows]
            ),
            "level": [r["level"] for r in rows],
            "runtime_s": [r.get("runtime") for r in rows],
            "start": [r.get("start_date") for r in rows],
            "environment_id": [e.get("id") for e in envs],
            "os": [e.get("operating_system_clean_name") or e.get("operating_system") for e in envs],
            "browser": [e.get("browser_type") for e in envs],
            "browser_version": [e.get("environment_version") for e in envs],
            "device": [e.get("environment_type") for e in envs],
            "mobile": [e.get("mobile") for e in envs],
            "resolution": [r.get("screen_resolution") for r in rows],
            "message": [r.get("message") for r in rows],
            "node_log": node_links,
            "executor_log": executor_links,
            "screenshots": [r.get("screenshots_enabled") for r in rows],
            "video": [r.get("video_enabled") for r in rows],
            "unlinked_logs": [
                _unlinked(*paths)
                for paths in zip(node, node_links, executor, executor_links, strict=True)
            ],
        }
    )
    return typed(frame, RESULT_HISTORY_COLUMNS)


_NO_ENVIRONMENT: Mapping[str, Any] = {}


def result_records(
    results: Sequence[TestResult] | Sequence[ResultRecord],
) -> list[Mapping[str, Any]]:
    """Results as records: a record as it is, a model as the record it was validated from
    would read (its fields by name, its environment's too). Nothing else of a model is read
    (its `user_info`, which carries another user's token, stays where it is)."""
    rows: list[Mapping[str, Any]] = []
    for result in results:
        if isinstance(result, TestResult):
            env = result.environment
            rows.append({**result.__dict__, "environment": env.__dict__ if env else None})
        else:
            rows.append(result)
    return rows


def _unlinked(
    node: str | None, node_link: str | None, executor: str | None, executor_link: str | None
) -> str | None:
    """Log paths that are not http(s) links (no `*_link` made of them), labelled, for the page
    to show as inert text."""
    parts = [
        f"{label}: {path}"
        for label, path, link in (("node", node, node_link), ("executor", executor, executor_link))
        if path and link is None
    ]
    return "; ".join(parts) or None

"""Records -> DataFrames, and the summaries the pages show. Pure pandas: no Streamlit here.

Two kinds of frame live here. *Data frames* (`plans_frame`, `executions_frame`, ...) have
machine column names and fixed dtypes; they are what the loaders return and the cache keeps.
*Display frames* (`plans_display`, ...) have the column labels a viewer reads; a page shows one
and offers the very same frame as CSV, so the download is exactly what the table shows.

Columns are built one by one from the model attributes the dashboard needs. Nothing is dumped
wholesale from a model: a test result's `user_info` (which carries another user's access token)
never enters a frame.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pandas as pd

from api_client import Execution, TestPlan, TestResult
from dashboard.formatting import EN_DASH, format_day, human_duration, is_web_url
from dashboard.status_colors import (
    FAILING_STATUSES,
    PASSED_STATUSES,
    has_verdict,
    is_failing,
    is_passed,
    ordered_statuses,
)

# -- schemas: every data frame has these columns and dtypes, even when empty -----------------

UTC_TIME = "datetime64[us, UTC]"

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
    "verdicts": "int64",  # results with a verdict (status_colors.VERDICT_STATUSES)
    "passed": "int64",  # results that passed (SUCCESS)
    "failed": "int64",
    "pass_rate": "float64",  # passed / verdicts, NaN when there is no verdict yet
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


def _frame(rows: Sequence[Mapping[str, Any]], schema: Mapping[str, str]) -> pd.DataFrame:
    frame = pd.DataFrame(list(rows), columns=list(schema))
    return frame.astype(dict(schema))


# -- plans ------------------------------------------------------------------------------------


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
    frame = _frame(rows, PLAN_COLUMNS)
    return _sorted(frame, ["project", "plan", "plan_id"])


def filter_plans(plans: pd.DataFrame, *, project_id: int | None) -> pd.DataFrame:
    if project_id is None:
        return plans
    return plans[plans["project_id"] == project_id].reset_index(drop=True)


def project_names(plans: pd.DataFrame) -> dict[int, str]:
    """Project id -> name, sorted by name; a project without a name is shown by its id."""
    pairs = plans[["project_id", "project"]].dropna(subset=["project_id"]).drop_duplicates()
    named = {
        int(pid): (name if isinstance(name, str) and name else f"Project {int(pid)}")
        for pid, name in pairs.itertuples(index=False)
    }
    return dict(sorted(named.items(), key=lambda item: (item[1].lower(), item[0])))


def plan_names(plans: pd.DataFrame, *, project_id: int | None = None) -> dict[int, str]:
    """Plan id -> name, sorted by name, limited to one project when given."""
    subset = filter_plans(plans, project_id=project_id)
    named = {
        int(pid): (name if isinstance(name, str) and name else f"Plan {int(pid)}")
        for pid, name in subset[["plan_id", "plan"]].itertuples(index=False)
    }
    return dict(sorted(named.items(), key=lambda item: (item[1].lower(), item[0])))


def plan_projects(plans: pd.DataFrame) -> dict[int, int | None]:
    """Plan id -> its project id."""
    return {
        int(pid): (None if pd.isna(project) else int(project))
        for pid, project in plans[["plan_id", "project_id"]].itertuples(index=False)
    }


def plan_scenarios(plans: pd.DataFrame, plan_id: int) -> tuple[int, ...] | None:
    """The scenario ids of one plan, or None when the plan is not in the frame."""
    match = plans.loc[plans["plan_id"] == plan_id, "scenario_ids"]
    return None if match.empty else tuple(match.iloc[0])


@dataclass(frozen=True)
class PlanKpis:
    plans: int
    enabled: int
    scenarios: int
    with_alerts: int


def plan_kpis(plans: pd.DataFrame) -> PlanKpis:
    return PlanKpis(
        plans=len(plans),
        enabled=int(plans["enabled"].fillna(False).sum()),
        scenarios=int(plans["scenarios"].sum()),
        with_alerts=int((plans["alerts"] > 0).sum()),
    )


def plans_display(plans: pd.DataFrame) -> pd.DataFrame:
    """The plans table as shown (and downloaded)."""
    return pd.DataFrame(
        {
            "Id": plans["plan_id"],
            "Plan": plans["plan"],
            "Type": plans["type"],
            "Project": plans["project"],
            "Scenarios": plans["scenarios"],
            "Enabled": plans["enabled"],
            "Parallel limit": plans["parallel_limit"],
            "Retries": plans["retries"],
            "Alerts": plans["alerts"],
            "Created": plans["created"],
            "Created by": plans["created_by"],
            "Updated": plans["updated"],
            "Updated by": plans["updated_by"],
        }
    ).reset_index(drop=True)


# -- executions -------------------------------------------------------------------------------


def executions_frame(executions: Iterable[Execution]) -> pd.DataFrame:
    """One row per execution, newest first."""
    rows = []
    for execution in executions:
        counts = execution.result_summary
        total = sum(counts.values())
        # Only known verdicts count: a waiting, stopped or unknown status is neither a pass nor
        # a failure, so it is left out of the pass rate instead of lowering it.
        verdicts = sum(n for status, n in counts.items() if has_verdict(status))
        passed = sum(n for status, n in counts.items() if is_passed(status))
        failed = sum(n for status, n in counts.items() if is_failing(status))
        rows.append(
            {
                "execution_id": execution.id,
                "start": execution.start_date,
                "end": execution.end_date,
                "plan_id": execution.plan_id,
                "plan": execution.plan_name,
                "project_id": execution.project_id,
                "project": execution.project_name,
                "user": execution.username,
                "runtime_ms": execution.runtime,
                "results": total,
                "verdicts": verdicts,
                "passed": passed,
                "failed": failed,
                "pass_rate": passed / verdicts if verdicts else float("nan"),
            }
        )
    return _sorted(_frame(rows, EXECUTION_COLUMNS), ["start", "execution_id"], ascending=False)


def status_counts_frame(executions: Iterable[Execution]) -> pd.DataFrame:
    """`result_summary` in long form: one row per (execution, status) with a count."""
    rows = [
        {"execution_id": e.id, "start": e.start_date, "status": status, "count": count}
        for e in executions
        for status, count in e.result_summary.items()
    ]
    return _sorted(_frame(rows, STATUS_COUNT_COLUMNS), ["start", "execution_id", "status"])


def status_counts_per_day(status_counts: pd.DataFrame) -> pd.DataFrame:
    """Status counts summed per UTC day: columns day, status, count."""
    dated = status_counts.dropna(subset=["start"])
    if dated.empty:
        return _frame([], {"day": UTC_TIME, "status": "str", "count": "int64"})
    per_day = (
        dated.assign(day=dated["start"].dt.floor("D"))
        .groupby(["day", "status"], as_index=False)["count"]
        .sum()
    )
    return per_day.astype({"day": UTC_TIME, "status": "str", "count": "int64"})


def pass_rate_per_day(executions: pd.DataFrame) -> pd.DataFrame:
    """Daily pass rate over the day's results with a verdict: columns day, executions, passed,
    verdicts, pass_rate (NaN on a day without any verdict)."""
    schema = {
        "day": UTC_TIME,
        "executions": "int64",
        "passed": "int64",
        "verdicts": "int64",
        "pass_rate": "float64",
    }
    dated = executions.dropna(subset=["start"])
    if dated.empty:
        return _frame([], schema)
    daily = (
        dated.assign(day=dated["start"].dt.floor("D"))
        .groupby("day", as_index=False)
        .agg(
            executions=("execution_id", "count"),
            passed=("passed", "sum"),
            verdicts=("verdicts", "sum"),
        )
    )
    daily["pass_rate"] = daily["passed"] / daily["verdicts"].where(daily["verdicts"] > 0)
    return daily.astype(schema)


def execution_row(executions: pd.DataFrame, execution_id: int) -> pd.Series | None:
    """The row of one execution, or None when it is not in the frame."""
    match = executions[executions["execution_id"] == execution_id]
    return None if match.empty else match.iloc[0]


def execution_status_counts(status_counts: pd.DataFrame, execution_id: int) -> dict[str, int]:
    """One execution's `result_summary`, in the fixed status order."""
    rows = status_counts[status_counts["execution_id"] == execution_id]
    totals = rows.groupby("status")["count"].sum()
    return {status: int(totals[status]) for status in ordered_statuses(totals.index)}


@dataclass(frozen=True)
class ExecutionHeader:
    """What the results page says about one execution; missing texts are an en dash."""

    execution_id: int
    plan_id: int | None
    plan: str
    project: str
    user: str
    start: datetime | None
    end: datetime | None
    runtime_s: float | None
    results: int
    failed: int
    pass_rate: float | None  # None while no result has a verdict
    summary: tuple[tuple[str, int], ...]  # (status, count) in the fixed status order


def execution_header(
    executions: pd.DataFrame, status_counts: pd.DataFrame, execution_id: int
) -> ExecutionHeader | None:
    """The header of one execution of the frames, or None when it is not in them."""
    row = execution_row(executions, execution_id)
    if row is None:
        return None
    pass_rate = row["pass_rate"]
    return ExecutionHeader(
        execution_id=execution_id,
        plan_id=optional_int(row["plan_id"]),
        plan=cell_text(row["plan"]),
        project=cell_text(row["project"]),
        user=cell_text(row["user"]),
        start=optional_datetime(row["start"]),
        end=optional_datetime(row["end"]),
        runtime_s=runtime_seconds(row["runtime_ms"]),
        results=int(row["results"]),
        failed=int(row["failed"]),
        pass_rate=None if pd.isna(pass_rate) else float(pass_rate),
        summary=tuple(execution_status_counts(status_counts, execution_id).items()),
    )


def latest_executions(
    executions: pd.DataFrame, status_counts: pd.DataFrame, limit: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The newest `limit` executions and their status counts (for a chart that draws each)."""
    latest = executions.sort_values(
        ["start", "execution_id"], ascending=False, na_position="last", kind="stable"
    ).head(limit)
    counts = status_counts[status_counts["execution_id"].isin(latest["execution_id"])]
    return latest.reset_index(drop=True), counts.reset_index(drop=True)


@dataclass(frozen=True)
class ExecutionKpis:
    executions: int
    pass_rate: float | None  # passed out of the slice's results with a verdict
    median_runtime_s: float | None
    failing_plans: int  # plans whose latest execution in the slice has a failed result
    plans: int


def execution_kpis(executions: pd.DataFrame) -> ExecutionKpis:
    verdicts = int(executions["verdicts"].sum())
    runtimes = executions["runtime_ms"].dropna()
    latest = (
        executions.dropna(subset=["plan_id"])
        .sort_values(["start", "execution_id"], ascending=False, na_position="last")
        .drop_duplicates("plan_id")
    )
    return ExecutionKpis(
        executions=len(executions),
        pass_rate=int(executions["passed"].sum()) / verdicts if verdicts else None,
        median_runtime_s=float(runtimes.median()) / 1000 if not runtimes.empty else None,
        failing_plans=int((latest["failed"] > 0).sum()),
        plans=int(executions["plan_id"].nunique()),
    )


def executions_display(executions: pd.DataFrame, status_counts: pd.DataFrame) -> pd.DataFrame:
    """The executions table as shown: one count column per status present, pass rate in %."""
    counts = status_counts.pivot_table(
        index="execution_id", columns="status", values="count", aggfunc="sum", fill_value=0
    )
    statuses = ordered_statuses(counts.columns)
    display = pd.DataFrame(
        {
            "Id": executions["execution_id"],
            "Start": executions["start"],
            "End": executions["end"],
            "Plan": executions["plan"],
            "Project": executions["project"],
            "User": executions["user"],
            "Duration": executions["runtime_ms"].map(
                lambda ms: human_duration(None if pd.isna(ms) else ms / 1000)
            ),
        }
    )
    for status in statuses:
        display[status] = (
            executions["execution_id"].map(counts[status]).fillna(0).astype("int64").to_numpy()
        )
    display["Pass rate"] = (executions["pass_rate"] * 100).round(1)
    return display.reset_index(drop=True)


# -- results of one execution -----------------------------------------------------------------


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
    frame = _frame(rows, RESULT_COLUMNS)
    return _sorted(frame, ["scenario_id", "os", "browser", "browser_version", "result_id"])


def results_display(results: pd.DataFrame) -> pd.DataFrame:
    """The results table as shown: failed results first, then by scenario; what a QA lead reads
    first (level, message, logs) on the left. The inert log-path column appears only if needed."""
    failing_first = results.assign(
        _failing=~results["level"].fillna("").map(is_failing).astype("bool")
    ).sort_values(["_failing", "scenario_id"], kind="stable", na_position="last")
    ordered = failing_first.drop(columns="_failing")
    display = pd.DataFrame(
        {
            "Scenario": ordered["scenario_id"],
            "Level": ordered["level"],
            "Message": ordered["message"],
            "Node log": ordered["node_log"],
            "Executor log": ordered["executor_log"],
            "Runtime": ordered["runtime_s"].map(
                lambda s: human_duration(None if pd.isna(s) else float(s))
            ),
            "OS": ordered["os"],
            "Browser": ordered["browser"],
            "Version": ordered["browser_version"],
            "Device": ordered["device"],
            "Mobile": ordered["mobile"],
            "Resolution": ordered["resolution"],
            "Screenshots": ordered["screenshots"],
            "Video": ordered["video"],
        }
    )
    if ordered["unlinked_logs"].notna().any():
        display["Log paths (not web links)"] = ordered["unlinked_logs"]
    return display.reset_index(drop=True)


def level_breakdown(results: pd.DataFrame) -> pd.DataFrame:
    """How many results have each level, in the fixed status order: columns level, count."""
    counts = results["level"].fillna("(none)").value_counts()
    order = ordered_statuses(counts.index)
    return pd.DataFrame(
        {"level": pd.Series(order, dtype="str"), "count": [int(counts[s]) for s in order]}
    ).astype({"count": "int64"})


OUTCOME_ORDER = ("all passed", "some failed", "all failed", "no verdict")


def environment_matrix(results: pd.DataFrame) -> pd.DataFrame:
    """Outcome per (OS, browser): columns os, browser, results, passed, failed, outcome."""
    schema = {
        "os": "str",
        "browser": "str",
        "results": "int64",
        "passed": "int64",
        "failed": "int64",
        "outcome": "str",
    }
    if results.empty:
        return _frame([], schema)
    level = results["level"].fillna("").str.upper()
    marked = pd.DataFrame(
        {
            "os": results["os"].fillna("(unknown OS)"),
            "browser": results["browser"].fillna("(unknown browser)"),
            "passed": level.isin(PASSED_STATUSES).astype("int64"),
            "failed": level.isin(FAILING_STATUSES).astype("int64"),
        }
    )
    matrix = marked.groupby(["os", "browser"], as_index=False).agg(
        results=("passed", "size"), passed=("passed", "sum"), failed=("failed", "sum")
    )
    matrix["outcome"] = [
        _outcome(int(r), int(p), int(f))
        for r, p, f in matrix[["results", "passed", "failed"]].itertuples(index=False)
    ]
    return matrix[list(schema)].astype(schema)


def _outcome(results: int, passed: int, failed: int) -> str:
    if failed and failed == results:
        return "all failed"
    if failed:
        return "some failed"
    if passed == results:
        return "all passed"
    return "no verdict"


# -- shared -----------------------------------------------------------------------------------


# A spreadsheet opening a CSV runs a cell that starts with one of these as a formula
# (OWASP "CSV injection"); names and messages come from the service, so they could.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def to_csv(display: pd.DataFrame) -> bytes:
    """A display frame as UTF-8 CSV, the bytes of the table's download button.

    Text cells that a spreadsheet would read as a formula get a leading `'`, which spreadsheets
    show as text. Only text columns are touched: numbers, dates and flags stay what they are,
    and the table on the page shows the values unchanged. Rows end in CRLF (RFC 4180), so a
    cell holding a lone carriage return is quoted instead of splitting its row.
    """
    inert = display.copy()
    for position, dtype in enumerate(inert.dtypes):
        if pd.api.types.is_object_dtype(dtype) or isinstance(dtype, pd.StringDtype):
            inert.isetitem(position, inert.iloc[:, position].map(_inert_text, na_action="ignore"))
    return inert.to_csv(index=False, lineterminator="\r\n").encode("utf-8")


def _inert_text(value: object) -> object:
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def time_extent(values: pd.Series) -> tuple[datetime, datetime] | None:
    """First and last timestamp of a column, or None when it has none."""
    present = values.dropna()
    if present.empty:
        return None
    return present.min().to_pydatetime(), present.max().to_pydatetime()


def cell_text(value: object) -> str:
    """A frame cell as text for a sentence; missing values as an en dash."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return EN_DASH
    return str(value)


def utc_text(value: object) -> str:
    """A timestamp cell as "20 Nov 2026, 09:15 UTC"."""
    if value is None or pd.isna(value):
        return EN_DASH
    stamp = pd.Timestamp(value)
    return f"{format_day(stamp, with_year=True)}, {stamp:%H:%M} UTC"


def runtime_seconds(runtime_ms: object) -> float | None:
    """An execution's runtime cell (milliseconds) in seconds, or None."""
    if runtime_ms is None or pd.isna(runtime_ms):
        return None
    return float(runtime_ms) / 1000  # type: ignore[arg-type]


def optional_datetime(value: object) -> datetime | None:
    """A timestamp cell as an aware datetime, or None when it is missing (NaT)."""
    if value is None or pd.isna(value):
        return None
    return pd.Timestamp(value).to_pydatetime()


def row_for_selection(frame: pd.DataFrame, position: int | None) -> pd.Series | None:
    """The row a table selection points at, or None: nothing selected, or a stale position
    (a selection kept from before the data changed) that no longer names a row."""
    if position is None or not 0 <= position < len(frame):
        return None
    return frame.iloc[position]


def optional_int(value: object) -> int | None:
    """A frame cell as an int, or None when it is missing (pandas' NA, NaN or None)."""
    return None if value is None or pd.isna(value) else int(value)  # type: ignore[call-overload, unused-ignore]


def _sorted(frame: pd.DataFrame, by: list[str], *, ascending: bool = True) -> pd.DataFrame:
    return frame.sort_values(
        by, ascending=ascending, na_position="last", kind="stable"
    ).reset_index(drop=True)

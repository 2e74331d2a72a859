"""Summaries of a slice of executions: per day, per execution, KPIs, one execution's header.

Pure pandas over the executions and status-count frames (`dashboard.columns.schemas`); pass
rates follow the verdict rules.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import pandas as pd

from dashboard.analytics.verdicts import ordered_statuses
from dashboard.analytics.windows import zone
from dashboard.columns.cells import cell_text, optional_datetime, optional_int, runtime_seconds
from dashboard.columns.schemas import UTC_TIME
from dashboard.columns.shapes import typed_rows


def day_type(tz: str = "UTC") -> str:
    """The dtype of a `day` column in the zone `tz` (UTC days keep the shared `UTC_TIME`)."""
    return UTC_TIME if tz == "UTC" else f"datetime64[us, {zone(tz).key}]"


def local_days(starts: pd.Series, tz: str = "UTC") -> pd.Series:
    """The calendar day in `tz` of each (aware) start, as that day's first instant in `tz`.

    A viewer in Istanbul counts a run at 22:30 UTC on the next day, as the clock on their wall
    does. Floored on the wall-clock time, then placed back in the zone: a day that begins in a
    DST change (some zones move their clocks at midnight) begins at its first instant that
    exists; an hour that repeats at midnight begins at its first occurrence. Raises ValueError
    for an unknown zone."""
    name = zone(tz).key
    wall = starts.dt.tz_convert(name).dt.tz_localize(None).dt.floor("D")
    first = np.ones(len(wall), dtype=bool)  # a repeated midnight: the first one (still DST)
    return wall.dt.tz_localize(name, ambiguous=first, nonexistent="shift_forward").astype(
        day_type(tz)
    )


def status_counts_per_day(status_counts: pd.DataFrame, *, tz: str = "UTC") -> pd.DataFrame:
    """Status counts summed per calendar day in `tz`: columns day (the day's first instant in
    `tz`), status, count. Counts of an unknown start are left out (no day to put them on)."""
    schema = {"day": day_type(tz), "status": "str", "count": "int64"}
    dated = status_counts.dropna(subset=["start"])
    if dated.empty:
        return typed_rows([], schema)
    per_day = (
        dated.assign(day=local_days(dated["start"], tz))
        .groupby(["day", "status"], as_index=False)["count"]
        .sum()
    )
    return per_day.astype(schema)


def pass_rate_per_day(executions: pd.DataFrame, *, tz: str = "UTC") -> pd.DataFrame:
    """Daily pass rate over the day's results with a verdict, per calendar day in `tz`: columns
    day (the day's first instant in `tz`), executions, passed, verdicts, pass_rate (NaN on a day
    without any verdict). Running executions are counted as executions but their results are
    not: a run half-way through is no pass yet. Executions of an unknown start are left out."""
    schema = {
        "day": day_type(tz),
        "executions": "int64",
        "passed": "int64",
        "verdicts": "int64",
        "pass_rate": "float64",
    }
    dated = _finished_verdicts_only(executions.dropna(subset=["start"]))
    if dated.empty:
        return typed_rows([], schema)
    daily = (
        dated.assign(day=local_days(dated["start"], tz))
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
    pass_rate: float | None  # passed out of the finished executions' results with a verdict
    median_runtime_s: float | None
    failing_plans: int  # plans whose latest finished execution in the slice has a failed result
    plans: int
    running: int = 0  # executions still running: in the count, not in the rate or "latest"


def execution_kpis(
    executions: pd.DataFrame, *, left_out: Collection[int] = frozenset()
) -> ExecutionKpis:
    """The slice's KPIs. `left_out` (likely outages, `outages.outages`) are counted among the
    executions and left out of every other figure: the pass rate, the median duration and
    which plans are failing."""
    counted = len(executions)
    if left_out:
        executions = executions[~executions["execution_id"].isin(list(left_out))]
    finished = _finished(executions)
    verdicts = int(executions["verdicts"].where(finished, 0).sum())
    passed = int(executions["passed"].where(finished, 0).sum())
    runtimes = executions["runtime_ms"].where(finished).dropna()
    latest = (
        executions[finished]
        .dropna(subset=["plan_id"])
        .sort_values(["start", "execution_id"], ascending=False, na_position="last")
        .drop_duplicates("plan_id")
    )
    return ExecutionKpis(
        executions=counted,
        pass_rate=passed / verdicts if verdicts else None,
        median_runtime_s=float(runtimes.median()) / 1000 if not runtimes.empty else None,
        failing_plans=int((latest["failed"] > 0).sum()),
        plans=int(executions["plan_id"].nunique()),
        running=int((~finished).sum()),
    )


def _finished(executions: pd.DataFrame) -> pd.Series:
    """Which executions are finished; frames without the column count as finished."""
    if "finished" not in executions:
        return pd.Series(True, index=executions.index)
    return executions["finished"].astype("bool")


def _finished_verdicts_only(executions: pd.DataFrame) -> pd.DataFrame:
    """`executions` with the results of running ones left out of `passed` and `verdicts`."""
    finished = _finished(executions)
    return executions.assign(
        passed=executions["passed"].where(finished, 0),
        verdicts=executions["verdicts"].where(finished, 0),
    )


def with_statuses(
    executions: pd.DataFrame, status_counts: pd.DataFrame, statuses: Sequence[str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The executions whose status is one of `statuses` (any, when none is given), and their
    status counts. Applied to loaded executions, so changing it asks the service for nothing."""
    if not statuses:
        return executions, status_counts
    wanted = {status.strip().upper() for status in statuses}
    kept = executions[executions["status"].str.upper().isin(wanted)]
    counts = status_counts[status_counts["execution_id"].isin(kept["execution_id"])]
    return kept.reset_index(drop=True), counts.reset_index(drop=True)


def without_executions(
    executions: pd.DataFrame, status_counts: pd.DataFrame, left_out: Collection[int]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The executions and status counts the page's figures count: those of `left_out` (the
    likely outages the viewer has not included) taken out of both. Nothing left out: the same
    frames."""
    if not left_out:
        return executions, status_counts
    ids = list(left_out)
    kept = executions[~executions["execution_id"].isin(ids)]
    counts = status_counts[~status_counts["execution_id"].isin(ids)]
    return kept.reset_index(drop=True), counts.reset_index(drop=True)

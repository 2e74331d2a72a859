"""Plan health: one row per plan, the figures a QA lead scans to see which plans need care.

Rates are results pass rates (passed / results with a verdict, pooled over the plan's finished
executions that started in the period), the same measure as everywhere else; running
executions are left out of rates and runtimes (they have neither yet) but counted in
`executions_*`. Periods are rolling: "7 days" is `[now - 7 days, now)`. The sparkline is per
local calendar day in the viewer's zone, the last `long_days` days up to today, NaN on a day
with no verdict.

"Fully green" is stricter than a pass: finished and *every* result with a verdict a SUCCESS
(a warning is a pass for verdicts, but not fully green).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np
import pandas as pd

from dashboard.analytics.basis import Basis, execution_basis
from dashboard.analytics.plan_state import PLAN_FIGURES_NEED, plan_states
from dashboard.analytics.windows import zone
from dashboard.columns.schemas import PLAN_AND_PROJECT, UTC_TIME
from dashboard.columns.shapes import as_utc, require_columns, typed

HEALTH_COLUMNS: dict[str, str] = {
    **PLAN_AND_PROJECT,
    "pass_rate_short": "float64",  # last `short_days` (7)
    "pass_rate_long": "float64",  # last `long_days` (30)
    "executions_short": "int64",  # started in the short period, running ones included
    "executions_long": "int64",
    "finished_long": "int64",
    "running": "int64",  # in the long period, still running
    "daily_pass_rate": "object",  # list of `long_days` floats, oldest day first, NaN = none
    "latest_execution_id": "Int64",  # latest judged execution (any time)
    "latest_start": UTC_TIME,
    "latest_outcome": "str",
    "running_execution_id": "Int64",  # a newer execution still running
    "streak": "int64",  # judged executions in a row with latest_outcome
    "streak_since": UTC_TIME,
    "last_fully_green_start": UTC_TIME,
    "since_fully_green": "timedelta64[us]",  # now - last_fully_green_start; NaT when none
    "median_runtime_ms_short": "float64",  # finished executions of the short period
    "median_runtime_ms_before": "float64",  # the short period before it
    "runtime_trend": "float64",  # short / before - 1 (0.2 = 20 % slower); NaN if either none
}


@dataclass(frozen=True, eq=False)
class PlanHealth:
    """`plans`: `HEALTH_COLUMNS`, one row per plan with an execution in the long period or a
    judged one ever, ordered by plan name. `days`: the sparkline's local dates.
    `basis`: the executions of the long period."""

    plans: pd.DataFrame
    days: tuple[str, ...]  # ISO dates of the daily series, oldest first
    basis: Basis
    short_days: int
    long_days: int


def plan_health(
    executions: pd.DataFrame,
    *,
    now: datetime | pd.Timestamp,
    tz: str = "UTC",
    short_days: int = 7,
    long_days: int = 30,
) -> PlanHealth:
    """Health per plan from `executions` (execution_id, start, plan_id, finished, verdicts,
    passed, failed, runtime_ms; plan and project columns are carried when present). The
    history may reach further back than `long_days`: the latest verdict and the streak use
    all of it."""
    require_columns(executions, PLAN_FIGURES_NEED, "plan health")
    if not 0 < short_days <= long_days:
        raise ValueError("plan health needs 0 < short_days <= long_days")
    current = as_utc(now, "now")
    local = zone(tz)
    frame = executions[executions["plan_id"].notna() & (executions["start"] < current)]
    states = plan_states(frame).set_index("plan_id")

    long_start = current - pd.Timedelta(days=long_days)
    short_start = current - pd.Timedelta(days=short_days)
    before_start = short_start - pd.Timedelta(days=short_days)
    recent = frame[frame["start"] >= min(long_start, before_start)]
    finished = recent["finished"].fillna(False).astype(bool)
    in_long = recent["start"] >= long_start
    in_short = recent["start"] >= short_start
    in_before = (recent["start"] >= before_start) & ~in_short
    plan = recent["plan_id"]

    def rate(mask: pd.Series) -> pd.Series:
        chosen = recent[mask & finished]
        sums = chosen.groupby("plan_id")[["passed", "verdicts"]].sum()
        return sums["passed"] / sums["verdicts"].where(sums["verdicts"] > 0)

    def median_runtime(mask: pd.Series) -> pd.Series:
        chosen = recent[mask & finished & recent["runtime_ms"].notna()]
        return chosen["runtime_ms"].astype("float64").groupby(chosen["plan_id"]).median()

    out = states[["plan", "project_id", "project"]].copy()
    out["pass_rate_short"] = rate(in_short)
    out["pass_rate_long"] = rate(in_long)
    out["executions_short"] = in_short.groupby(plan).sum()
    out["executions_long"] = in_long.groupby(plan).sum()
    out["finished_long"] = (in_long & finished).groupby(plan).sum()
    out["running"] = (in_long & ~finished).groupby(plan).sum()
    for column in ("executions_short", "executions_long", "finished_long", "running"):
        out[column] = out[column].fillna(0)
    for column in (
        "latest_execution_id",
        "latest_start",
        "latest_outcome",
        "running_execution_id",
        "streak",
        "streak_since",
        "last_fully_green_start",
    ):
        out[column] = states[column]
    out["since_fully_green"] = current - out["last_fully_green_start"]
    out["median_runtime_ms_short"] = median_runtime(in_short)
    out["median_runtime_ms_before"] = median_runtime(in_before)
    out["runtime_trend"] = out["median_runtime_ms_short"] / out["median_runtime_ms_before"] - 1

    days, series = _daily(recent[in_long & finished], out.index, current, local, long_days)
    out["daily_pass_rate"] = series
    keep = (out["executions_long"] > 0) | out["latest_execution_id"].notna()
    out = out[keep].reset_index().sort_values(["plan", "plan_id"], kind="stable")
    long_frame = frame[frame["start"] >= long_start]
    return PlanHealth(
        plans=typed(out, HEALTH_COLUMNS),
        days=days,
        basis=execution_basis(long_frame, start=long_start, end=current),
        short_days=short_days,
        long_days=long_days,
    )


def _daily(
    done: pd.DataFrame, plans: pd.Index, now: pd.Timestamp, local: object, days: int
) -> tuple[tuple[str, ...], list[list[float]]]:
    today = now.tz_convert(local).tz_localize(None).normalize()
    first = today - pd.Timedelta(days=days - 1)
    local_day = done["start"].dt.tz_convert(local).dt.tz_localize(None).dt.normalize()
    offsets = (local_day - first) // pd.Timedelta(days=1)
    index = offsets.fillna(-1).astype("int64").to_numpy()
    inside = (index >= 0) & (index < days)
    rows = plans.get_indexer(done["plan_id"])
    keep = inside & (rows >= 0)
    passed = np.zeros((len(plans), days))
    verdicts = np.zeros((len(plans), days))
    np.add.at(passed, (rows[keep], index[keep]), done["passed"].to_numpy()[keep])
    np.add.at(verdicts, (rows[keep], index[keep]), done["verdicts"].to_numpy()[keep])
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = np.where(verdicts > 0, passed / verdicts, np.nan)
    labels = tuple((first + pd.Timedelta(days=i)).date().isoformat() for i in range(days))
    return labels, rates.tolist()

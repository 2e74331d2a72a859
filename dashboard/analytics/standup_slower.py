"""The standup's "Slower" rule: plans whose median runtime in the window is clearly above their
median over the days before it. "Clearly" is a threshold (+25 %) and a minimum number of
finished executions on each side (3), so one slow run never makes a plan "slower"."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics.windows import Window
from dashboard.columns.schemas import PLAN_AND_PROJECT
from dashboard.columns.shapes import empty, require_columns, typed

SLOWER_THRESHOLD = 0.25
SLOWER_MIN_EXECUTIONS = 3
BASELINE_DAYS = 14

SLOWER_COLUMNS: dict[str, str] = {
    **PLAN_AND_PROJECT,
    "window_median_ms": "float64",
    "baseline_median_ms": "float64",
    "change": "float64",  # window / baseline - 1: 0.31 is +31 %
    "window_executions": "int64",
    "baseline_executions": "int64",
}


def slower_plans(
    executions: pd.DataFrame,
    window: Window,
    *,
    threshold: float = SLOWER_THRESHOLD,
    min_executions: int = SLOWER_MIN_EXECUTIONS,
    baseline_days: int = BASELINE_DAYS,
) -> pd.DataFrame:
    """Plans whose median runtime of finished executions that started in `window` is at least
    `threshold` above their median over the `baseline_days` before the window, with at least
    `min_executions` on each side; only finished executions with a runtime count. Columns
    `SLOWER_COLUMNS`, biggest change first."""
    require_columns(executions, ("start", "plan_id", "finished", "runtime_ms"), "slower plans")
    done = executions[
        executions["finished"].fillna(False).astype(bool)
        & executions["runtime_ms"].notna()
        & executions["plan_id"].notna()
    ]
    baseline_window = Window(
        window.start - pd.Timedelta(days=baseline_days), window.start, window.tz
    )
    now = done[window.contains(done["start"])]
    base = done[baseline_window.contains(done["start"])]
    runtime_now = now["runtime_ms"].astype("float64").groupby(now["plan_id"])
    runtime_base = base["runtime_ms"].astype("float64").groupby(base["plan_id"])
    table = pd.DataFrame(
        {
            "window_median_ms": runtime_now.median(),
            "window_executions": runtime_now.size(),
        }
    ).join(
        pd.DataFrame(
            {
                "baseline_median_ms": runtime_base.median(),
                "baseline_executions": runtime_base.size(),
            }
        ),
        how="inner",
    )
    table = table[
        (table["window_executions"] >= min_executions)
        & (table["baseline_executions"] >= min_executions)
        & (table["baseline_median_ms"] > 0)
    ]
    table["change"] = table["window_median_ms"] / table["baseline_median_ms"] - 1
    table = table[table["change"] >= threshold - 1e-12].reset_index(names="plan_id")
    names = _plan_names(executions)
    table = table.merge(names, on="plan_id", how="left")
    table = table.sort_values(["change", "plan_id"], ascending=[False, True], kind="stable")
    return typed(table, SLOWER_COLUMNS) if len(table) else empty(SLOWER_COLUMNS)


def _plan_names(executions: pd.DataFrame) -> pd.DataFrame:
    present = executions[executions["plan_id"].notna()].sort_values("start", kind="stable")
    names = present.drop_duplicates("plan_id", keep="last")
    columns = {"plan_id": names["plan_id"]}
    for name in ("plan", "project_id", "project"):
        columns[name] = names[name] if name in names.columns else pd.NA
    return pd.DataFrame(columns)

"""One scenario of one plan across the executions of a window: outcome, runtime, message and
logs per execution and environment, and whether it became clearly slower.

Runtime regression: only *completed* runs count (passed or warned, with a runtime), since a
failure often stops early and would hide a slowdown. Per environment, and for the scenario as a
whole (per execution, the median runtime across its environments), the median of the last
`recent` (5) runs is compared with the median of the runs before them; a regression is a
rise of at least `threshold` (+25 %) with `recent` recent runs and at least `min_earlier` (5)
earlier ones ("enough runs").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dashboard.analytics.basis import Basis, execution_basis
from dashboard.analytics.outcomes import PASS, WARN, result_cells
from dashboard.analytics.windows import Window
from dashboard.columns.schemas import ENVIRONMENT_NAME, SCENARIO_ON_ENVIRONMENT, UTC_TIME
from dashboard.columns.shapes import require_columns, typed

RECENT = 5
MIN_EARLIER = 5
THRESHOLD = 0.25

HISTORY_COLUMNS: dict[str, str] = {
    "execution_id": "int64",
    "execution_start": UTC_TIME,
    **SCENARIO_ON_ENVIRONMENT,
    "outcome": "str",
    "level": "str",
    "runtime_s": "Int64",
    "message": "str",
    "node_log": "str",
    "executor_log": "str",
    "result_id": "int64",
    "results": "int64",  # results in the cell (more than one: retried)
}

REGRESSION_COLUMNS: dict[str, str] = {
    **ENVIRONMENT_NAME,
    "recent_runs": "int64",
    "earlier_runs": "int64",
    "recent_median_s": "float64",
    "earlier_median_s": "float64",
    "change": "float64",  # recent / earlier - 1
    "enough_runs": "bool",
    "regressed": "bool",
}


@dataclass(frozen=True)
class RuntimeRegression:
    """The scenario as a whole: medians in seconds, change as a fraction (0.3 = +30 %)."""

    recent_runs: int
    earlier_runs: int
    recent_median_s: float | None
    earlier_median_s: float | None
    change: float | None
    enough_runs: bool
    regressed: bool


@dataclass(frozen=True, eq=False)
class ScenarioHistory:
    """cells: `HISTORY_COLUMNS`, oldest execution first then environment label.
    by_environment: `REGRESSION_COLUMNS`, one row per environment; overall: the scenario.
    basis: the plan's executions in the window; with_results = those where it has a result."""

    plan_id: int
    scenario_id: int
    cells: pd.DataFrame
    by_environment: pd.DataFrame
    overall: RuntimeRegression
    basis: Basis


def scenario_history(
    executions: pd.DataFrame,
    results: pd.DataFrame,
    plan_id: int,
    scenario_id: int,
    *,
    window: Window | None = None,
    recent: int = RECENT,
    min_earlier: int = MIN_EARLIER,
    threshold: float = THRESHOLD,
) -> ScenarioHistory:
    """The scenario's history over the plan's executions (in `window` when given)."""
    require_columns(executions, ("execution_id", "start", "plan_id", "finished"), "history")
    require_columns(results, ("execution_id", "scenario_id"), "history")
    if recent < 1 or min_earlier < 1 or threshold < 0:
        raise ValueError("a runtime regression needs recent >= 1, min_earlier >= 1, threshold >= 0")
    mine = executions[executions["plan_id"] == plan_id]
    if window is not None:
        mine = mine[window.contains(mine["start"])]
    starts = mine.set_index("execution_id")["start"]
    chosen = results[
        results["execution_id"].isin(mine["execution_id"]) & (results["scenario_id"] == scenario_id)
    ]
    cells = result_cells(chosen)
    # Not `Series.map`, which fails on an empty mapping of times (a plan with no executions).
    cells["execution_start"] = starts.reindex(cells["execution_id"]).set_axis(cells.index)
    for column in ("runtime_s", "message", "node_log", "executor_log"):
        if column not in cells.columns:
            cells[column] = pd.NA
    cells = cells.sort_values(["execution_start", "execution_id", "environment"], kind="stable")
    cells = typed(cells, HISTORY_COLUMNS)

    completed = cells[cells["outcome"].isin([PASS, WARN]) & cells["runtime_s"].notna()]
    by_env = runtime_regressions(
        completed, ["env_key", "environment"], recent, min_earlier, threshold
    )
    per_execution = (
        completed.groupby(["execution_start", "execution_id"], as_index=False)["runtime_s"]
        .median()
        .assign(_all="")
    )
    whole = runtime_regressions(per_execution, ["_all"], recent, min_earlier, threshold)
    overall = _overall(whole, recent)
    basis = execution_basis(
        mine,
        start=window.start if window else None,
        end=window.end if window else None,
        results_of=chosen["execution_id"],
        results=len(chosen),
    )
    return ScenarioHistory(int(plan_id), int(scenario_id), cells, by_env, overall, basis)


def runtime_regressions(
    runs: pd.DataFrame, keys: list[str], recent: int, min_earlier: int, threshold: float
) -> pd.DataFrame:
    """The regression rule (module docstring) per `keys` over `runs` (execution_start,
    execution_id, runtime_s and the keys): recent and earlier runs and medians, the change,
    whether there were enough runs and whether it regressed. Typed as `REGRESSION_COLUMNS`
    when grouped by environment; otherwise the keys and those figures."""
    if runs.empty:
        return typed(runs, REGRESSION_COLUMNS) if "env_key" in keys else pd.DataFrame()
    ordered = runs.sort_values(["execution_start", "execution_id"], kind="stable")
    back = ordered.groupby(keys, dropna=False).cumcount(ascending=False)
    seconds = ordered["runtime_s"].astype("float64")
    is_recent = back < recent
    table = pd.DataFrame(
        {
            "recent_runs": is_recent.groupby([ordered[k] for k in keys]).sum(),
            "earlier_runs": (~is_recent).groupby([ordered[k] for k in keys]).sum(),
            "recent_median_s": seconds[is_recent].groupby([ordered[k] for k in keys]).median(),
            "earlier_median_s": seconds[~is_recent].groupby([ordered[k] for k in keys]).median(),
        }
    ).reset_index()
    table["earlier_runs"] = table["earlier_runs"].fillna(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        base = table["earlier_median_s"].where(table["earlier_median_s"] > 0)
        table["change"] = table["recent_median_s"] / base - 1
    table["enough_runs"] = (table["recent_runs"] >= recent) & (table["earlier_runs"] >= min_earlier)
    table["regressed"] = table["enough_runs"] & (table["change"] >= threshold - 1e-12)
    if "env_key" not in keys:
        return table
    table = table.sort_values(["regressed", "environment"], ascending=[False, True], kind="stable")
    return typed(table, REGRESSION_COLUMNS)


def _overall(table: pd.DataFrame, recent: int) -> RuntimeRegression:
    if table.empty:
        return RuntimeRegression(0, 0, None, None, None, False, False)
    row = table.iloc[0]

    def number(value: object) -> float | None:
        return None if pd.isna(value) else float(value)  # type: ignore[arg-type]

    return RuntimeRegression(
        recent_runs=int(row["recent_runs"]),
        earlier_runs=int(row["earlier_runs"]),
        recent_median_s=number(row["recent_median_s"]),
        earlier_median_s=number(row["earlier_median_s"]),
        change=number(row["change"]),
        enough_runs=bool(row["enough_runs"]),
        regressed=bool(row["regressed"]),
    )

"""The verdict rules of `verdicts.py`, applied to whole frames at once.

Two things live here: the outcome of each result level and of each execution, vectorised; and
the *cell*: one scenario on one environment in one execution. Most cross-run analytics compare
cells, so their rule is defined once. A cell with several results (a retried test) takes the
strongest outcome: fail, then pass, then warn, then no verdict, so a failure a retry covered is
still seen. Its representative result (for the message, logs and runtime) is the latest result
with that outcome.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dashboard.analytics.environment_names import ENVIRONMENT_COLUMNS, with_environments
from dashboard.analytics.frames import require_columns
from dashboard.analytics.verdicts import outcome

PASS, FAIL, WARN = "pass", "fail", "warn"
_RANK = {FAIL: 3, PASS: 2, WARN: 1}  # no verdict ranks 0


def level_outcomes(levels: pd.Series) -> pd.Series:
    """Each level's outcome ("pass", "fail", "warn", or missing): `verdicts.outcome`, applied
    once per distinct level."""
    codes, uniques = pd.factorize(levels, use_na_sentinel=True)
    table = np.array(
        [outcome(u) if isinstance(u, str) else None for u in uniques] + [None], dtype=object
    )
    return pd.Series(table[codes], index=levels.index, dtype="str")


def execution_outcomes(executions: pd.DataFrame) -> pd.Series:
    """Each execution's verdict (`verdicts.execution_outcome`): "fail" when a result failed,
    "pass" when finished with verdicts and none failed, else missing."""
    require_columns(executions, ("finished", "verdicts", "failed"), "execution outcomes")
    failed = executions["failed"].fillna(0).to_numpy() > 0
    finished = executions["finished"].fillna(False).to_numpy(dtype=bool)
    passed = finished & (executions["verdicts"].fillna(0).to_numpy() > 0) & ~failed
    values = pd.Series(None, index=executions.index, dtype="str")
    values[passed] = PASS
    values[failed] = FAIL
    return values


CELL_KEYS = ("execution_id", "scenario_id", "env_key")
_OPTIONAL = ("runtime_s", "message", "node_log", "executor_log", "start")


def result_cells(results: pd.DataFrame) -> pd.DataFrame:
    """One row per (execution, scenario, environment) from a results-history frame.

    Columns: execution_id, plan_id, scenario_id, env_key, environment, outcome, results (how
    many results the cell had), and the representative result's level, environment columns
    (os, browser, browser_version, device, mobile) and result_id, plus its runtime_s, message,
    node_log, executor_log and start when the input has them.
    """
    needed = ("execution_id", "plan_id", "scenario_id", "level", "result_id")
    require_columns(results, (*needed, *ENVIRONMENT_COLUMNS), "result cells")
    optional = [c for c in _OPTIONAL if c in results.columns]
    frame = with_environments(results[[*needed, *optional, *ENVIRONMENT_COLUMNS]])
    frame["outcome"] = level_outcomes(frame["level"])
    columns = [
        "execution_id",
        "plan_id",
        "scenario_id",
        "env_key",
        "environment",
        "outcome",
        "results",
        "level",
        *optional,
        *ENVIRONMENT_COLUMNS,
        "result_id",
    ]
    if frame.empty:
        frame["results"] = pd.Series(dtype="int64")
        return frame[columns].reset_index(drop=True)
    cell = frame.groupby(list(CELL_KEYS), dropna=False, sort=False).ngroup().to_numpy()
    rank = frame["outcome"].map(_RANK).fillna(0).to_numpy()
    rid = frame["result_id"].to_numpy()
    order = np.lexsort((-rid, -rank, cell))  # by cell, strongest outcome, latest result
    sorted_cells = cell[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = sorted_cells[1:] != sorted_cells[:-1]
    picked = frame.iloc[order[first]].copy()
    picked["results"] = np.bincount(cell)[sorted_cells[first]].astype("int64")
    picked = picked.sort_values(["execution_id", "scenario_id", "env_key"], kind="stable")
    return picked[columns].reset_index(drop=True)

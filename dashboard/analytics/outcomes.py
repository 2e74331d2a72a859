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
from dashboard.analytics.verdicts import outcome
from dashboard.columns.shapes import require_columns

PASS, FAIL, WARN = "pass", "fail", "warn"
_RANK = {FAIL: 3, PASS: 2, WARN: 1}  # no verdict ranks 0


_BY_RANK = pd.array([None, WARN, PASS, FAIL], dtype="str")


def level_ranks(levels: pd.Series) -> np.ndarray:
    """Each level's outcome as a rank: 3 fail, 2 pass, 1 warn, 0 no verdict. Computed with
    `verdicts.outcome` once per distinct level."""
    codes, uniques = pd.factorize(levels, use_na_sentinel=True)
    table = np.array(
        [_RANK.get(outcome(u) or "", 0) if isinstance(u, str) else 0 for u in uniques] + [0],
        dtype=np.int8,
    )
    return table[codes]


def failed_levels(levels: pd.Series) -> np.ndarray:
    """Whether each level is a failure (FAILURE, ERROR: `verdicts.outcome`), as a bool array:
    without building the outcome column of every row."""
    return level_ranks(levels) == _RANK[FAIL]


def outcome_ranks(outcomes: pd.Series) -> np.ndarray:
    """The rank of each outcome ("fail" 3, "pass" 2, "warn" 1, missing 0)."""
    codes, uniques = pd.factorize(outcomes, use_na_sentinel=True)
    table = np.array([_RANK.get(u, 0) for u in uniques] + [0], dtype=np.int8)
    return table[codes]


def outcomes_from_ranks(ranks: np.ndarray, index: pd.Index) -> pd.Series:
    """The outcome column for an array of `level_ranks`."""
    return pd.Series(_BY_RANK.take(np.asarray(ranks, dtype=np.intp)), index=index)


def level_outcomes(levels: pd.Series) -> pd.Series:
    """Each level's outcome ("pass", "fail", "warn", or missing): `verdicts.outcome`."""
    return outcomes_from_ranks(level_ranks(levels), levels.index)


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


def result_cells(results: pd.DataFrame, *, details: bool = True) -> pd.DataFrame:
    """One row per (execution, scenario, environment) from a results-history frame, ordered
    by execution, scenario and environment key.

    Columns: execution_id, plan_id, scenario_id, env_key, environment (both categorical),
    outcome, results (how many results the cell had), result_id and, with `details`, the
    representative result's level, environment columns (os, browser, browser_version, device,
    mobile), plus its runtime_s, message, node_log, executor_log and start when the input has
    them. Without `details` a million results are summed up in a fraction of the time.
    """
    needed = ("execution_id", "plan_id", "scenario_id", "level", "result_id")
    require_columns(results, (*needed, *ENVIRONMENT_COLUMNS), "result cells")
    optional = [c for c in _OPTIONAL if c in results.columns] if details else []
    frame = with_environments(results[[*needed, *optional, *ENVIRONMENT_COLUMNS]])
    if not details:
        frame = frame.drop(columns=["level", *ENVIRONMENT_COLUMNS])
    columns = [
        "execution_id",
        "plan_id",
        "scenario_id",
        "env_key",
        "environment",
        "outcome",
        "results",
        *(["level", *optional, *ENVIRONMENT_COLUMNS] if details else []),
        "result_id",
    ]
    rank = level_ranks(results["level"])
    if frame.empty:
        frame = frame.assign(
            outcome=outcomes_from_ranks(rank, frame.index), results=pd.Series(dtype="int64")
        )
        return frame[columns].reset_index(drop=True)
    # Cells numbered in key order, so picking one row per cell leaves them sorted.
    cell = frame.groupby(list(CELL_KEYS), dropna=False, sort=True).ngroup().to_numpy()
    rid = frame["result_id"].to_numpy()
    order = np.lexsort((-rid, -rank, cell))  # by cell, strongest outcome, latest result
    sorted_cells = cell[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = sorted_cells[1:] != sorted_cells[:-1]
    rows = order[first]
    picked = frame.take(rows).reset_index(drop=True)
    picked["outcome"] = outcomes_from_ranks(rank[rows], picked.index)
    picked["results"] = np.bincount(cell)[sorted_cells[first]].astype("int64")
    return picked[columns]

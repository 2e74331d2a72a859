"""Where each plan stands: its latest verdict, the one before, and how long it has been so.

A plan is judged on its *judged* executions: finished ones with a verdict (`verdicts.py`: a
failure, or verdicts and no failure). A running execution is not a verdict, and neither is a
finished one in which nothing has a verdict (all stopped, or statuses nobody knows): both are
skipped, so "the one before" is the previous execution that said pass or fail. A plan whose
newest execution is still running says so (`running_execution_id`) and is judged on the
latest judged one.

Executions without a plan id belong to no plan row and are left out.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dashboard.analytics.outcomes import PASS, execution_outcomes
from dashboard.columns.schemas import PLAN_AND_PROJECT, UTC_TIME
from dashboard.columns.shapes import require_columns, typed

PLAN_STATE_COLUMNS: dict[str, str] = {
    **PLAN_AND_PROJECT,
    "executions": "int64",  # rows of this plan in the frame
    "judged": "int64",  # finished with a verdict
    "running": "int64",  # not finished
    "newest_execution_id": "Int64",
    "newest_start": UTC_TIME,
    "newest_running": "boolean",
    "running_execution_id": "Int64",  # newest unfinished execution newer than the latest judged
    "running_start": UTC_TIME,
    "latest_execution_id": "Int64",  # the latest judged execution
    "latest_start": UTC_TIME,
    "latest_outcome": "str",  # "pass" / "fail" / missing when never judged
    "latest_failed": "Int64",
    "latest_verdicts": "Int64",
    "latest_pass_rate": "float64",
    "previous_execution_id": "Int64",  # the judged execution before the latest
    "previous_start": UTC_TIME,
    "previous_outcome": "str",
    "streak": "int64",  # judged executions in a row, newest back, with latest_outcome
    "streak_since": UTC_TIME,  # start of the first execution of that streak
    "streak_from_oldest": "boolean",  # the streak reaches the oldest judged one: since is a bound
    "last_pass_execution_id": "Int64",
    "last_pass_start": UTC_TIME,
    "last_fully_green_start": UTC_TIME,  # finished, every verdict a SUCCESS (needs `passed`)
}

_NEEDED = ("execution_id", "start", "plan_id", "finished", "verdicts", "failed")

PLAN_FIGURES_NEED = (
    "execution_id",
    "start",
    "plan_id",
    "finished",
    "verdicts",
    "passed",
    "failed",
    "runtime_ms",
)
"""What the per-plan figures built on plan states (health, the standup) read of executions: the
columns a plan is judged on, and the passed results and runtimes reported beside."""


def judged_executions(executions: pd.DataFrame) -> pd.DataFrame:
    """Finished executions with a verdict, with an `outcome` column, oldest first per plan
    (ordered by plan, start, then id so ties are stable)."""
    require_columns(executions, _NEEDED, "judged executions")
    frame = executions[executions["plan_id"].notna()]
    finished = frame["finished"].fillna(False).astype(bool)
    outcomes = execution_outcomes(frame)
    keep = finished & outcomes.notna()
    # The outcomes of the kept rows only: a whole column assigned to a frame with no rows would
    # bring its rows along (pandas takes the column's index), as ghost executions of no plan.
    judged = frame[keep].assign(outcome=outcomes[keep])
    return judged.sort_values(["plan_id", "start", "execution_id"], kind="stable")


def plan_states(executions: pd.DataFrame) -> pd.DataFrame:
    """One row per plan in `executions` (columns `PLAN_STATE_COLUMNS`), ordered by plan id."""
    require_columns(executions, _NEEDED, "plan states")
    frame = executions[executions["plan_id"].notna()].sort_values(
        ["plan_id", "start", "execution_id"], kind="stable", na_position="first"
    )
    if frame.empty:
        return typed(frame, PLAN_STATE_COLUMNS)
    finished = frame["finished"].fillna(False).astype(bool)
    plans = frame.groupby("plan_id", sort=True)
    out = pd.DataFrame(index=pd.Index(plans.size().index, name="plan_id"))
    for name in ("plan", "project_id", "project"):
        out[name] = plans[name].last() if name in frame.columns else pd.NA
    out["executions"] = plans.size()
    out["running"] = (~finished).groupby(frame["plan_id"]).sum()

    newest = frame.drop_duplicates("plan_id", keep="last").set_index("plan_id")
    out["newest_execution_id"] = newest["execution_id"]
    out["newest_start"] = newest["start"]
    out["newest_running"] = ~newest["finished"].fillna(False).astype(bool)

    judged = judged_executions(frame)
    out["judged"] = judged.groupby("plan_id").size()
    out["judged"] = out["judged"].fillna(0)
    latest = judged.drop_duplicates("plan_id", keep="last").set_index("plan_id")
    out["latest_execution_id"] = latest["execution_id"]
    out["latest_start"] = latest["start"]
    out["latest_outcome"] = latest["outcome"]
    out["latest_failed"] = latest["failed"]
    out["latest_verdicts"] = latest["verdicts"]
    with np.errstate(divide="ignore", invalid="ignore"):
        out["latest_pass_rate"] = (
            latest["passed"] / latest["verdicts"] if "passed" in latest.columns else np.nan
        )

    back = judged.groupby("plan_id").cumcount(ascending=False)  # 0 = latest judged
    previous = judged[back == 1].set_index("plan_id")
    out["previous_execution_id"] = previous["execution_id"]
    out["previous_start"] = previous["start"]
    out["previous_outcome"] = previous["outcome"]

    # The streak: walk back from the latest judged execution while the outcome stays the same.
    newest_first = judged.assign(_back=back).sort_values(["plan_id", "_back"], kind="stable")
    same = newest_first["outcome"] == _per_row(newest_first, latest["outcome"])
    in_streak = ~(~same).groupby(newest_first["plan_id"]).cummax()
    streak = newest_first[in_streak]
    out["streak"] = streak.groupby("plan_id").size()
    out["streak"] = out["streak"].fillna(0)
    out["streak_since"] = streak.groupby("plan_id")["start"].min()
    out["streak_from_oldest"] = (out["streak"] == out["judged"]) & (out["judged"] > 0)

    passes = judged[judged["outcome"] == PASS].drop_duplicates("plan_id", keep="last")
    out["last_pass_execution_id"] = passes.set_index("plan_id")["execution_id"]
    out["last_pass_start"] = passes.set_index("plan_id")["start"]
    if "passed" in frame.columns:
        green = frame[finished & (frame["verdicts"] > 0) & (frame["passed"] == frame["verdicts"])]
        out["last_fully_green_start"] = green.groupby("plan_id")["start"].max()
    else:
        out["last_fully_green_start"] = pd.NaT

    # A running execution newer than the latest verdict is the one the plan is waiting for.
    latest_start = _per_row(frame, latest["start"])
    waiting = frame[~finished & ((frame["start"] > latest_start) | latest_start.isna())]
    running = waiting.drop_duplicates("plan_id", keep="last").set_index("plan_id")
    out["running_execution_id"] = running["execution_id"]
    out["running_start"] = running["start"]
    return typed(out.reset_index(), PLAN_STATE_COLUMNS)


def _per_row(frame: pd.DataFrame, by_plan: pd.Series) -> pd.Series:
    """`by_plan` (indexed by plan id) read for each row of `frame` by its plan id. Not
    `Series.map`, which turns an empty datetime mapping into floats and fails."""
    return by_plan.reindex(frame["plan_id"]).set_axis(frame.index)
